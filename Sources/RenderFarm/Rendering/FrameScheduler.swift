import Dispatch
import Locking
import Synchronization

/// Runs numbered tasks on a bounded set of workers on a Dispatch concurrent queue.
///
/// At most `concurrency` tasks are in flight. Each worker pulls the next task number from a
/// shared counter and owns its state (a surface, an encoder) for its whole life, so that state
/// is reused from frame to frame and never shared between threads. The workers end together, when
/// `run` returns: what they hold in common (a job's static layers, `StaticLayers`) lasts until the
/// last task has ended, even when one worker runs out of tasks while another is still starting its
/// last one.
package struct FrameScheduler: Sendable {
    package let concurrency: Int

    package init(concurrency: Int) {
        self.concurrency = max(1, concurrency)
    }

    /// Runs `perform` for every task in `0..<count` and returns when all have finished or,
    /// once `shouldStop` says so, when the tasks already started have finished.
    package func run<Worker>(
        count: Int,
        shouldStop: @escaping @Sendable () -> Bool = { false },
        makeWorker: @escaping @Sendable () -> Worker,
        perform: @escaping @Sendable (inout Worker, Int) -> Void
    ) {
        guard count > 0 else { return }
        let next = TaskCounter()
        let queue = DispatchQueue(label: "renderfarm.frames", attributes: .concurrent)
        let group = DispatchGroup()
        let ended = Locked<[EndedWorker<Worker>]>([])
        for _ in 0..<min(concurrency, count) {
            queue.async(group: group) {
                var worker = makeWorker()
                while !shouldStop() {
                    let task = next.take()
                    guard task < count else { break }
                    perform(&worker, task)
                }
                ended.withLock { $0.append(EndedWorker(worker)) }
            }
        }
        withExtendedLifetime(ended) { group.wait() }
    }
}

/// A worker whose lane has ended, kept until `run` returns: no thread uses it again, the caller only drops it.
/// `@unchecked Sendable` on that contract.
private final class EndedWorker<Worker>: @unchecked Sendable {
    let worker: Worker

    init(_ worker: Worker) { self.worker = worker }
}

/// Hands out task numbers 0, 1, 2, … to any number of threads.
private final class TaskCounter: Sendable {
    private let value = Atomic<Int>(0)

    func take() -> Int { value.wrappingAdd(1, ordering: .relaxed).oldValue }
}
