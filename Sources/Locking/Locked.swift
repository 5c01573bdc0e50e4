import Glibc

/// A value shared between threads, only reached through `withLock`: the project's one lock type. A thread can
/// also wait for the value to change (`withLock(when:_:)`).
///
/// It has the shape of `Synchronization.Mutex` (`let state = Locked(State())`, `state.withLock { … }`)
/// but locks a `pthread_mutex_t`, which ThreadSanitizer intercepts. `Mutex` on Linux locks a futex
/// word inside the standard library, out of TSan's sight, so every critical section behind one
/// looked like a data race (README, "Sanitizers").
///
/// `@unchecked Sendable`: `value` is only read or written between `pthread_mutex_lock` and
/// `pthread_mutex_unlock` on `mutex`, and it enters and leaves as `sending`, so a non-`Sendable`
/// value cannot stay reachable from two threads (the same contract as `Mutex`). The mutex lives in
/// its own allocation because a `pthread_mutex_t` must not move while in use.
public final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// Whether `mutex` is this lock's own, made by it and destroyed with it.
    private let ownsMutex: Bool
    private var value: Value
    /// Signalled when a `withLock` ends while a thread waits in `withLock(when:_:)`.
    private let changed: UnsafeMutablePointer<pthread_cond_t>
    /// How many threads wait on `changed`; read and written under the lock.
    private var waiters = 0

    public init(_ initialValue: sending Value) {
        value = initialValue
        changed = Self.makeCondition()
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(mutex, nil)
        precondition(status == 0, "pthread_mutex_init failed: \(status)")
        ownsMutex = true
    }

    /// A value behind a mutex made elsewhere, which must outlive this lock and which other code may lock too: the
    /// text plugin's, which every copy of the plugin loaded into a process shares. It is never destroyed here.
    public init(_ initialValue: sending Value, sharing mutex: UnsafeMutablePointer<pthread_mutex_t>) {
        value = initialValue
        changed = Self.makeCondition()
        self.mutex = mutex
        ownsMutex = false
    }

    private static func makeCondition() -> UnsafeMutablePointer<pthread_cond_t> {
        let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        let status = pthread_cond_init(condition, nil)
        precondition(status == 0, "pthread_cond_init failed: \(status)")
        return condition
    }

    deinit {
        pthread_cond_destroy(changed)
        changed.deinitialize(count: 1)
        changed.deallocate()
        guard ownsMutex else { return }
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with the value while holding the lock; what `body` returns or throws is passed on.
    /// Not reentrant: calling `withLock` on the same lock inside `body` deadlocks.
    public func withLock<Result, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { unlockWakingWaiters() }
        return try body(&value)
    }

    /// Like `withLock`, but first sleeps until `ready` holds for the value, which only another thread's `withLock`
    /// can bring about: `ready` is checked now and again after each `withLock` that ends while this thread waits.
    public func withLock<Result, E: Error>(
        when ready: (Value) -> Bool, _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { unlockWakingWaiters() }
        while !ready(value) {
            waiters += 1
            pthread_cond_wait(changed, mutex)
            waiters -= 1
        }
        return try body(&value)
    }

    private func unlockWakingWaiters() {
        if waiters > 0 { pthread_cond_broadcast(changed) }
        pthread_mutex_unlock(mutex)
    }
}
