import Foundation
import Locking
import RenderFarm
import RenderFarmJobs
import StrictJSON

/// The studio's render queue: renders of the job asked for (`POST /api/render`), run one at a time in the
/// order asked, each a `renderfarm render` by the same executable as the studio in a child process, so a
/// plugin that crashes or runs out of memory over thousands of frames takes down that render, not the
/// studio. The queue is the studio's, not a page's: a reload, another tab or a script sees the same one
/// (`GET /api/render`). Each render's `--progress json` lines are relayed as `render` events (frames done of
/// total, at most every `progressInterval` seconds); it is stopped as Ctrl-C stops it.
final class RenderRunner: Sendable {
    private let options: StudioOptions
    private let events: EventHub
    private let queue = Locked(Queue())
    /// The least time between two progress events of one render.
    static let progressInterval = 0.1
    /// The last lines of standard error (and failed frames' errors) kept to say why a render failed.
    static let keptErrorLines = 5
    /// Renders waiting at most; finished ones kept to be listed.
    static let maxQueued = 50
    static let keptFinished = 20

    /// One render asked for.
    struct Item: Sendable {
        var id: Int
        /// A `--frames` set; nil: the job's own.
        var frames: String?
        var video: RenderCommandLine.Video?
        /// The job's output folder.
        var folder: String
        var state = State.queued
        /// The exit status once finished: 0 complete, 130 stopped.
        var status: Int?
        /// Why it failed: the last lines of its standard error.
        var message = ""
        var progress: (done: Int, total: Int, failed: Int)?

        enum State: String, Sendable {
            case queued, running, finished
        }
    }

    private struct Queue {
        var items: [Item] = []
        var running: Run?
        var nextID = 1
    }

    init(options: StudioOptions, events: EventHub) {
        self.options = options
        self.events = events
    }

    /// Queues rendering `frames` (a `--frames` set; nil for the job's own) into `folder`, the job's output
    /// folder, or with `video` into that video, and starts it when no render runs; `render` events tell when
    /// it is queued, starts, progresses and ends. A video of a studio whose renders are sandboxed is two steps
    /// (`RenderCommandLine`): the frames, drawn in sandboxed workers into a scratch folder removed afterwards,
    /// then encoded.
    func enqueue(frames: String?, video: RenderCommandLine.Video? = nil, folder: String) throws(StudioFailure) -> Item {
        guard options.render != nil else {
            throw StudioFailure(status: 501, "this studio cannot render (it runs without the renderfarm executable)")
        }
        if let frames {
            do {
                _ = try FrameSet(parsing: frames)
            } catch {
                throw StudioFailure(status: 400, "frames=\(frames): \(error)")
            }
        }
        let item = try queue.withLock { queue throws(StudioFailure) -> Item in
            guard queue.items.count(where: { $0.state == .queued }) < Self.maxQueued else {
                throw StudioFailure(status: 429, "\(Self.maxQueued) renders are queued already; remove some first")
            }
            let item = Item(id: queue.nextID, frames: frames, video: video, folder: folder)
            queue.nextID += 1
            queue.items.append(item)
            publish(item)
            return item
        }
        startNext()
        return item
    }

    /// Every render queued, running or finished lately (the oldest first), as `render` events describe them.
    var json: JSONValue {
        .array(queue.withLock { $0.items }.map { Self.json($0) })
    }

