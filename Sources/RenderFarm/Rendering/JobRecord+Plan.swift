import RenderFarmJobs
import RenderFarmOutput

extension JobRecord {
    /// The record of `job`, expecting `frames` (default: the whole render's frames, every shard).
    package init(_ job: PlannedJob, frames: FrameSet? = nil) {
        var seen: Set<String> = []
        let plugins = job.layers.map(\.plugin).filter { seen.insert($0.info.id).inserted }.map {
            Plugin(
                id: $0.info.id, identifier: $0.info.identifier, version: $0.info.version, path: $0.info.path,
                sha256: $0.librarySHA256)
        }
        self.init(
            job: job.job, fingerprint: job.fingerprint, frames: frames ?? job.jobFrames, plugins: plugins,
            canonical: job.canonical)
    }
}
