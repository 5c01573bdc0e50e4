import CLibAV
import Dispatch
import EffectKit
import FootageTiming
import Locking

/// Footage: a video clip (MP4, MOV, WebM, MKV) decoded by FFmpeg's libraries and drawn into the layer's
/// rect, frame-accurately by the rule of the `FootageEffect` article.
struct VideoEffect: Effect {
    static let descriptor = EffectDescriptor(
        id: "video",
        identifier: "org.renderfarm.video",
        version: "1.1.0+" + libraryVersions,
        summary:
            "Footage from an MP4, MOV, WebM or MKV file (or an animated GIF, APNG or WebP, or a PNG sequence), frame-accurate, with trim, speed, loop and its sound",
        threadSafety: .full,
        keysCoverParameters: true,
        parameters: [
            ParameterSpec(
                "file", .string, default: nil,
                doc:
                    "the .mp4, .mov, .m4v, .webm or .mkv file, an animated .gif, .apng/.png or .webp, or a numbered PNG "
                    + "sequence (frames/glow_%04d.png), relative to the job file's folder (must stay inside it); required"
            ),
            ParameterSpec(
                "rect", .rect, default: nil, range: -100_000...100_000,
                doc: "where the picture goes, in points (default: the whole canvas)"),
            ParameterSpec(
                "fit", .choice(Fit.allCases.map(\.rawValue)), default: "contain",
                doc:
                    "contain: all of the picture, letterboxed; cover: the rect filled, the picture cropped; fill: stretched"
            ),
            ParameterSpec(
                "trim", .json, default: nil,
                doc:
                    "{\"in\": s, \"out\": s}: the part of the clip played, in seconds from its first frame (default: all)"
            ),
            ParameterSpec(
                "speed", .number, default: 1, range: FootageClock.speeds,
                doc:
                    "playback rate: 2 plays twice as fast, 0.5 half as fast (each source frame held twice at equal rates)"
            ),
            ParameterSpec(
                "loop", .bool, default: false,
                doc: "play the trimmed part again and again until the layer ends (default: nothing drawn after it)"),
            ParameterSpec(
                "rate", .number, default: nil, range: 0.01...1000,
                doc: "frames per second of an image sequence (a file such as frames/glow_%04d.png; default: the job's)"),
        ]
    )

