import Foundation
import Locking
import RenderFarm
import RenderFarmJobs

/// The studio's render button: one `renderfarm render` of the job at a time, run by the same
/// executable as the studio in a child process (its progress is the farm view's, read from the
/// output folder as `status` reads it), and stopped as Ctrl-C stops it.
final class RenderRunner: Sendable {
    private let options: StudioOptions
    private let events: EventHub
    private let running = Locked<Process?>(nil)

    init(options: StudioOptions, events: EventHub) {
        self.options = options
        self.events = events
    }

    /// Starts rendering `frames` (a `--frames` set; nil for the job's own) into `folder`, the job's
    /// output folder; the `render` event tells when it starts and how it ends.
    func start(frames: String?, folder: String) throws(StudioFailure) {
        guard let executable = options.renderExecutable else {
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
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments =
            ["render", options.jobFile, "--progress", "none"] + options.renderArguments
            + (frames.map { ["--frames", $0] } ?? [])
            + options.pluginSearchPath.filter(Self.isFolder).flatMap { ["--plugin-path", $0] }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let (events, running) = (self.events, self.running)
        let said = Self.event(state: "running", frames: frames, folder: folder)
        try running.withLock { current throws(StudioFailure) in
            guard current == nil else { throw StudioFailure(status: 409, "a render is running; stop it first") }
            process.terminationHandler = { ended in
                running.withLock { $0 = nil }
                let status = ended.terminationReason == .exit ? Int(ended.terminationStatus) : 130
                events.publish("render", Self.event(state: "finished", frames: frames, folder: folder, status: status))
            }
            do {
                try process.run()
            } catch {
                throw StudioFailure(status: 500, "cannot start \(executable): \(error)")
            }
            current = process
        }
        events.publish("render", said)
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

    private static func event(state: String, frames: String?, folder: String, status: Int? = nil) -> String {
        var object: [String: Any] = ["state": state, "folder": folder, "frames": frames ?? ""]
        if let status { object["status"] = status }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
