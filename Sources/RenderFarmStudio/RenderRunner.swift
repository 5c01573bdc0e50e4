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
    private let running = Locked<Process?>(nil)
    /// The least time between two progress events of one render.
    static let progressInterval = 0.1
    /// The last lines of standard error (and failed frames' errors) kept to say why a render failed.
    static let keptErrorLines = 5

    init(options: StudioOptions, events: EventHub) {
        self.options = options
        self.events = events
    }

    /// Starts rendering `frames` (a `--frames` set; nil for the job's own) into `folder`, the job's
    /// output folder; the `render` event tells when it starts and how it ends.
    func start(frames: String?, folder: String) throws(StudioFailure) {
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
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command.executable)
        process.arguments = command.words(options.jobFile, frames, options.pluginSearchPath.filter(Self.isFolder))
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        let (events, running) = (self.events, self.running)
        try running.withLock { current throws(StudioFailure) in
            guard current == nil else { throw StudioFailure(status: 409, "a render is running; stop it first") }
            do {
                try process.run()
            } catch {
                throw StudioFailure(status: 500, "cannot start \(command.executable): \(error)")
            }
            current = process
        }
        events.publish("render", Self.event(state: "running", frames: frames, folder: folder))
        // Standard error is read to its end, then the exit is awaited: `finished` follows every
        // progress event of the run.
        Thread.detachNewThread {
            let said = Self.relay(errors.fileHandleForReading) { done, total, failed in
                events.publish(
                    "render",
                    Self.event(state: "running", frames: frames, folder: folder, progress: (done, total, failed)))
            }
            process.waitUntilExit()
            running.withLock { $0 = nil }
            let status = process.terminationReason == .exit ? Int(process.terminationStatus) : 130
            events.publish(
                "render", Self.event(state: "finished", frames: frames, folder: folder, status: status, message: said))
        }
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
        running.withLock { process in
            guard let process, process.isRunning else { return false }
            process.interrupt()
            return true
        }
    }

    private static func event(
        state: String, frames: String?, folder: String, status: Int? = nil, message: String = "",
        progress: (done: Int, total: Int, failed: Int)? = nil
    ) -> String {
        var object: [String: Any] = ["state": state, "folder": folder, "frames": frames ?? ""]
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
