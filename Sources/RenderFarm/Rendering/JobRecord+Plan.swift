import RenderFarmJobs
import RenderFarmOutput
import StrictJSON

extension JobRecord {
    /// The record of `job`, expecting `frames` (default: the whole render's frames, every shard).
    package init(_ job: PlannedJob, frames: FrameSet? = nil) {
        var seen: Set<String> = []
        let plugins = job.layerPlugins.filter { seen.insert($0.info.id).inserted }.map {
            Plugin(
                id: $0.info.id, identifier: $0.info.identifier, version: $0.info.version, path: $0.info.path,
                sha256: $0.librarySHA256)
        }
        self.init(
            job: job.job, fingerprint: job.fingerprint, frames: frames ?? job.jobFrames, plugins: plugins,
            canonical: job.canonical)
    }

    /// The record a run of `job` writes over `previous`, the folder's record before it: it keeps the
    /// canonical form the folder's older frames were drawn from while any are left (`olderFrames`), so that
    /// a run resumed after an interruption still names what was edited.
    package init(_ job: PlannedJob, over previous: JobRecord?, olderFrames: Bool) {
        self.init(job)
        guard olderFrames, let previous else { return }
        earlier = previous.canonical == job.canonical ? previous.earlier : previous.canonical
    }

    /// The canonical form the frames a run of `job` draws again were drawn from: the one before this
    /// record's while the folder holds frames of it, else this record's.
    package func drawnFrom(_ job: PlannedJob) -> JSONValue {
        canonical == job.canonical ? earlier ?? canonical : canonical
    }
}
