import CPNGWriter
import CairoKit
import Foundation
import Synchronization

/// How `render --video` runs.
public struct VideoOptions: Sendable {
    public var preset: EncodePreset
    public var crf: Int?
    /// The video file to write.
    public var output: String
    /// Frames rendered at once (`-j`); the reorder buffer holds at most twice as many.
    public var concurrency: Int
    public var stop: StopSignal

    public init(
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
public struct VideoResult: Sendable {
    /// Absolute path of the video; nil when interrupted (nothing is left behind).
    public var file: String?
    public var sha256: String
    public var bytes: Int
    public var frames: Int
    /// The ffmpeg command, with the final file name.
    public var command: String
    public var elapsed: Double
    /// The most frames held in memory at once, rendered but not yet written.
    public var peakBufferedFrames: Int
    /// alpha-packed: where colour and alpha sit in each frame, and the VAP config written beside the video.
    public var layout: AlphaPackedLayout? = nil
    public var configFile: String? = nil
}

/// Renders one job straight into a video: frames are drawn concurrently on `FrameScheduler`,
/// converted to straight RGBA exactly as the PNG writer does, and written in frame order to one
/// ffmpeg reading raw video on a pipe. No PNG, journal or manifest is written.
public enum VideoSession {
    public static func render(
        _ job: PreparedJob, options: VideoOptions, ffmpeg: FFmpeg,
        observer: some ProgressObserver = NoProgress()
    ) throws(EncodeError) -> VideoResult {
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
        try ffmpeg.checkEncoder(for: options.preset)
        let target = URL(fileURLWithPath: options.output).standardizedFileURL.path
        let folder = (target as NSString).deletingLastPathComponent
        guard FileManager.default.isWritableFile(atPath: folder) else {
            throw .output(.cannotCreate(path: target, reason: "folder \(folder) is missing or not writable"))
        }
        let staged = StagedFile(target)
        let temporary = staged.temporaryPath
        let commands = plan.commands(input: .rawRGBA, output: temporary, palette: "")
        // A dead ffmpeg must surface as a write error (EPIPE), not kill the renderer.
        signal(SIGPIPE, SIG_IGN)
        let process = try ffmpeg.start(commands[0], in: folder, feedsInput: true)
        let buffer = FrameReorderBuffer<[UInt8]>(capacity: 2 * max(1, options.concurrency))
        let writer = OrderedWriter(buffer: buffer, descriptor: process.inputDescriptor ?? -1)
        let failure = Mutex<String?>(nil)
        let finished = Atomic<Int>(0)
        observer.renderWillStart(totalFrames: frames.count, skippedFrames: 0, jobs: [job])

        let clock = ContinuousClock()
        let start = clock.now
        FrameScheduler(concurrency: options.concurrency).run(
            count: frames.count,
            shouldStop: { options.stop.isStopped || buffer.isCancelled },
            makeWorker: { FrameWorker() },
            perform: { worker, position in
                guard buffer.waitForRoom(position) else { return }
                let index = frames[position]
                var lastError = ""
                for _ in 0...spec.retries {
                    let surface: ImageSurface
                    do throws(FrameFailure) {
                        surface = try worker.draw(index, of: job)
                    } catch {
                        lastError = error.message
                        continue
                    }
                    let pixels = [UInt8](unsafeUninitializedCapacity: plan.width * plan.height * 4) { bytes, count in
                        rf_argb32_to_rgba(
                            surface.bytes, UInt32(plan.width), UInt32(plan.height), surface.stride,
                            bytes.baseAddress)
                        count = plan.width * plan.height * 4
                    }
                    buffer.put(position, pixels)
                    let done = finished.wrappingAdd(1, ordering: .relaxed).newValue
                    observer.frameDidFinish(
                        FrameEvent(
                            job: spec.name, index: index, status: .ok, attempts: 1, error: nil,
                            timings: FrameTimings(), finished: done, total: frames.count))
                    return
                }
                failure.withLock { $0 = $0 ?? "frame \(index) failed after \(spec.retries + 1) attempts: \(lastError)" }
                buffer.cancel()
            })
        buffer.close()
        let writeError = writer.wait()
        let elapsed = clock.now - start
        var ffmpegError: EncodeError?
        do {
            try process.finish()
        } catch {
            ffmpegError = error
        }
        if let message = failure.withLock({ $0 }) {
            throw .failed(
                command: commands[0].shellLine, status: 1, message: "\(spec.name): \(message); no video written")
        }
        let seconds = elapsed.seconds
        let shown = FFmpegCommand(arguments: commands[0].arguments.map { $0 == temporary ? target : $0 }).shellLine
        // Interrupted (Ctrl-C reaches ffmpeg too, which may then fail): nothing is kept unless complete.
        let complete = buffer.written == frames.count && ffmpegError == nil && writeError == nil
        guard !options.stop.isStopped || complete else {
            return VideoResult(
                file: nil, sha256: "", bytes: 0, frames: buffer.written, command: shown,
                elapsed: seconds, peakBufferedFrames: buffer.peakHeld)
        }
        if let ffmpegError { throw ffmpegError }
        if let writeError { throw .failed(command: shown, status: 1, message: writeError) }
        let config = try EncodedVideo.publish(staged, plan: plan)
        let bytes = (try? FileManager.default.attributesOfItem(atPath: target)[.size] as? Int) ?? 0
        return VideoResult(
            file: target, sha256: SHA256.hex(ofFile: target) ?? "", bytes: bytes,
            frames: frames.count, command: shown, elapsed: seconds,
            peakBufferedFrames: buffer.peakHeld, layout: config == nil ? nil : plan.alphaPackedLayout,
            configFile: config)
    }
}

/// The writer thread: takes frames from the buffer in order and writes them to ffmpeg's input.
private final class OrderedWriter: Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let error = Mutex<String?>(nil)

    init(buffer: FrameReorderBuffer<[UInt8]>, descriptor: Int32) {
        Thread.detachNewThread { [self] in
            while let frame = buffer.take() {
                if let message = Self.write(frame, to: descriptor) {
                    error.withLock { $0 = message }
                    buffer.cancel()
                    break
                }
            }
            done.signal()
        }
    }

    /// Waits for the writer to finish; the write error, if any.
    func wait() -> String? {
        done.wait()
        return error.withLock { $0 }
    }

    private static func write(_ frame: [UInt8], to descriptor: Int32) -> String? {
        frame.withUnsafeBytes { bytes -> String? in
            var offset = 0
            while offset < bytes.count {
                let written = Foundation.write(
                    descriptor, bytes.baseAddress?.advanced(by: offset), bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return "writing frames to ffmpeg: \(String(cString: strerror(errno)))"
                }
                offset += written
            }
            return nil
        }
    }
}
