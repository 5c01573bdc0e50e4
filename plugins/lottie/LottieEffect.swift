import EffectKit

/// A designer's Lottie (bodymovin JSON) animation, drawn by rlottie at the layer's place and time, with
/// per-job data overrides (colours, opacity, position, scale, rotation of named shapes).
///
/// The file is read and checked (`LottieCheck`) in `create`, before rlottie parses it; frames map to
/// Lottie frames with exact arithmetic (`LottieClock`).
struct LottieEffect: TracingEffect {
    static let descriptor = EffectDescriptor(
        id: "lottie",
        identifier: "org.renderfarm.lottie",
        version: "1.0.0",
        summary: "A Lottie (After Effects / bodymovin JSON) animation rendered by rlottie, with data overrides",
        threadSafety: .full,
        parameters: [
            ParameterSpec(
                "file", .string, default: nil,
                doc: "the .json Lottie file, relative to the job file's folder (must stay inside it); required"),
            ParameterSpec(
                "at", .point, default: nil, range: -100_000...100_000,
                doc: "where the animation's anchor goes, in points (default: the canvas centre)"),
            ParameterSpec(
                "size", .size, default: nil, range: 1...20_000,
                doc: "box the animation is fitted into, keeping its aspect ratio (default: the whole canvas)"),
            ParameterSpec(
                "anchor", .point, default: [0.5, 0.5], range: -10...10,
                doc: "the point of the box placed at `at`, in units of its size ([0, 0] top left, [1, 1] bottom right)"),
            ParameterSpec(
                "speed", .number, default: 1, range: 0.01...100,
                doc: "playback rate: 2 plays twice as fast, 0.5 half as fast"),
            ParameterSpec(
                "loop", .json, default: 1,
                doc: "how many times the animation plays: a count (1 = once), or true to repeat until the job ends"),
            ParameterSpec(
                "hold", .bool, default: false,
                doc: "keep the last frame on screen after the last play (default: nothing is drawn after it)"),
            ParameterSpec(
                "start", .number, default: 0, range: -1_000_000...1_000_000,
                doc: "layer time in seconds at which the animation's first frame shows (nothing before)"),
            ParameterSpec(
                "opacity", .number, default: 1, range: 0...1,
                doc: "opacity of the whole animation, multiplied with its own"),
            ParameterSpec(
                "overrides", .json, default: [],
                doc: "[{\"keypath\": \"layer.group.fill\", \"property\": P, \"value\": V}, …]; P is fillColor, "
                    + "strokeColor (\"#RRGGBB\"), fillOpacity, strokeOpacity, opacity (0…1), strokeWidth, "
                    + "position ([x, y] offset), scale (factor or [x, y]) or rotation (degrees)"),
        ]
    )

    /// The largest side of the buffer rlottie draws into, in pixels (64 MiB at most). A larger box is drawn at
    /// this resolution and scaled up: it is larger than the canvas anyway.
    static let maxPixels = 4096.0

    let player: LottiePlayer
    /// The Lottie file (``Effect/inputFiles``).
    let inputFiles: [String]
    let clock: LottieClock
    /// Where the composition is drawn, in points: its aspect ratio, fitted into the layer's box.
    let frame: Rect
    let pixelWidth: Int
    let pixelHeight: Int
    let opacity: Double

    init(parameters: EffectParameters, context: EffectContext) throws(EffectError) {
        guard parameters.contains("file") else {
            throw EffectError(parameter: "file", "missing: name the .json Lottie file to play")
        }
        let path = try parameters.string("file")
        let (bytes, file) = try LottieSource.read(path, jobDirectory: context.jobDirectory)
        inputFiles = [file]
        let document: JSONValue
        do {
            document = try JSONParser.parse(bytes, limits: Self.jsonLimits)
        } catch {
            throw EffectError(parameter: "file", "\(path) is not valid JSON: \(error)")
        }
        let facts: LottieFacts
        switch LottieCheck.check(document) {
        case .success(let checked): facts = checked
        case .failure(let refusal):
            let list = refusal.problems.map(\.description).joined(separator: "; ")
            throw EffectError(parameter: "file", "\(path) is refused: \(list)")
        }
        // rlottie's resource folder only serves image assets, which the check refuses.
        let folder = context.jobDirectory
        player = try LottiePlayer(
            json: document.serialized(), folder: folder + "/",
            overrides: try LottieOverride.list(parameters["overrides"]))
        // rlottie keeps the frame rate as a float.
        guard let timing = player.timing(), timing.frames == facts.frameCount,
            Float(timing.rate) == Float(facts.frameRate)
        else {
            throw EffectError(
                parameter: "file", "\(path): rlottie reads a different frame count or rate than the file states")
        }
        clock = try LottieClock(
            jobFPS: context.fps, layerStart: context.layerStart, start: try parameters.number("start"),
            speed: try parameters.number("speed"), lottieFPS: facts.frameRate, frameCount: facts.frameCount,
            loops: try Self.loops(parameters["loop"]), hold: try parameters.bool("hold"))
        opacity = try parameters.number("opacity")

        let box = try Self.box(parameters, context: context)
        frame = Self.fit(width: Double(facts.width), height: Double(facts.height), into: box)
        let resolution = min(context.scale, Self.maxPixels / max(frame.width, frame.height))
        pixelWidth = max(1, Int((frame.width * resolution).rounded(.up)))
        pixelHeight = max(1, Int((frame.height * resolution).rounded(.up)))
    }

