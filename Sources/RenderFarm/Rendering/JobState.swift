import FileOutput
import Foundation
import Locking
import RenderFarmOutput

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
    /// Frames to draw in this run.
    let todo: [Int]
    /// Frames of this run that draw the same as an earlier frame (equal fingerprints), with that
    /// frame: written from its file once it exists, never drawn.
    let reuses: [(frame: Int, source: Int)]
    /// The fingerprint of each frame of the run.
    private let fingerprints: FrameFingerprints
    /// Frames done by an earlier run, verified on disk, with their journal entries.
    private let previous: [Int: JournalEntry]
    private let journal: Journal
    /// Whole runs write `manifest.json`; a shard leaves it to `renderfarm merge`.
    private let writesManifest: Bool
    private let written = Locked<[Int: JournalEntry]>([:])

    var skipped: Int { previous.count }

    /// Decides what to render in the (created and locked) output folder: a frame is skipped only
    /// when its file exists, a journal line has the current fingerprint, and the checksum matches.
    /// A manifest that frames about to change would make stale is replaced (or, for a shard,
    /// removed) before any frame is written.
    init(job: PreparedJob, options: RenderOptions, holder: FolderLock.Holder) throws(OutputError) {
        self.job = job
        StagedFile.removeStale(in: job.outputDirectory)
        let fingerprints = job.frameFingerprints
        self.fingerprints = fingerprints
        var verified: [Int: JournalEntry] = [:]
        if !options.force {
            let recorded = RecordedFrames(directory: job.outputDirectory)
            for index in job.frames.frames {
                let candidates = recorded.candidates(
                    index, fingerprint: fingerprints[index], file: job.spec.output.fileName(ofFrame: index))
                verified[index] = recorded.verified(among: candidates)
            }
        }
        previous = verified
        (todo, reuses) = Self.plan(job.frames.frames, fingerprints: fingerprints, verified: verified)
        let journalPath = (job.outputDirectory as NSString).appendingPathComponent(options.shard.journalName)
        journal = try Journal(path: journalPath, truncate: options.force)
        // Every run records what the folder is rendered from, so `merge` needs no job file.
        try JobRecord(job).write(to: job.outputDirectory)
        try FingerprintTable.write(fingerprints, to: job.outputDirectory, shard: options.shard)
        writesManifest = options.shard == .whole
        if !todo.isEmpty || !reuses.isEmpty {
            if writesManifest {
                try Manifest.write(Manifest.rendering(for: job, by: holder), to: job.outputDirectory)
            } else {
                // Shards share the folder: `merge` writes the new manifest once they have all finished.
                try Manifest.remove(from: job.outputDirectory)
            }
        }
    }

    /// Splits the frames not verified on disk into those to draw and those that draw the same as
    /// an earlier frame (drawn in this run, or verified on disk), in frame order.
    private static func plan(
        _ frames: [Int], fingerprints: FrameFingerprints, verified: [Int: JournalEntry]
    ) -> (todo: [Int], reuses: [(frame: Int, source: Int)]) {
        var first: [String: Int] = [:]
        for (index, entry) in verified where entry.status == .ok {
            first[fingerprints[index]] = min(first[fingerprints[index]] ?? index, index)
        }
        var todo: [Int] = []
        var reuses: [(frame: Int, source: Int)] = []
        for index in frames where verified[index] == nil {
            let fingerprint = fingerprints[index]
            if let source = first[fingerprint] {
                reuses.append((index, source))
            } else {
                first[fingerprint] = index
                todo.append(index)
            }
        }
        return (todo, reuses)
    }

    /// Writes frame `index` from the file of frame `source`, which draws the same and is done (a
    /// copy or a hard link, as `output.duplicates` says); fails when `source` failed.
    func reuse(_ index: Int, from source: Int) -> FrameOutcome {
        let done = written.withLock { $0[source] } ?? previous[source]
        var entry: JournalEntry
        if let done, done.status == .ok {
            do {
                try AtomicFile.duplicate(
                    job.path(ofFrame: source), to: job.path(ofFrame: index), link: job.spec.output.duplicates == .link)
            } catch {
                return .fatal(error)
            }
            entry = self.entry(
                index, attempts: 0, milliseconds: 0, status: .ok, sha256: done.sha256, bytes: done.bytes,
                opaque: done.opaque)
        } else {
            entry = self.entry(
                index, attempts: 0, milliseconds: 0, status: .failed, sha256: "", bytes: 0, opaque: false,
                error: "draws the same as frame \(source), which failed" + (done?.error.map { ": \($0)" } ?? ""))
        }
        entry.reusedFrom = source
        do {
            try record(entry)
        } catch {
            return .fatal(error)
        }
        return entry.status == .ok ? .written(entry, FrameTimings()) : .failed(entry)
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
            sha256: sha256, bytes: bytes, fingerprint: fingerprints[index], attempts: attempts,
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
            error: entry.error, timings: timings, reusedFrom: entry.reusedFrom, finished: finished, total: total)
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
        let ok = fresh.values.filter { $0.status == .ok }
        return JobSummary(
            name: job.spec.name, outputDirectory: job.outputDirectory,
            manifestPath: (job.outputDirectory as NSString).appendingPathComponent(Manifest.fileName),
            requested: job.frames.count, rendered: ok.filter { $0.reusedFrom == nil }.count,
            reused: ok.filter { $0.reusedFrom != nil }.count, skipped: previous.count, failed: failed,
            missing: missing)
    }
}
