import Glibc

/// A value shared between threads, only reached through `withLock`: the project's one lock type.
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

    public init(_ initialValue: sending Value) {
        value = initialValue
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
        self.mutex = mutex
        ownsMutex = false
    }

    deinit {
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
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
