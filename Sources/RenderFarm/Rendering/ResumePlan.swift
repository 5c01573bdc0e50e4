import RenderFarmOutput

/// The *resume plan* phase of a run (the RenderFarm article RenderPhases): which frames of a job
/// this run draws, which it writes from an earlier frame that draws the same, and which an earlier
/// run already finished — decided from the folder's records alone, writing nothing.
///
/// A frame is done only when its file exists, a journal line has its current fingerprint, and the
/// file's checksum matches that line.
struct ResumePlan {
    /// Frames done by an earlier run, verified on disk, with their journal entries.
    let verified: [Int: JournalEntry]
    /// Frames to draw, in frame order.
    let todo: [Int]
    /// Frames that draw the same as an earlier frame (equal fingerprints) drawn in this run or
    /// verified on disk, with that frame: written from its file, never drawn.
    let reuses: [(frame: Int, source: Int)]

    /// The plan for `job`'s frames given what `recorded` holds (nil: nothing counts as done, `--force`).
    init(_ job: PlannedJob, fingerprints: FrameFingerprints, recorded: RecordedFrames?) {
        var verified: [Int: JournalEntry] = [:]
        if let recorded {
            for index in job.frames.frames {
                let candidates = recorded.candidates(
                    index, fingerprint: fingerprints[index], file: job.spec.output.fileName(ofFrame: index))
                verified[index] = recorded.verified(among: candidates)
            }
        }
        self.verified = verified
        var first: [String: Int] = [:]
        for (index, entry) in verified where entry.status == .ok {
            first[fingerprints[index]] = min(first[fingerprints[index]] ?? index, index)
        }
        var todo: [Int] = []
        var reuses: [(frame: Int, source: Int)] = []
        for index in job.frames.frames where verified[index] == nil {
            let fingerprint = fingerprints[index]
            if let source = first[fingerprint] {
                reuses.append((index, source))
            } else {
                first[fingerprint] = index
                todo.append(index)
            }
        }
        self.todo = todo
        self.reuses = reuses
    }
}
