import CairoKit
import Motion
import StrictJSON

/// Turns a parsed job file into a `JobSpec`, reporting every problem at once (<doc:JobFileReference>).
package enum JobDecoder {
    /// Hard limits that keep a hostile job from exhausting the machine.
    package enum Limits {
        package static let maxSide = 16_384.0
        /// The largest scale `canvas.scale`, `--scale` and the studio's `?scale=` accept, in pixels
        /// per point (`PlanOptions.acceptsScale`).
        package static let maxScale = 8.0
        package static let maxPixels = 1 << 28
        package static let maxFrames = 1_000_000
        package static let maxLayers = 64
        package static let maxDuration = 86_400.0
        package static let maxRetries = 10
    }

    /// Every problem of one job file, and the job as far as it could be read (defaults in place of
    /// bad values), so the plugins can still check the layers in the same pass.
    package struct JobIssues: Error {
        package var issues: [JobIssue]
        package var partial: JobSpec?
        package init(_ issues: [JobIssue], partial: JobSpec? = nil) {
            self.issues = issues
            self.partial = partial
        }
    }

    /// Stands in for a missing or bad `duration` while the layers of an invalid job are checked.
    package static let checkingDuration = 1.0

    package static let topLevelKeys = [
        "version", "name", "seed", "canvas", "fps", "duration", "frames", "output", "retries", "layers", "variants",
        "audio", "parameters",
    ]

    /// `checksName`: whether `name` must be a folder name (`FolderName`); a variant's `<job>/<variant>`
    /// name was checked when the variants were expanded. `compositions`: where the files that layers place as
    /// compositions are read (nil: a job that is no file, which places none). `variant`: the variant the job is.
    package static func decode(
        _ document: JSONValue, defaultName: String, checksName: Bool = true, compositions: CompositionFiles? = nil,
        variant: JobVariant? = nil
    )
        -> Result<JobSpec, JobIssues>
    {
        let issues = IssueCollector()
        guard let root = document.objectValue else {
            return .failure(
                JobIssues([JobIssue(path: "", "a job file must be a JSON object, got \(document.typeName)")]))
        }
        let reader = ObjectReader(object: root, path: "", issues: issues)
        if let version = reader.integer("version", default: 1, in: 1...Int(Int32.max)),
            version > JobSpec.supportedVersion
        {
            issues.add(
                "version",
                "job version \(version) is newer than this renderer supports "
                    + "(highest: \(JobSpec.supportedVersion)); upgrade renderfarm")
            return .failure(JobIssues(issues.issues))
        }
        reader.rejectUnknownKeys(topLevelKeys)

        let name = reader.string("name", default: defaultName) ?? defaultName
        if checksName, let problem = FolderName.problem(name) {
            let source = root["name"] == nil ? " (the job file's name; set \"name\")" : ""
            issues.add(
                "name", "\(FolderName.shown(name))\(source) cannot name a folder: it \(problem); \(FolderName.advice)")
        }
        let seed = reader.integer("seed", default: 0, in: 0...(1 << 53)) ?? 0
        let canvas = decodeCanvas(reader)
        let fps = reader.number("fps", default: 60, in: 0...240, exclusiveLowerBound: true) ?? 60
        let duration = reader.number("duration", default: nil, in: 0...Limits.maxDuration, exclusiveLowerBound: true)
        let output = decodeOutput(reader, name: name)
        let retries = reader.integer("retries", default: 1, in: 0...Limits.maxRetries) ?? 1
        var decoder = LayerListDecoder(
            issues: issues, canvasCentre: Point((canvas?.width ?? 375) / 2, (canvas?.height ?? 667) / 2),
            compositionFiles: compositions, variant: variant)
        let (layers, composition, disabled) = decodeLayers(reader, with: &decoder)
        let audio = AudioSpec.decode(reader)
        if let audio, let duration {
            for issue in audio.check(duration: duration) { issues.add(issue.path, issue.message) }
        }

        var frames = FrameSet([])
        if let duration {
            let count = JobSpec.frameCount(duration: duration, fps: fps)
            if count < 1 {
                issues.add("duration", "\(duration) s at \(fps) fps is less than one frame")
            } else if count > Limits.maxFrames {
                issues.add(
                    "duration", "\(count) frames; at most \(Limits.maxFrames) per job (shorten duration or lower fps)")
            } else {
                frames = decodeFrames(reader, count: count)
            }
        }
        guard issues.issues.isEmpty, let canvas, let duration, let output else {
            // The layers are still worth checking, on a stand-in for what could not be read.
            let stand = duration ?? checkingDuration
            let count = JobSpec.frameCount(duration: stand, fps: fps)
            let partial = JobSpec(
                version: JobSpec.supportedVersion, name: name, seed: UInt64(seed),
                canvas: canvas ?? Canvas(width: 375, height: 667, scale: 2, background: .clear), fps: fps,
                duration: stand, frames: (1...Limits.maxFrames).contains(count) ? .all(count) : FrameSet([]),
                output: output
                    ?? OutputSettings(directory: "out/" + name, prefix: "frame_", padding: 5, compression: .fast),
                retries: retries, layers: layers, composition: composition)
            return .failure(JobIssues(issues.issues, partial: layers.isEmpty ? nil : partial))
        }
        var spec = JobSpec(
            version: JobSpec.supportedVersion, name: name, seed: UInt64(seed), canvas: canvas, fps: fps,
            duration: duration, frames: frames, output: output, retries: retries, layers: layers,
            composition: composition)
        spec.audio = audio
        spec.disabled = disabled
        return .success(spec)
    }

    static func decodeCanvas(_ parent: ObjectReader) -> Canvas? {
        guard let reader = parent.object("canvas") else { return nil }
        reader.rejectUnknownKeys(["width", "height", "scale", "background"])
        let side = 1...Limits.maxSide
        let width = reader.number("width", default: 375, in: side)
        let height = reader.number("height", default: 667, in: side)
        let scale = reader.number("scale", default: 2, in: 0...Limits.maxScale, exclusiveLowerBound: true)
        var background = Color.clear
        if let text = reader.string("background", default: "#00000000") {
            if let color = Color(hex: text) {
                background = color
            } else {
                reader.issues.add(
                    reader.childPath("background"), "\"\(text)\" is not a colour (use #RRGGBB or #RRGGBBAA)")
            }
        }
        guard let width, let height, let scale else { return nil }
        let canvas = Canvas(width: width, height: height, scale: scale, background: background)
        let pixels = (canvas.pixelWidth, canvas.pixelHeight)
        if pixels.0 < 1 || pixels.1 < 1 || Double(pixels.0) > Limits.maxSide || Double(pixels.1) > Limits.maxSide {
            reader.issues.add(reader.path, "\(pixels.0)×\(pixels.1) pixels; each side must be 1…\(Int(Limits.maxSide))")
            return nil
        }
        if pixels.0 * pixels.1 > Limits.maxPixels {
            reader.issues.add(reader.path, "\(pixels.0)×\(pixels.1) pixels is more than \(Limits.maxPixels) (2^28)")
            return nil
        }
        return canvas
    }

    private static func decodeOutput(_ parent: ObjectReader, name: String) -> OutputSettings? {
        guard let reader = parent.object("output") else { return nil }
        reader.rejectUnknownKeys(["dir", "prefix", "padding", "compression", "duplicates"])
        let directory = reader.string("dir", default: "out/" + name, maxLength: 1024) ?? ""
        if directory.isEmpty { reader.issues.add(reader.childPath("dir"), "must not be empty") }
        let prefix = reader.string("prefix", default: "frame_", maxLength: 64) ?? "frame_"
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
        if !prefix.allSatisfy(allowed.contains) || prefix.hasPrefix(".") {
            reader.issues.add(
                reader.childPath("prefix"),
                "\"\(prefix)\" may use only letters, digits, '.', '_' and '-' "
                    + "and must not start with '.'")
        }
        let padding = reader.integer("padding", default: 5, in: 1...9) ?? 5
        let compression = decodeCompression(reader)
        var output = OutputSettings(directory: directory, prefix: prefix, padding: padding, compression: compression)
        let duplicates = reader.string("duplicates", default: "copy", maxLength: 16) ?? "copy"
        if let mode = OutputSettings.Duplicates(rawValue: duplicates) {
            output.duplicates = mode
        } else {
            let choices = OutputSettings.Duplicates.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: " or ")
            reader.issues.add(reader.childPath("duplicates"), "expected \(choices), got \"\(duplicates)\"")
        }
        return output
    }

    private static func decodeCompression(_ reader: ObjectReader) -> Compression {
        switch reader.object["compression"] {
        case .string("fast"): return .fast
        case .string("small"): return .small
        case .some(.number):
            return Compression(level: reader.integer("compression", default: 1, in: 0...9) ?? 1)
        case nil: return .fast
        case .some(let other):
            reader.issues.add(
                reader.childPath("compression"),
                "expected 0…9, \"fast\" or \"small\", got \(ObjectReader.show(other))")
            return .fast
        }
    }

    private static func decodeFrames(_ reader: ObjectReader, count: Int) -> FrameSet {
        guard reader.object["frames"] != nil else { return .all(count) }
        guard let text = reader.string("frames", default: nil, maxLength: 4096) else { return FrameSet([]) }
        do {
            let frames = try FrameSet(parsing: text, limit: Limits.maxFrames)
            if let outside = frames.frames.first(where: { $0 < 0 || $0 >= count }) {
                reader.issues.add(
                    "frames", "frame \(outside) is outside the job (0-\(count - 1) at this duration and fps)")
            }
            return frames
        } catch {
            reader.issues.add("frames", "\(error.message) (grammar: 1-100, 1-100:2, 1,3,5-9)")
            return FrameSet([])
        }
    }

    /// The job's layers, read by `decoder`: with its `parameters` filled in, at their defaults (the job
    /// rendered alone; a job that places it as a composition gives their values).
    private static func decodeLayers(_ reader: ObjectReader, with decoder: inout LayerListDecoder) -> (
        [LayerSpec], [LayerNode], [DisabledLayer]
    ) {
        guard var list = layerList(reader) else { return ([], [], []) }
        if reader.object["parameters"] != nil {
            let values = CompositionParameters.values(
                [:], declared: CompositionParameters.declarations(reader), path: "parameters", issues: reader.issues)
            list = CompositionParameters.fill(list, path: "layers", values: values, issues: reader.issues)
        }
        let composition = decoder.decodeList(list, path: "layers", depth: 0)
        let count = decoder.layers.count + decoder.layersOverLimit
        if count > Limits.maxLayers {
            reader.issues.add(
                "layers", "\(count) effect layers, compositions' included; at most \(Limits.maxLayers)")
        }
        if !list.isEmpty, composition.isEmpty, !decoder.disabled.isEmpty {
            reader.issues.add("layers", "every layer is turned off (\"enabled\": false); a job needs one that draws")
        }
        return (decoder.layers, composition, decoder.disabled)
    }

    /// The list `layers` of the job `reader` reads, or nil when there is none (the problem told).
    static func layerList(_ reader: ObjectReader) -> [JSONValue]? {
        guard let value = reader.object["layers"] else {
            reader.issues.add(reader.childPath("layers"), "missing (a list of {\"effect\", \"start\", \"params\"})")
            return nil
        }
        guard let list = value.arrayValue else {
            reader.issues.add(reader.childPath("layers"), "expected a list, got \(value.typeName)")
            return nil
        }
        if list.isEmpty { reader.issues.add(reader.childPath("layers"), "empty: a job needs at least one layer") }
        return list
    }
}