    func render(in context: DrawingContext, at time: FrameTime) throws(EffectError) {
        guard case .frame(let index, _) = clock.sample(at: time.index), opacity > 0 else { return }
        try player.draw(
            frame: index, in: frame, pixelWidth: pixelWidth, pixelHeight: pixelHeight, opacity: opacity, on: context)
    }

    /// Where the animation draws at `time`: one item at the drawn point nearest the centre of what is drawn,
    /// with the Lottie frame and play number, and the bounds of the drawn pixels in the plan.
    func trace(at time: FrameTime) -> [TraceItem]? {
        var fields = JSONObject()
        var plan = JSONObject()
        plan["frames"] = .number(Double(clock.frameCount))
        plan["box"] = .array([.number(frame.x), .number(frame.y), .number(frame.width), .number(frame.height)])
        guard case .frame(let index, let loop) = clock.sample(at: time.index), opacity > 0,
            let drawn = try? player.coverage(frame: index, pixelWidth: pixelWidth, pixelHeight: pixelHeight)
        else { return [TraceItem(id: 0, position: frame.center, alpha: 0, visible: false, plan: plan)] }
        fields["frame"] = .number(Double(index))
        fields["loop"] = .number(Double(loop))
        let (sx, sy) = (frame.width / Double(pixelWidth), frame.height / Double(pixelHeight))
        plan["drawn"] = .array([
            .number(frame.x + drawn.bounds.x * sx), .number(frame.y + drawn.bounds.y * sy),
            .number(drawn.bounds.width * sx), .number(drawn.bounds.height * sy),
        ])
        let position = Point(frame.x + drawn.point.x * sx, frame.y + drawn.point.y * sy)
        return [TraceItem(id: 0, position: position, alpha: opacity, visible: true, plan: plan, fields: fields)]
    }

    /// Lottie files nest deeper and hold longer strings (names, keypaths) than job files.
    private static let jsonLimits = JSONParser.Limits(
        maxBytes: LottieSource.maxBytes, maxDepth: 64, maxStringBytes: 65_536, maxContainerCount: 100_000)

    /// `loop`: a count of plays, or true for ever (false is once).
    private static func loops(_ value: JSONValue?) throws(EffectError) -> Int? {
        if let forever = value?.boolValue { return forever ? nil : 1 }
        guard let count = value?.doubleValue, count.rounded() == count, count >= 1, count <= 1_000_000_000 else {
            throw EffectError(parameter: "loop", "expected a count of plays (1…1000000000) or true to repeat")
        }
        return Int(count)
    }

    /// The layer's box in points: `size` (default: the canvas) with its `anchor` point at `at` (default: the
    /// canvas centre).
    private static func box(_ parameters: EffectParameters, context: EffectContext) throws(EffectError) -> Rect {
        let size =
            parameters.contains("size")
            ? try parameters.size("size") : Size(width: context.width, height: context.height)
        let at = parameters.contains("at") ? try parameters.point("at") : Point(context.width / 2, context.height / 2)
        let anchor = try parameters.point("anchor")
        return Rect(
            x: at.x - anchor.x * size.width, y: at.y - anchor.y * size.height, width: size.width, height: size.height)
    }

    /// The largest rect of the composition's aspect ratio inside `box`, centred (as rlottie fits it).
    static func fit(width: Double, height: Double, into box: Rect) -> Rect {
        let scale = min(box.width / width, box.height / height)
        let fitted = Size(width: width * scale, height: height * scale)
        return Rect(center: box.center, size: fitted)
    }
}
