import Foundation

/// Hands frames finished by concurrent workers to one writer strictly in sequence order, with
/// at most `capacity` frames rendered ahead of the writer (<doc:VideosAndTimelines>: memory bounded by the
/// frames in flight, never by the frame count).
///
/// A worker calls `waitForRoom(position)` before rendering the frame at `position` (blocking
/// while it is `capacity` or more ahead of the writer), then `put` or `cancel(reason:)`. The
/// writer calls `take()` until it returns nil, and `cancel(reason:)` when it cannot write.
///
/// `@unchecked Sendable`: every stored property is read and written only while `condition` is
/// locked.
final class FrameReorderBuffer<Frame>: @unchecked Sendable {
    let capacity: Int
    private let condition = NSCondition()
    private var next = 0
    private var pending: [Int: Frame] = [:]
    private var closed = false
    private var cancelled = false
    private var reason: String?
    private var received = 0
    private var admitted = 0
    private var peak = 0

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Blocks until the frame at `position` may be rendered. False when the buffer was cancelled.
    func waitForRoom(_ position: Int) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !cancelled && position >= next + capacity { condition.wait() }
        guard !cancelled else { return false }
        admitted += 1
        peak = max(peak, admitted)
        return true
    }

    /// Stores the frame at `position` for the writer; the number of frames put so far.
    @discardableResult
    func put(_ position: Int, _ frame: Frame) -> Int {
        condition.lock()
        defer { condition.unlock() }
        if !cancelled { pending[position] = frame }
        received += 1
        condition.broadcast()
        return received
    }

    /// The next frame in order, waiting for it; nil once the buffer is cancelled, or closed with
    /// the next frame missing.
    func take() -> Frame? {
        condition.lock()
        defer { condition.unlock() }
        while !cancelled && pending[next] == nil && !closed { condition.wait() }
        guard !cancelled, let frame = pending.removeValue(forKey: next) else { return nil }
        next += 1
        admitted -= 1
        condition.broadcast()
        return frame
    }

    /// No more frames will be put (the workers have finished).
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    /// Stops everything: waiting workers and the writer return at once, held frames are dropped.
    /// The first reason given is kept (`failure`).
    func cancel(reason: String? = nil) {
        condition.lock()
        cancelled = true
        self.reason = self.reason ?? reason
        pending.removeAll()
        condition.broadcast()
        condition.unlock()
    }

    /// Why the buffer was cancelled, when a reason was given.
    var failure: String? {
        condition.lock()
        defer { condition.unlock() }
        return reason
    }

    var isCancelled: Bool {
        condition.lock()
        defer { condition.unlock() }
        return cancelled
    }

    /// Frames written so far (the writer's position).
    var written: Int {
        condition.lock()
        defer { condition.unlock() }
        return next
    }

    /// The most frames admitted and not yet taken at any one time (never above `capacity`).
    var peakHeld: Int {
        condition.lock()
        defer { condition.unlock() }
        return peak
    }
}
