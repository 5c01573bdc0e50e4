import Foundation

/// The one thread that starts every worker process, and lives as long as this process.
///
/// A worker asks to die with its parent (`PR_SET_PDEATHSIG`), and the kernel sends that signal when
/// the *thread* that started the worker ends, not the process (prctl(2)). The studio answers each
/// connection on a thread of its own (libmicrohttpd's thread per connection): a preview worker started
/// there was killed as soon as that request's connection closed, and every other frame failed with
/// "killed by SIGKILL". Started from this thread, a worker dies with the process only.
///
/// `@unchecked Sendable`: `pending` is only touched with `condition` locked; a body runs on the thread
/// while its caller waits for it, so what it captures is never used from two threads at once.
final class WorkerSpawnThread: @unchecked Sendable {
    static let shared = WorkerSpawnThread()

    private let condition = NSCondition()
    private var pending: [() -> Void] = []

    private init() {
        let thread = Thread { [self] in serve() }
        thread.name = "renderfarm.worker-spawn"
        thread.start()
    }

    /// Runs `body` on the spawning thread and returns its result; blocks until it has run.
    func run<T>(_ body: @escaping () -> T) -> T {
        let result = Box<T>()
        let done = DispatchSemaphore(value: 0)
        condition.lock()
        pending.append {
            result.value = body()
            done.signal()
        }
        condition.signal()
        condition.unlock()
        done.wait()
        // Set before `done` was signalled; a body that returned cannot leave it empty.
        guard let value = result.value else { preconditionFailure("the spawning thread ran no body") }
        return value
    }

    private func serve() -> Never {
        while true {
            condition.lock()
            while pending.isEmpty { condition.wait() }
            let body = pending.removeFirst()
            condition.unlock()
            body()
        }
    }

    /// A result handed from the spawning thread to the waiting caller.
    private final class Box<T> {
        var value: T?
    }
}