    /// Starts the first queued render when none runs (one that cannot start is finished with why, and the
    /// next is tried). Events are published under the queue's lock, so they come in the order of the changes.
    private func startNext() {
        guard let command = options.render else { return }
        let started = queue.withLock { queue -> (Item, Launched, ArraySlice<[String]>, String)? in
            while queue.running == nil, let index = queue.items.firstIndex(where: { $0.state == .queued }) {
                queue.items[index].state = .running
                let item = queue.items[index]
                let scratch = FileManager.default.temporaryDirectory
                    .appendingPathComponent("renderfarm-studio-\(getpid())-\(UUID().uuidString)").path
                let steps = command.steps(
                    RenderCommandLine.Request(
                        jobFile: options.jobFile, frames: item.frames, video: item.video, scratch: scratch,
                        pluginFolders: StudioOptions.existingFolders(options.pluginSearchPath)))
                do throws(StudioFailure) {
                    let launched = try Self.launch(command.executable, steps[0], environment: options.environment)
                    queue.running = Run(id: item.id, process: launched.process)
                    publish(item)
                    return (item, launched, steps.dropFirst(), scratch)
                } catch {
                    queue.items[index].state = .finished
                    (queue.items[index].status, queue.items[index].message) = (1, error.message)
                    publish(queue.items[index])
                }
            }
            return nil
        }
        guard let (item, first, rest, scratch) = started else { return }
        Thread.detachNewThread { [self] in
            var (step, rest) = (first, rest)
            var (status, said) = (0, "")
            while true {
                // Standard error is read to its end, then the exit is awaited: `finished` follows every
                // progress event of the run.
                said = Self.relay(step.errors) { done, total, failed in
                    self.update(item.id) { $1.progress = (done, total, failed) }
                }
                step.process.waitUntilExit()
                status = step.process.terminationReason == .exit ? Int(step.process.terminationStatus) : 130
                guard status == 0, let arguments = rest.popFirst() else { break }
                // The next step, unless Stop came between the two.
                let launched = self.queue.withLock { queue -> Result<Launched, StudioFailure>? in
                    guard queue.running?.stopped == false else { return nil }
                    let launched = Result { () throws(StudioFailure) in
                        try Self.launch(command.executable, arguments, environment: options.environment)
                    }
                    if case .success(let next) = launched { queue.running?.process = next.process }
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
            self.update(item.id) { queue, finished in
                queue.running = nil
                finished.state = .finished
                (finished.status, finished.message) = (status, said)
            }
            self.startNext()
        }
    }

    /// Changes item `id` (and the queue) and tells its new state; the finished ones kept are the last few.
    private func update(_ id: Int, _ change: (inout Queue, inout Item) -> Void) {
        queue.withLock { queue in
            guard let index = queue.items.firstIndex(where: { $0.id == id }) else { return }
            var item = queue.items[index]
            change(&queue, &item)
            queue.items[index] = item
            publish(item)
            let finished = queue.items.indices.filter { queue.items[$0].state == .finished }
            for index in finished.dropLast(Self.keptFinished).reversed() { queue.items.remove(at: index) }
        }
    }

    /// Tells `item` as a `render` event, in its own state or in `state` (`removed`).
    private func publish(_ item: Item, state: String? = nil) {
        events.publish("render", Self.json(item, state: state).serialized(sortedKeys: true))
    }

    /// One step's process and the standard error it writes its progress to.
    private struct Launched {
        var process: Process
        var errors: FileHandle
    }

    /// The running render: its item, its current step's process, and whether Stop was asked for.
    private struct Run {
        var id: Int
        var process: Process
        var stopped = false
    }

    private static func launch(_ executable: String, _ arguments: [String], environment: [String: String])
        throws(StudioFailure) -> Launched
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
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

    /// Takes render `id` out of the queue, or stops it as SIGINT does when it runs (its finished frames stay;
    /// the next queued one then starts), or forgets it when finished; nil `id`: the running one. False when there
    /// is no such render.
    @discardableResult
    func stop(_ id: Int? = nil) -> Bool {
        queue.withLock { queue in
            if let run = queue.running, id == nil || id == run.id {
                // Also between two steps: the next one is not started.
                queue.running?.stopped = true
                if run.process.isRunning { run.process.interrupt() }
                return true
            }
            guard let id, let index = queue.items.firstIndex(where: { $0.id == id }) else { return false }
            publish(queue.items.remove(at: index), state: "removed")
            return true
        }
    }

    /// Ends the studio's renders: the queue is emptied and the running one stopped.
    func stopAll() {
        queue.withLock { queue in queue.items.removeAll { $0.state == .queued } }
        stop()
    }

    /// An item as `render` events and `GET /api/render` give it, in `state` (its own by default).
    private static func json(_ item: Item, state: String? = nil) -> JSONValue {
        var object: JSONObject = [
            "id": .number(Double(item.id)), "state": .string(state ?? item.state.rawValue),
            "folder": .string(item.folder),
            "frames": .string(item.frames ?? ""),
        ]
        if let video = item.video {
            object["video"] = .string(video.file)
            object["preset"] = .string(video.preset)
        }
        if let status = item.status { object["status"] = .number(Double(status)) }
        if !item.message.isEmpty { object["message"] = .string(item.message) }
        if let progress = item.progress {
            object["done"] = .number(Double(progress.done))
            object["total"] = .number(Double(progress.total))
            object["failed"] = .number(Double(progress.failed))
        }
        return .object(object)
    }
}
