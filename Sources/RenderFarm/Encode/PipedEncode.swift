import FileOutput
import Foundation
import RenderFarmMedia
import RenderFarmOutput

/// One encode whose frames RenderFarm sends to ffmpeg (`render --video`, and `encode` for presets
/// in an encoder format): ffmpeg writes a temporary file beside the target while `VideoFeed`
/// sends it the frames, and the video is published under its final name only when every frame
/// went in and ffmpeg succeeded.
struct PipedEncode {
    /// The job's name, for messages.
    let name: String
    let plan: EncodePlan
    /// Absolute path of the video.
    let target: String
    let ffmpeg: FFmpeg
    let feed: VideoFeed
    /// Told the ffmpeg command line (as `Produced.command`) and its folder just before it runs.
    var announce: (@Sendable (_ commandLine: String, _ folder: String) -> Void)? = nil

    /// What the encode produced.
    struct Produced {
        /// The published video; nil when stopped before the last frame (nothing is left behind).
        var file: String?
        var frames: Int
        /// The ffmpeg command, naming the final file.
        var command: String
        var peakHeld: Int
        /// alpha-packed: VAP's config beside the video.
        var configFile: String?
    }

    /// Runs the encode with frames `0..<plan.frameCount` made by `frame` (see `VideoFeed.run`).
    func run<Source>(
        makeSource: @escaping @Sendable () -> Source, frame: @escaping @Sendable (inout Source, Int) -> FedFrame,
        finished: @escaping @Sendable (_ position: Int, _ attempts: Int, _ done: Int) -> Void
    ) throws(EncodeError) -> Produced {
        let folder = (target as NSString).deletingLastPathComponent
        guard FileManager.default.isWritableFile(atPath: folder) else {
            throw .output(.cannotCreate(path: target, reason: "folder \(folder) is missing or not writable"))
        }
        try ffmpeg.checkEncoder(for: plan.preset)
        let staged = StagedFile(target)
        let temporary = staged.temporaryPath
        let commands = plan.commands(input: .pipe(feed.format), output: temporary, palette: "")
        let shown = plan.shownLine(commands[0], temporary: temporary, target: target)
        announce?(shown, folder)
        let process = try ffmpeg.start(commands[0], in: folder, feedsInput: true, output: target, stop: feed.stop)
        let outcome =
            process.input.map {
                feed.run(count: plan.frameCount, into: $0, makeSource: makeSource, frame: frame, finished: finished)
            } ?? VideoFeed.Outcome(written: 0, failure: "ffmpeg has no input", peakHeld: 0)
        var ffmpegError: EncodeError?
        do {
            try process.finish()
        } catch {
            ffmpegError = error
        }
        // Interrupted (ffmpeg is killed, and Ctrl-C reaches it too): nothing is kept unless complete.
        let complete = outcome.written == plan.frameCount && outcome.failure == nil && ffmpegError == nil
        if feed.stop.isStopped && !complete {
            return Produced(file: nil, frames: outcome.written, command: shown, peakHeld: outcome.peakHeld)
        }
        // A dead ffmpeg also ends the feed ("stopped reading frames"): its own error output says why.
        if let ffmpegError { throw ffmpegError }
        if let failure = outcome.failure {
            throw .failed(command: shown, status: 1, message: "\(name): \(failure); no video written")
        }
        let config = try EncodedVideo.publish(staged, plan: plan, ffmpeg: ffmpeg)
        return Produced(
            file: target, frames: outcome.written, command: shown, peakHeld: outcome.peakHeld, configFile: config)
    }
}
