import FileInput
import Foundation
import Locking

/// The worker processes of one render (`Isolation.workers`), which ends them all when it is stopped.
///
/// Each worker leads a process group of its own: Ctrl-C in the terminal reaches only the render, which
/// decides when its workers stop, and whatever a worker might have started (with `--sandbox off`) dies with
/// it. Every group is killed when this process exits (`atexit`), and a render's when its grace period after
/// SIGINT or SIGTERM ends (`halt`); a worker also dies when this process is killed (PR_SET_PDEATHSIG, set
/// before the sandbox, which keeps a plugin from changing it). Article UntrustedPlugins, "Lifetimes".
package final class WorkerGroup: Sendable {
    private struct State {
        var live: Set<pid_t> = []
        var halted = false
    }

    private let state = Locked(State())
    /// Every live worker of this process, whichever render started it: killed at exit.
    private static let everyWorker = Locked<Set<pid_t>>([])
    private static let killedAtExit: Void = {
        atexit { WorkerGroup.killEveryWorker() }
    }()

    package init() {}

    /// Records a worker just started; false when the group was halted meanwhile (the caller kills it).
    func started(_ pid: pid_t) -> Bool {
        _ = Self.killedAtExit
        Self.everyWorker.withLock { _ = $0.insert(pid) }
        return state.withLock { state in
            state.live.insert(pid)
            return !state.halted
        }
    }

    /// Forgets a worker about to be reaped (after that its process group id may belong to anyone).
    func reaping(_ pid: pid_t) {
        Self.everyWorker.withLock { _ = $0.remove(pid) }
        state.withLock { _ = $0.live.remove(pid) }
    }

    /// Ends worker `pid` of this group: kills its process group when `killing` (before the wait: until then the
    /// group id cannot belong to another process), forgets it, and waits for it. Its wait status and the resources
    /// it used.
    @discardableResult
    func reap(_ pid: pid_t, killing: Bool) -> (status: Int32, usage: rusage) {
        if killing { kill(-pid, SIGKILL) }
        reaping(pid)
        var status: Int32 = 0
        var usage = rusage()
        _ = DescriptorIO.retrying { wait4(pid, &status, 0, &usage) }
        return (status, usage)
    }

    /// Whether `halt` was called: a frame whose worker ended since was interrupted, not failed, and no
    /// worker starts any more.
    var isHalted: Bool { state.withLock { $0.halted } }

    /// Kills every worker of the group (SIGKILL to its process group) and keeps new ones from starting.
    package func halt() {
        let live = state.withLock { state in
            state.halted = true
            return state.live
        }
        for pid in live { kill(-pid, SIGKILL) }
    }

    /// Kills every live worker's process group, of every render of this process.
    package static func killEveryWorker() {
        for pid in everyWorker.withLock({ $0 }) { kill(-pid, SIGKILL) }
    }
}
