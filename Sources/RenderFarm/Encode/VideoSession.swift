import CairoKit
import Foundation
import Locking
import RenderFarmMedia
import RenderFarmSound

/// How `render --video` runs.
package struct VideoOptions: Sendable {
    package var preset: EncodePreset
    package var crf: Int?
    /// The video file to write.
    package var output: String
    /// Frames rendered at once (`-j`); the reorder buffer holds at most twice as many.
    package var concurrency: Int
    package var stop: StopSignal
    /// Whether the job's `audio` is mixed into the video (`--no-audio` clears it).
    package var withSound = true

    package init(
        preset: EncodePreset, crf: Int? = nil, output: String, concurrency: Int, stop: StopSignal = StopSignal()
    ) {
        self.preset = preset
        self.crf = crf
        self.output = output
        self.concurrency = concurrency
        self.stop = stop
    }
}

/// What `render --video` produced.
package struct VideoResult: Sendable {
    /// Absolute path of the video; nil when interrupted (nothing is left behind).
    package var file: String?
    package var sha256: String
    package var bytes: Int
    package var frames: Int
    /// The ffmpeg command, with the final file name.
    package var command: String
    package var elapsed: Double
    /// The most frames held in memory at once, rendered but not yet written.
    package var peakBufferedFrames: Int
    /// alpha-packed: where colour and alpha sit in each frame, and the VAP config written beside the video.
    package var layout: AlphaPackedLayout? = nil
    package var configFile: String? = nil
    /// The files the sound track was mixed from; empty without one.
    package var soundInputs: [SoundInput] = []
}

/// Renders one job straight into a video: frames are drawn concurrently (`FrameWorker`, over the
/// matte for presets without alpha), converted by the worker that drew them to the preset's
/// `PipeFormat`, and sent in frame order to one ffmpeg (`VideoFeed`, `PipedEncode`). No PNG,
/// journal or manifest is written.
package enum VideoSession {
    package static func render(
        _ job: PlannedJob, options: VideoOptions, ffmpeg: FFmpeg,
        observer: some ProgressObserver = NoProgress()
    ) throws(EncodeError) -> VideoResult {
        var plan = try plan(for: job, options: options)
        let spec = job.spec
        let frames = job.frames.frames
        let target = URL(fileURLWithPath: options.output).standardizedFileURL.path
        let sounds = options.withSound && plan.preset.carriesSound
        let track = sounds ? try SoundTrack.mix(of: job, frames: frames, ffmpeg: ffmpeg) : nil
        let mix = try track?.stage(beside: target)
        plan.sound = mix?.temporaryPath
        defer { withExtendedLifetime(mix) {} }
        let format = plan.pipeFormat
        let matte = format.isComposited ? spec.canvas.background.matte : nil
        let retries = RetryPolicy(retries: spec.retries)
        let encode = PipedEncode(
            name: spec.name, plan: plan, target: target,
            ffmpeg: ffmpeg,
            feed: VideoFeed(format: format, concurrency: options.concurrency, stop: options.stop))
        observer.renderWillStart(totalFrames: frames.count, skippedFrames: 0, jobs: [job])
        let clock = ContinuousClock()
        let start = clock.now
        let produced = try encode.run(
            makeSource: { FrameWorker(matte: matte) },
            frame: { worker, position in draw(frames[position], of: job, on: worker, retries: retries) },
            finished: { position, attempts, done in
                observer.frameDidFinish(
                    FrameEvent(
                        job: spec.name, index: frames[position], status: .ok, attempts: attempts, error: nil,
                        timings: FrameTimings(), finished: done, total: frames.count))
            })
        let elapsed = (clock.now - start).seconds
        guard let file = produced.file else {
            return VideoResult(
                file: nil, sha256: "", bytes: 0, frames: produced.frames, command: produced.command,
                elapsed: elapsed, peakBufferedFrames: produced.peakHeld)
        }
        let (sha256, bytes) = EncodedVideo.checksum(of: file)
        return VideoResult(
            file: file, sha256: sha256, bytes: bytes, frames: produced.frames,
            command: produced.command, elapsed: elapsed, peakBufferedFrames: produced.peakHeld,
            layout: produced.configFile == nil ? nil : plan.alphaPackedLayout, configFile: produced.configFile,
            soundInputs: track?.inputs ?? [])
    }

    /// The encode plan of `job`, or why it cannot be streamed.
    static func plan(for job: PlannedJob, options: VideoOptions) throws(EncodeError) -> EncodePlan {
        guard options.preset.streams else {
            throw .unsupported(
                "--preset \(options.preset.rawValue) needs every frame before the first can be written "
                    + "(palette pass); render PNGs and run `renderfarm encode OUTDIR --preset gif`")
        }
        let frames = job.frames.frames
        let steps = Set(zip(frames.dropFirst(), frames).map { $0 - $1 })
        guard !frames.isEmpty, steps.count <= 1 else {
            throw .unsupported("--video needs evenly spaced frames (e.g. 0-99 or 0-99:2), got \(job.frames)")
        }
        let spec = job.spec
        let plan = EncodePlan(
            preset: options.preset, crf: options.crf, width: spec.canvas.pixelWidth,
            height: spec.canvas.pixelHeight, rate: spec.fps / Double(steps.first ?? 1),
            background: spec.canvas.background.hex, frameCount: frames.count)
        try plan.checkSupported()
        return plan
    }

    /// Frame `index` drawn by `worker`, tried again after failures as `retries` says.
    private static func draw(_ index: Int, of job: PlannedJob, on worker: FrameWorker, retries: RetryPolicy)
        -> FedFrame
    {
        switch retries.run({ () throws(FrameFailure) in try worker.draw(index, of: job) }) {
        case .succeeded(let surface, let attempts):
            .made(surface, attempts: attempts)
        case .failed(let error, let attempts):
            .failed("frame \(index) failed after \(attempts) attempt\(attempts == 1 ? "" : "s"): \(error.message)")
        }
    }
}
