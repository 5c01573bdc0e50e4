import FileInput
import Foundation
import RenderFarmJobs
import StrictJSON

/// Where a render folder stands, read from its job record, journals and locks while it is being
/// rendered or after: what `renderfarm status` prints, for whole renders and shards alike.
package struct FolderStatus: Sendable {
    package enum State: String, Sendable {
        /// A run (or a shard) holds the folder's lock now.
        case rendering
        /// Every frame of the render is done.
        case complete
        /// Nobody renders and frames are missing (never rendered, or a run was stopped or killed).
        case incomplete
        /// Nobody renders and some frames failed after their retries.
        case failed
    }

    /// Absolute path of the folder.
    package var directory: String
    package var name: String
    package var state: State
    /// Frames of the whole render (every shard).
    package var total: Int
    /// Frames the journals record as done for the current job.
    package var done: Int
    /// Frames whose last attempt failed, with the error.
    package var failed: [Int: String]
    /// Frames not done (never rendered, or failed).
    package var missing: [Int]
    /// Who renders the folder now.
    package var holders: [FolderLock.Holder]
    /// Frames per second over the last minute of finished frames, while rendering.
    package var fps: Double?
    /// Seconds left at that rate, while rendering.
    package var etaSeconds: Double?
    /// The most recently finished frame, e.g. for a thumbnail.
    package var lastFrame: (index: Int, file: String)?
    /// How many journals were read (one per shard that has started, or one for a whole render).
    package var journals: Int

    /// Reads the status of `directory`; `now` is the time the rate is measured at.
    package static func read(_ directory: String, now: Date = Date()) throws(FolderStatusError) -> FolderStatus {
        let folder = OutputFolder(URL(fileURLWithPath: directory).standardizedFileURL.path)
        return FolderStatus(try folder.snapshot(), now: now)
    }

    /// The status of the folder `snapshot` read.
    package init(_ snapshot: OutputFolder.Snapshot, now: Date) {
        let (folder, record, recorded, fingerprints) =
            (snapshot.folder.path, snapshot.record, snapshot.recorded, snapshot.fingerprints)
        var done: [JournalEntry] = []
        var failed: [Int: String] = [:]
        var missing: [Int] = []
        for index in record.frames.frames {
            let candidates = recorded.candidates(
                index, fingerprint: fingerprints[index], file: record.fileName(ofFrame: index))
            if let finished = candidates.last(where: { $0.status == .ok }) {
                done.append(finished)
                continue
            }
            missing.append(index)
            if let failure = candidates.last(where: { $0.status == .failed }) {
                failed[index] = failure.error ?? "failed"
            }
        }
        let holders = snapshot.holders
        let state: State =
            !holders.isEmpty ? .rendering : missing.isEmpty ? .complete : failed.isEmpty ? .incomplete : .failed
        directory = folder
        name = record.name
        self.state = state
        total = record.frames.count
        self.done = done.count
        self.failed = failed
        self.missing = missing
        self.holders = holders
        journals = recorded.journals.count
        let timed = done.compactMap { entry in entry.finishedAt.map { (at: $0, entry: entry) } }.sorted {
            $0.at < $1.at
        }
        if let last = timed.last { lastFrame = (last.entry.index, last.entry.file) }
        if state == .rendering {
            let recent = timed.filter { $0.at >= now.timeIntervalSince1970 - 60 }
            if let first = recent.first, let last = recent.last, recent.count >= 2, last.at > first.at {
                let fps = Double(recent.count - 1) / (last.at - first.at)
                self.fps = fps
                etaSeconds = Double(missing.count) / fps
            }
        }
    }

    /// The status as one JSON object (`renderfarm status --json`).
    package var json: JSONValue {
        var object: JSONObject = [
            "folder": .string(directory), "name": .string(name), "state": .string(state.rawValue),
            "total": .number(Double(total)), "done": .number(Double(done)),
            "missing": .string(FrameSet.compress(missing)),
            "failed": .array(
                failed.keys.sorted().map {
                    .object(["frame": .number(Double($0)), "error": .string(failed[$0] ?? "")])
                }
            ),
            "holders": .array(
                holders.map {
                    .object([
                        "pid": .number(Double($0.pid)), "host": .string($0.host), "since": .string($0.since),
                        "task": .string($0.task),
                    ])
                }),
            "journals": .number(Double(journals)),
        ]
        if let fps { object["fps"] = .number((fps * 100).rounded() / 100) }
        if let etaSeconds { object["etaSeconds"] = .number(etaSeconds.rounded()) }
        if let lastFrame {
            object["lastFrame"] = .object(["index": .number(Double(lastFrame.index)), "file": .string(lastFrame.file)])
        }
        return .object(object)
    }
}

/// A folder whose status cannot be read.
package enum FolderStatusError: Error, Equatable, CustomStringConvertible {
    /// Not an output folder of renderfarm (exit 66).
    case notARenderFolder(path: String, reason: String)
    /// Its job record is damaged (exit 65).
    case unreadable(String)

    package var description: String {
        switch self {
        case .notARenderFolder(let path, let reason):
            "\(EscapedPath.of(path)) is not a render folder: \(reason); give the output folder of a render"
        case .unreadable(let reason): reason
        }
    }
}
