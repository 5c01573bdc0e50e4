import FileOutput
import RenderFarmJobs
import RenderFarmOutput
import StrictJSON

extension Manifest {
    /// The manifest of `job` given the journal entries found for it.
    static func build(for job: PlannedJob, expected: FrameSet, entries: [Int: JournalEntry]) -> JSONValue {
        build(for: JobRecord(job, frames: expected), entries: entries)
    }

    /// The manifest a run writes before its first frame, in place of the one it makes stale.
    static func rendering(for job: PlannedJob, by holder: LockHolder) -> JSONValue {
        .object([
            "format": .string(format), "version": .number(Double(version)),
            "state": .string(State.rendering.rawValue), "complete": false,
            "job": .object(["name": .string(job.spec.name), "source": .string(job.job.file)]),
            "render": .object([
                "pid": .number(Double(holder.pid)), "host": .string(holder.host), "since": .string(holder.since),
            ]),
            "frameCount": .number(Double(job.jobFrames.count)), "frameSet": .string(job.jobFrames.description),
        ])
    }
}
