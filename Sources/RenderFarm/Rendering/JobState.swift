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
    /// The render was stopped while the frame was drawn in a worker (`FrameFailure.interrupted`): nothing is
    /// recorded, and the next run draws it.
    case interrupted
}

/// One job during the *execute* and *finish* phases of a render: its `ResumePlan`, the journal each
/// finished frame is recorded in, and the manifest written at the end.
final class JobState: Sendable {
    let job: PlannedJob
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
    /// The run's hold on the job's folder: every record is written through it.
    private let session: OutputFolder.Session
    /// Whole runs write `manifest.json`; a shard leaves it to `renderfarm merge`.
    private let writesManifest: Bool
    private let written = Locked<[Int: JournalEntry]>([:])
    /// When each frame finished, for its journal entry.
    private let clock: any EngineClock

    var skipped: Int { previous.count }

    /// Plans the resume of `job` in its open folder (`ResumePlan`) and writes the records that come
    /// before any frame: the job record, the fingerprint table, and a manifest that frames about to
    /// change would make stale replaced (or, for a shard, removed).
    init(job: PlannedJob, options: RenderOptions, session: OutputFolder.Session) throws(OutputError) {
        self.job = job
        self.session = session
        clock = options.clock
        session.descriptor.removeStale()
        let fingerprints = job.frameFingerprints
        self.fingerprints = fingerprints
        let journals = job.folder.recordedFrames()
        // Frames the job no longer has go. `--frames` and `--shard` ask for part of the job's frames, whose other
        // files stay (<doc:OutputFolder>); the frames `--frames` asks for stay too, even outside the job's `frames`
        // (every shard of such a render keeps what the others draw).
        let ownFrames = job.spec.frames
        let askedFrames = job.jobFrames
        let output = job.spec.output
        session.removeFrames(recorded: journals) { index, file in
            (ownFrames.contains(index) || askedFrames.contains(index)) && file == output.fileName(ofFrame: index)
        }
        let plan = ResumePlan(job, fingerprints: fingerprints, recorded: options.force ? nil : journals)
        previous = plan.verified
        todo = plan.todo
        reuses = plan.reuses
        journal = try session.journal(of: options.shard, truncate: options.force)
        // Every run records what the folder is rendered from, so `merge` needs no job file.
        let olderFrames = journals.allEntries.contains { $0.fingerprint != fingerprints[$0.index] }
        try session.write(
            JobRecord(job, over: try? JobRecord.read(from: job.outputDirectory), olderFrames: olderFrames))
        try session.write(fingerprints, of: options.shard)
        writesManifest = options.shard == .whole
        if !todo.isEmpty || !reuses.isEmpty {
            if writesManifest {
                try session.writeManifest(Manifest.rendering(for: job, by: session.holder))
            } else {
                // Shards share the folder: `merge` writes the new manifest once they have all finished.
                try session.removeManifest()
            }
        }
    }

    /// Writes frame `index` from the file of frame `source`, which draws the same and is done (a
    /// copy or a hard link, as `output.duplicates` says); fails when `source` failed.
    func reuse(_ index: Int, from source: Int) -> FrameOutcome {
        let done = written.withLock { $0[source] } ?? previous[source]
        var entry: JournalEntry
        if let done, done.status == .ok {
            do {
                try session.descriptor.duplicate(
                    job.spec.output.fileName(ofFrame: source), to: job.spec.output.fileName(ofFrame: index),
                    link: job.spec.output.duplicates == .link)
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

    /// Renders frame `index`, trying again after plugin failures as `RetryPolicy` says. A link or special
    /// file where the frame goes stops the render before the frame is drawn, whichever executor writes it.
    func renderWithRetries(_ index: Int, worker: some FrameExecutor) -> FrameOutcome {
        do {
            try session.descriptor.checkWritable(job.spec.output.fileName(ofFrame: index))
        } catch {
            return .fatal(error)
        }
        let outcome = RetryPolicy(retries: job.spec.retries).run { () throws(FrameFailure) in
            try worker.render(index, of: job, into: session.descriptor)
        }
        let recorded: JournalEntry
        switch outcome {
        case .succeeded(let frame, let attempts):
            recorded = entry(
                index, attempts: attempts, milliseconds: frame.timings.total, status: .ok,
                sha256: frame.sha256, bytes: frame.bytes, opaque: frame.opaque)
        case .failed(.output(let error), _):
            return .fatal(error)
        case .failed(.interrupted, _):
            return .interrupted
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
            finishedAt: clock.date.timeIntervalSince1970)
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
            try session.writeManifest(manifest)
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
