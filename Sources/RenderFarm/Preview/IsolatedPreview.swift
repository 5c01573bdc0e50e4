import Foundation

/// Single frames drawn on demand by worker processes, as PNG bytes: `FramePreview` for code the caller
/// does not trust (the studio's previews, unless `--sandbox off`). Each prepared job gets a worker of its
/// own — the hidden `worker` command with the arguments the caller gives, which prepares the same job (its hello must
/// name the same fingerprint), sandboxed as `render --isolate`'s workers are — that draws and encodes the
/// frame and sends it back checked (`WorkerReplyCheck`); nothing is written. A worker that crashes, hangs
/// past `frameTimeout` or is denied something fails that frame only, and the next frame starts a new one.
/// Not `Sendable`: use it from one thread at a time.
package final class IsolatedPreview {
    /// Seconds one frame may take before its worker is killed.
    package static let frameTimeout = 60.0
    /// Workers kept for the jobs used last (a few scales or variants of one job).
    static let keptWorkers = 4

    private var workers: [(job: PlannedJob, worker: WorkerProcess)] = []

    package init() {}

    /// The PNG of frame `index` of `job`, drawn by a worker started as `renderfarm WORKERARGUMENTS` when
    /// `job` has none yet in `environment`, and sent `jobText` as its one job file's text when given
    /// (`Isolation.jobText`); `debug` draws the motion overlay of `preview --debug` over it.
    package func png(
        _ index: Int, of job: PlannedJob, debug: Bool = false, workerArguments: [String], jobText: [UInt8]? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(FramePreviewError) -> [UInt8] {
        guard (0..<job.spec.frameCount).contains(index) else {
            throw FramePreviewError(message: "frame \(index) is outside the job (0-\(job.spec.frameCount - 1))")
        }
        let worker: WorkerProcess
        if let kept = workers.first(where: { $0.job === job })?.worker {
            worker = kept
        } else {
            worker = WorkerProcess(
                jobs: [job],
                isolation: Isolation(
                    arguments: workerArguments, frameTimeout: Self.frameTimeout, jobText: jobText,
                    environment: environment))
            workers.append((job, worker))
            if workers.count > Self.keptWorkers { workers.removeFirst() }
        }
        do throws(FrameFailure) {
            return Array(try worker.encoded(index, of: job, debug: debug).png)
        } catch {
            throw FramePreviewError(message: "frame \(index): \(error.message)")
        }
    }
}
