import CFaultReport
import CSandbox
import CairoKit
import Foundation

/// The worker's side of `render --isolate`: the hidden `worker` command prepares the same jobs
/// as its parent, then serves frames until the parent closes the connection.
package enum WorkerServer {
    /// Ties this process to its parent (it is killed when the parent dies) and connects to it.
    package static func connect() -> WorkerConnection? {
        rf_worker_die_with_parent()
        var status = stat()
        guard fstat(WorkerChannel.childDescriptor, &status) == 0 else { return nil }
        // Before any plugin is loaded: the memory file's descriptor is closed, its mapping stays.
        return WorkerConnection(
            channel: WorkerChannel(descriptor: WorkerChannel.childDescriptor), memory: WorkerFrameMemory.inherited())
    }
}

/// A worker's connection to its parent.
package final class WorkerConnection {
    let channel: WorkerChannel
    /// Where frames' pixels go when the render gave the worker memory for them.
    private let memory: WorkerFrameMemory?

    fileprivate init(channel: WorkerChannel, memory: WorkerFrameMemory?) {
        self.channel = channel
        self.memory = memory
    }

    /// The job file's text a worker started with `--job-text` is sent first (`WorkerChannel.send(jobText:)`:
    /// `text N`, then N bytes, at most `limit`); nil when the render sent none or something else.
    package func receiveJobText(limit: Int) -> [UInt8]? {
        guard let line = try? channel.receive(timeout: WorkerProcess.startTimeout), line.hasPrefix("text "),
            let count = Int(line.dropFirst(5)), (0...limit).contains(count)
        else { return nil }
        return try? channel.receive(count: count, timeout: WorkerProcess.startTimeout)
    }

    /// A planning worker's reply (`IsolatedPlanner`): what creating its jobs' layers gave, by position.
    package func reply(planned jobs: [Int: [Int: CreatedLayer]]) {
        for line in IsolatedPlanner.lines(jobs) {
            guard (try? channel.send(line)) != nil else { return }
        }
    }

    /// Tells the parent the jobs could not be prepared.
    package func fail(_ message: String) {
        try? channel.send(WorkerReply.error + message.replacingOccurrences(of: "\n", with: "; "))
    }

    /// Says which jobs were prepared, then renders each frame asked for until the parent closes
    /// the connection.
    /// `beforeFrame` runs before each frame: false retires the worker (it says `retire` instead of drawing and
    /// ends; the parent starts another for the frame), which the sandbox does when the worker's hard CPU limit
    /// is near. `failureNote` may add a sentence to a frame's failure (the sandbox's memory limit). `served`, when
    /// given, is the position among the render's jobs of the one job in `jobs` (`worker --serve-job`: the worker
    /// prepared only that job and its sandbox reads only its files); requests name it so, and a request for
    /// another job's frame fails.
    package func serve(
        _ jobs: [PlannedJob], serving served: Int? = nil, cacheStaticLayers: Bool, beforeFrame: () -> Bool = { true },
        failureNote: () -> String? = { nil }
    ) {
        let worker = FrameWorker(cacheStaticLayers: cacheStaticLayers)
        // The studio's previews with the motion overlay (`render J F debug`), made on first use.
        var preview: FramePreview?
        do {
            try channel.send("ready " + jobs.map(\.fingerprint).joined(separator: " "))
            while true {
                let request = try channel.receive(timeout: nil).split(separator: " ")
                if request.count == 2, request[0] == "keys", let named = Int(request[1]),
                    case let job = served.map({ named == $0 ? 0 : -1 }) ?? named, jobs.indices.contains(job)
                {
                    try sendFrameFingerprints(of: jobs[job])
                    continue
                }
                guard request.count == 3 || (request.count == 4 && request[3] == "debug"), request[0] == "render",
                    let named = Int(request[1]), let frame = Int(request[2]),
                    case let job = served.map({ named == $0 ? 0 : -1 }) ?? named, jobs.indices.contains(job)
                else {
                    try channel.send(WorkerReply.failure + "the worker got an unreadable request")
                    continue
                }
                guard beforeFrame() else {
                    try channel.send(WorkerReply.retire)
                    return
                }
                // The frame's pixels follow its reply line; the parent encodes them and writes the PNG.
                let clock = ContinuousClock()
                let start = clock.now
                let drawn = Result { () throws(FrameFailure) -> ImageSurface in
                    guard request.count == 4 else { return try worker.draw(frame, of: jobs[job]) }
                    let drawing = preview ?? FramePreview()
                    preview = drawing
                    return try drawing.drawn(frame, of: jobs[job], debug: true)
                }
                switch drawn {
                case .success(let surface):
                    let milliseconds = (clock.now - start).seconds * 1000
                    if let memory, memory.store(surface) {
                        try channel.send(WorkerReply.drawn(milliseconds: milliseconds, shared: true))
                    } else {
                        try channel.send(WorkerReply.drawn(milliseconds: milliseconds))
                        try channel.send(pixelsOf: surface)
                    }
                case .failure(let failure):
                    var reported = failure
                    if failure.isDrawing, let note = failureNote() {
                        reported = .drawing(failure.message + "; " + note)
                    }
                    try channel.send(WorkerReply.failed(reported))
                }
            }
        } catch {
            // The parent closed the connection (or died): the worker's work is over.
        }
    }

    /// The reply to `keys J`: `keys N`, then a line `FRAME FINGERPRINT` for each of the N frames of the run whose
    /// fingerprint the layers' frame keys decide (`PlannedJob.frameFingerprints`, computed here, in the sandbox).
    private func sendFrameFingerprints(of job: PlannedJob) throws(WorkerChannel.Failure) {
        let keyed = job.frameFingerprints.keyed.sorted { $0.key < $1.key }
        try channel.send("keys \(keyed.count)")
        for (frame, fingerprint) in keyed { try channel.send("\(frame) \(fingerprint)") }
    }
}