    /// The FFmpeg libraries that decode and convert, and the libvpx that decodes VP9 with alpha, as loaded:
    /// part of the plugin's version, so a new FFmpeg or libvpx draws the layer's frames again.
    static var libraryVersions: String {
        func text(_ version: UInt32) -> String { "\(version >> 16).\((version >> 8) & 0xFF).\(version & 0xFF)" }
        let ffmpeg =
            "libavformat.\(text(avformat_version())).libavcodec.\(text(avcodec_version()))"
            + ".libswscale.\(text(swscale_version())).libavutil.\(text(avutil_version()))"
        guard let vpx = rf_av_libvpx_version().map({ String(cString: $0) }) else { return ffmpeg }
        // "v1.12.0" → "1.12.0"; a semantic version's build metadata allows only [0-9A-Za-z-.].
        let version = String(
            vpx.drop { $0 == "v" }.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == ".") ? $0 : "-" })
        return ffmpeg + ".libvpx." + version
    }

    enum Fit: String, CaseIterable, Sendable {
        case contain, cover, fill
    }

    let player: FootagePlayer
    let clock: FootageClock
    let input: FootageInput
    let inputFiles: [String]
    let warnings: [EffectError]
    /// The clip's first audio stream, played by the rule the frames are (ABI `sounds`); the layer's own `gain` and
    /// `muted` set its level in the mix.
    let sounds: [EffectSound]
    /// Where the picture's pixels go and what is kept of it, in points.
    let box: Rect
    let clip: Rect
    /// Everything but the source frame that decides the drawing, for the frame keys.
    let placement: FrameKey
    /// The job's frame rate: the next output frames' times, for decoding ahead.
    let fps: Double

    init(parameters: EffectParameters, context: EffectContext) throws(EffectError) {
        guard parameters.contains("file") else {
            throw EffectError(parameter: "file", "missing: name the video file to play")
        }
        let name = try parameters.string("file")
        if ImageSequence.isPattern(name) {
            let rate = parameters.contains("rate") ? try parameters.number("rate") : context.fps
            input = .sequence(try ImageSequence(name, jobDirectory: context.jobDirectory, rate: rate))
        } else {
            input = .file(try FootageFile(name, jobDirectory: context.jobDirectory))
        }
        // A file's frames have their own times: a rate given for it is said to be unused (as floating-heart's
        // `rate` beside `times`), not refused.
        if case .file = input, parameters.contains("rate") {
            warnings = [
                EffectError(parameter: "rate", "only an image sequence has a rate; \(name) plays at its own times")
            ]
        } else {
            warnings = []
        }
        inputFiles = input.files
        player = try FootagePlayer(input)
        let timeline = player.timeline
        clock = try FootageClock(
            trim: parameters["trim"], duration: timeline.duration, speed: try parameters.number("speed"),
            loop: try parameters.bool("loop"))
        try player.open(at: clock.frame(at: 0, in: timeline) ?? 0)
        if let stream = player.audioStream, case .file(let file) = input {
            sounds = [
                EffectSound(
                    file: file.path, stream: stream, sourceStart: timeline.origin + clock.start,
                    sourceLength: clock.end - clock.start, speed: clock.speed, loops: clock.loop)
            ]
        } else {
            sounds = []
        }
        let rect =
            parameters.contains("rect")
            ? try parameters.rect("rect") : Rect(x: 0, y: 0, width: context.width, height: context.height)
        guard rect.width > 0, rect.height > 0 else {
            throw EffectError(parameter: "rect", "width and height must be positive")
        }
        let fit = try parameters.choice("fit", as: Fit.self)
        // The picture as players show it: stored pixels at their aspect ratio, then turned.
        let stored = Size(width: Double(player.pictureWidth) * player.pixelAspect, height: Double(player.pictureHeight))
        box = Self.place(player.orientation.displayed(stored), in: rect, fit: fit)
        clip = rect
        var hasher = FrameKey.Hasher()
        for value in [box.x, box.y, box.width, box.height, clip.x, clip.y, clip.width, clip.height] {
            hasher.combine(value)
        }
        let turn = player.orientation
        for value in [turn.a, turn.b, turn.c, turn.d] { hasher.combine(value) }
        placement = hasher.finalize()
        fps = context.fps
    }

    func render(in context: DrawingContext, at time: FrameTime) throws(EffectError) {
        guard let index = clock.frame(at: time.local, in: player.timeline) else { return }
        let picture = try player.picture(index, output: time.index, next: next(after: index, at: time.local))
        try picture.draw(into: box, clip: clip, turned: player.orientation, on: context)
    }

    /// Decodes the part of the clip the layer plays to refuse damage inside the stream (`check`): once per run,
    /// in the process that checks the job, not in the workers that draw its frames.
    func verify() throws(EffectError) {
        let size = player.pictureWidth * player.pictureHeight
        try Self.check(input, played: clock.start...clock.end, of: player.timeline, size: size)
    }

    /// The source frames the next `FootagePlayer.lookahead` output frames show, in order, without `index`
    /// and repeats: what the player decodes ahead. Only a guess of what comes next (another worker may draw
    /// those frames); no pixel depends on it.
    func next(after index: Int, at local: Double) -> [Int] {
        var next: [Int] = []
        for step in 1...FootagePlayer.lookahead {
            guard let frame = clock.frame(at: local + Double(step) / fps, in: player.timeline) else { continue }
            if frame != index, !next.contains(frame) { next.append(frame) }
        }
        return next
    }

    /// The source frame shown, with the placement: a held frame keys alike, so the host draws it once.
    func frameKey(at time: FrameTime) -> FrameKey? {
        guard let index = clock.frame(at: time.local, in: player.timeline) else { return .nothingDrawn }
        var hasher = FrameKey.Hasher()
        hasher.combine(placement)
        hasher.combine(index)
        return hasher.finalize()
    }

    /// Pixels decoded in full to check a clip (`check`): 2^28, about 130 frames of 1080p (4.3 s at 30 fps),
    /// 0.75 s of CPU, 0.4 s in two halves, here. Every run pays it once (`verify`): `validate`, `render`, each
    /// shard, each edit in the studio; the workers of `--isolate` and of the studio do not.
    static let checkedPixels = 1 << 28

    /// Refuses a clip damaged inside its stream, in the part the layer plays (`played`, seconds): its frames
    /// from the keyframe before the first played are decoded in full up to `checkedPixels`, the keyframes of
    /// the rest only (damage between those fails the frames that show it, at render). The full part is
    /// decoded in two halves at once, split at a keyframe, each by a decoder of its own; the earlier half's
    /// damage is told first, so the message does not depend on which half finishes first.
    static func check(
        _ input: FootageInput, played: ClosedRange<Double>, of timeline: FootageTimeline, size: Int
    ) throws(EffectError) {
        let first = timeline.keyframe(before: timeline.frame(at: played.lowerBound) ?? 0)
        let last = max(first, timeline.frame(at: played.upperBound - 2 * FootageTimeline.tolerance) ?? first)
        let full = first + max(1, checkedPixels / max(1, size))
        let parts = halves(first...min(last, full - 1), of: timeline)
        let damage = Locked([EffectError?](repeating: nil, count: parts.count))
        DispatchQueue.concurrentPerform(iterations: parts.count) { part in
            do throws(EffectError) {
                try input.source().check(parts[part], of: timeline, keyframesOnly: false)
            } catch {
                damage.withLock { $0[part] = error }
            }
        }
        if let error = damage.withLock({ $0.compactMap { $0 }.first }) { throw error }
        if last >= full {
            try input.source().check(full...last, of: timeline, keyframesOnly: true)
        }
    }

    /// `frames` (starting at a keyframe) cut at the keyframe nearest its middle; whole when it holds no other.
    static func halves(_ frames: ClosedRange<Int>, of timeline: FootageTimeline) -> [ClosedRange<Int>] {
        let middle = (frames.lowerBound + frames.upperBound + 1) / 2
        let inside = timeline.keyframes.filter { $0 > frames.lowerBound && $0 <= frames.upperBound }
        guard let cut = inside.min(by: { abs($0 - middle) < abs($1 - middle) }) else { return [frames] }
        return [frames.lowerBound...(cut - 1), cut...frames.upperBound]
    }

    /// The picture's box in points: `contain` fits it inside `rect` (bars left transparent), `cover` makes
    /// it cover `rect` (the overflow clipped), `fill` stretches it to `rect`; centred.
    static func place(_ picture: Size, in rect: Rect, fit: Fit) -> Rect {
        let (sx, sy) = (rect.width / picture.width, rect.height / picture.height)
        let scale: Double
        switch fit {
        case .fill: return rect
        case .contain: scale = min(sx, sy)
        case .cover: scale = max(sx, sy)
        }
        let size = Size(width: picture.width * scale, height: picture.height * scale)
        return Rect(
            x: rect.x + (rect.width - size.width) / 2, y: rect.y + (rect.height - size.height) / 2,
            width: size.width, height: size.height)
    }
}
