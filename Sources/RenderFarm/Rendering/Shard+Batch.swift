import RenderFarmJobs
import RenderFarmOutput

extension Shard {
    /// This shard's part of a batch: the frames of every job, one after the other, split into
    /// `count` balanced parts, so that many short jobs (the variants of a batch) spread over every
    /// shard. Each job keeps its whole frame set as `jobFrames`.
    func parts(of jobs: [PlannedJob]) -> [PlannedJob] {
        guard case .part(let index, let count, let interleaved) = self else { return jobs }
        let total = jobs.reduce(0) { $0 + $1.frames.count }
        let base = total / count
        let remainder = total % count
        let start = index * base + min(index, remainder)
        let end = start + base + (index < remainder ? 1 : 0)
        var offset = 0
        return jobs.map { job in
            let frames = job.frames
            defer { offset += frames.count }
            let mine: FrameSet
            if interleaved {
                // Global position p belongs to this shard when p % count == index.
                let first = ((index - offset) % count + count) % count
                mine = frames.strided(offset: first, step: count)
            } else {
                let lower = min(max(start - offset, 0), frames.count)
                let upper = min(max(end - offset, 0), frames.count)
                mine = frames.slice(lower..<upper)
            }
            return job.with(frames: mine)
        }
    }
}
