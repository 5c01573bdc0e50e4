import Foundation
import Synchronization

/// The outcome of one frame after its retries.
enum FrameOutcome {
    case written(JournalEntry, FrameTimings)
    case failed(JournalEntry)
    /// Output cannot be written at all (disk full, folder gone): the render stops.
    case fatal(OutputError)
}

/// One job during a render: what is already done, what is left, and the journal.
final class JobState: Sendable {
    let job: PreparedJob
    /// Frames to render in this run.
    let todo: [Int]
    /// Frames done by an earlier run, verified on disk, with their journal entries.
    private let previous: [Int: JournalEntry]
    private let journal: Journal
    /// Whole runs write `manifest.json`; a shard leaves it to `renderfarm merge`.
    private let writesManifest: Bool
    private let written = Mutex<[Int: JournalEntry]>([:])

    var skipped: Int { previous.count }

    /// Decides what to render in the (created and locked) output folder: a frame is skipped only
    /// when its file exists, a journal line has the current fingerprint, and the checksum matches.
    /// A manifest that frames about to change would make stale is replaced (or, for a shard,
    /// removed) before any frame is written.
    init(job: PreparedJob, options: RenderOptions, holder: FolderLock.Holder) throws(OutputError) {
        self.job = job
        StagedFile.removeStale(in: job.outputDirectory)
        var verified: [Int: JournalEntry] = [:]
        if !options.force {
            let recorded = RecordedFrames(directory: job.outputDirectory)
            for index in job.frames.frames {
                let candidates = recorded.candidates(
                    index, fingerprint: job.fingerprint(ofFrame: index), file: job.spec.output.fileName(ofFrame: index))
                verified[index] = recorded.verified(among: candidates)
            }
        }
        previous = verified
        todo = job.frames.frames.filter { verified[$0] == nil }
        let journalPath = (job.outputDirectory as NSString).appendingPathComponent(options.shard.journalName)
        journal = try Journal(path: journalPath, truncate: options.force)
        // Every run records what the folder is rendered from, so `merge` needs no job file.
        try JobRecord(job).write(to: job.outputDirectory)
        writesManifest = options.shard == .whole
        if !todo.isEmpty {
            if writesManifest {
                try Manifest.write(Manifest.rendering(for: job, by: holder), to: job.outputDirectory)
            } else {
                // Shards share the folder: `merge` writes the new manifest once they have all finished.
                try Manifest.remove(from: job.outputDirectory)
            }
        }
    }

    /// Renders frame `index`, trying again after plugin failures as `RetryPolicy` says.
    func renderWithRetries(_ index: Int, worker: some FrameExecutor) -> FrameOutcome {
        let outcome = RetryPolicy(retries: job.spec.retries).run { () throws(FrameFailure) in
            try worker.render(index, of: job)
        }
        let recorded: JournalEntry
        switch outcome {
        case .succeeded(let frame, let attempts):
            recorded = entry(
                index, attempts: attempts, milliseconds: frame.timings.total, status: .ok,
                sha256: frame.sha256, bytes: frame.bytes, opaque: frame.opaque)
        case .failed(.output(let error), _):
            return .fatal(error)
        case .failed(let error, let attempts):
            recorded = entry(
                index, attempts: attempts, milliseconds: 0, status: .failed, sha256: "", bytes: 0,
                opaque: false, error: error.message)
        }
        do {
            try record(recorded)
        } catch {
            return .fatal(error)
        }
        if case .succeeded(let frame, _) = outcome { return .written(recorded, frame.timings) }
        return .failed(recorded)
    }

    private func entry(
        _ index: Int, attempts: Int, milliseconds: Double, status: FrameStatus, sha256: String,
        bytes: Int, opaque: Bool, error: String? = nil
    ) -> JournalEntry {
        JournalEntry(
            index: index, time: job.spec.time(ofFrame: index), file: job.spec.output.fileName(ofFrame: index),
            sha256: sha256, bytes: bytes, fingerprint: job.fingerprint(ofFrame: index), attempts: attempts,
            renderMilliseconds: milliseconds, status: status, opaque: opaque, error: error,
            finishedAt: Date().timeIntervalSince1970)
    }

    private func record(_ entry: JournalEntry) throws(OutputError) {
        try journal.append(entry)
        written.withLock { $0[entry.index] = entry }
    }

    func event(_ entry: JournalEntry, _ timings: FrameTimings, finished: Int, total: Int) -> FrameEvent {
        FrameEvent(
            job: job.spec.name, index: entry.index, status: entry.status, attempts: entry.attempts,
            error: entry.error, timings: timings, finished: finished, total: total)
    }

    /// Writes the manifest from the verified earlier frames and this run's, and summarises.
    func finish() throws(OutputError) -> JobSummary {
        let fresh = written.withLock { $0 }
        let entries = previous.merging(fresh) { _, new in new }
        if writesManifest {
            let manifest = Manifest.build(for: job, expected: job.frames, entries: entries)
            try Manifest.write(manifest, to: job.outputDirectory)
        }
        let failed = job.frames.frames.filter { entries[$0]?.status == .failed }
        let missing = job.frames.frames.filter { entries[$0]?.status != .ok }
        return JobSummary(
            name: job.spec.name, outputDirectory: job.outputDirectory,
            manifestPath: (job.outputDirectory as NSString).appendingPathComponent(Manifest.fileName),
            requested: job.frames.count, rendered: fresh.values.filter { $0.status == .ok }.count,
            skipped: previous.count, failed: failed, missing: missing)
    }
}
