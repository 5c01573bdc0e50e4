import Foundation
import Locking
import RenderFarm
import RenderFarmJobs

/// The studio's render button: one `renderfarm render` of the job at a time, run by the same
/// executable as the studio in a child process, so a plugin that crashes or runs out of memory
/// over thousands of frames takes down that render, not the studio. Its `--progress json` lines
/// are relayed as `render` events (frames done of total, at most every `progressInterval`
/// seconds); it is stopped as Ctrl-C stops it.
final class RenderRunner: Sendable {
    private let options: StudioOptions
    private let events: EventHub
    private let running = Locked<Run?>(nil)
    /// The least time between two progress events of one render.
    static let progressInterval = 0.1
    /// The last lines of standard error (and failed frames' errors) kept to say why a render failed.
    static let keptErrorLines = 5

    init(options: StudioOptions, events: EventHub) {
        self.options = options
        self.events = events
    }

    /// Starts rendering `frames` (a `--frames` set; nil for the job's own) into `folder`, the job's
    /// output folder, or with `video` into that video; the `render` event tells when it starts and
    /// how it ends. A video of a studio whose renders are sandboxed is two steps (`RenderCommandLine`):
    /// the frames, drawn in sandboxed workers into a scratch folder removed afterwards, then encoded.
    func start(frames: String?, video: RenderCommandLine.Video? = nil, folder: String) throws(StudioFailure) {
        guard let command = options.render else {
            throw StudioFailure(status: 501, "this studio cannot render (it runs without the renderfarm executable)")
        }
        if let frames {
            do {
                _ = try FrameSet(parsing: frames)
            } catch {
                throw StudioFailure(status: 400, "frames=\(frames): \(error)")
            }
        }
        let scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("renderfarm-studio-\(getpid())-\(UUID().uuidString)").path
        let steps = command.steps(
            RenderCommandLine.Request(
                jobFile: options.jobFile, frames: frames, video: video, scratch: scratch,
                pluginFolders: options.pluginSearchPath.filter(Self.isFolder)))
        let (events, running) = (self.events, self.running)
        let first = try running.withLock { current throws(StudioFailure) -> Launched in
            guard current == nil else { throw StudioFailure(status: 409, "a render is running; stop it first") }
            let launched = try Self.launch(command.executable, steps[0])
            current = Run(process: launched.process)
            return launched
        }
        let event: @Sendable (String, Int?, String, (Int, Int, Int)?) -> String = { state, status, message, progress in
            Self.event(
                state: state, frames: frames, folder: folder, video: video, status: status, message: message,
                progress: progress)
        }
        events.publish("render", event("running", nil, "", nil))
        Thread.detachNewThread {
            var (step, rest) = (first, steps.dropFirst())
            var (status, said) = (0, "")
            while true {
                // Standard error is read to its end, then the exit is awaited: `finished` follows every
                // progress event of the run.
                said = Self.relay(step.errors) { done, total, failed in
                    events.publish("render", event("running", nil, "", (done, total, failed)))
                }
                step.process.waitUntilExit()
                status = step.process.terminationReason == .exit ? Int(step.process.terminationStatus) : 130
                guard status == 0, let arguments = rest.popFirst() else { break }
                // The next step, unless Stop came between the two.
                let launched = running.withLock { run -> Result<Launched, StudioFailure>? in
                    guard run?.stopped == false else { return nil }
                    let launched = Result { () throws(StudioFailure) in try Self.launch(command.executable, arguments) }
                    if case .success(let next) = launched { run?.process = next.process }
                    return launched
                }
                switch launched {
                case .success(let next)?: step = next
                case .failure(let failure)?: (status, said) = (1, failure.message)
                case nil: status = 130
                }
                if status != 0 { break }
            }
            try? FileManager.default.removeItem(atPath: scratch)
            running.withLock { $0 = nil }
            events.publish("render", event("finished", status, said, nil))
        }
    }

    /// One step's process and the standard error it writes its progress to.
    private struct Launched {
        var process: Process
        var errors: FileHandle
    }

    /// The running render: its current step's process, and whether Stop was asked for.
    private struct Run {
        var process: Process
        var stopped = false
    }

    private static func launch(_ executable: String, _ arguments: [String]) throws(StudioFailure) -> Launched {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        do {
            try process.run()
        } catch {
            throw StudioFailure(status: 500, "cannot start \(executable): \(error)")
        }
        return Launched(process: process, errors: errors.fileHandleForReading)
    }

    /// Reads `--progress json` lines from `pipe` until it closes, calling `progress` for frame
    /// events (never more often than `progressInterval`, but always for the last frame); returns
    /// the last lines that were not progress and the failed frames' errors (`frame N: …`), at most
    /// `keptErrorLines` in all.
    private static func relay(
        _ pipe: FileHandle, progress: (_ done: Int, _ total: Int, _ failed: Int) -> Void
    ) -> String {
        var pending = Data()
        var kept: [String] = []
        var failed = 0
        var most = 0
        var last = Date.distantPast
        var owed: (Int, Int)?
        while true {
            let chunk = pipe.availableData
            pending += chunk
            while let newline = pending.firstIndex(of: 10) {
                let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                pending = pending[pending.index(after: newline)...]
                let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
                guard let object, object["event"] as? String == "frame",
                    let done = object["done"] as? Int, let total = object["total"] as? Int
                else {
                    if !line.isEmpty, object?["event"] == nil { kept = Array((kept + [line]).suffix(keptErrorLines)) }
                    continue
                }
                if object["status"] as? String == "failed" {
                    failed += 1
                    // Why it failed (a sandbox's denial, a crash) is said only here: kept with the errors.
                    if let error = object["error"] as? String, let frame = object["frame"] as? Int {
                        kept = Array((kept + ["frame \(frame): \(error)"]).suffix(keptErrorLines))
                    }
                }
                // Workers write their lines in any order: the count shown only grows.
                most = max(most, done)
                owed = (most, total)
                if Date().timeIntervalSince(last) >= progressInterval || most == total {
                    progress(most, total, failed)
                    last = Date()
                    owed = nil
                }
            }
            if chunk.isEmpty { break }
        }
        if let (done, total) = owed { progress(done, total, failed) }
        return kept.joined(separator: "\n")
    }

    /// Whether `path` is a folder: the search path names default folders that may not exist, which
    /// `--plugin-path` refuses (they hold no plugin either way).
    private static func isFolder(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// Stops the running render as SIGINT does (finished frames stay); false when none runs.
    @discardableResult
    func stop() -> Bool {
        running.withLock { run in
            guard let process = run?.process else { return false }
            // Also between two steps: the next one is not started.
            run?.stopped = true
            if process.isRunning { process.interrupt() }
            return true
        }
    }

    private static func event(
        state: String, frames: String?, folder: String, video: RenderCommandLine.Video?, status: Int?, message: String,
        progress: (done: Int, total: Int, failed: Int)?
    ) -> String {
        var object: [String: Any] = ["state": state, "folder": folder, "frames": frames ?? ""]
        if let video {
            object["video"] = video.file
            object["preset"] = video.preset
        }
        if let status { object["status"] = status }
        if !message.isEmpty { object["message"] = message }
        if let progress {
            object["done"] = progress.done
            object["total"] = progress.total
            object["failed"] = progress.failed
        }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
