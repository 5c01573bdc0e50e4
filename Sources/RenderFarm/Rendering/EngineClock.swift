import Dispatch
import Foundation
import Locking

/// The time a render reads: wall-clock time for what it records, monotonic time for what it
/// measures, and a ticker for what it watches. The program uses ``SystemClock``; a test passes a
/// ``ManualClock`` (`RenderOptions.clock`) and moves time itself, the way swift-nio's
/// `EmbeddedEventLoop` lets tests drive time, so nothing in it waits for real seconds.
///
/// The clock governs time the engine acts on or writes down: a render's `elapsed`, how long a frame
/// has been in flight (the stuck-frame notice), and when a journal's run finished. The per-step
/// timings of a frame (draw, convert, encode, write) stay measurements of real work.
package protocol EngineClock: Sendable {
    /// Now, on the wall clock.
    var date: Date { get }
    /// Now, on a monotonic clock from an arbitrary origin.
    var uptime: Duration { get }
    /// Calls `tick` every `interval`, first after one `interval`, until the ticker is stopped.
    func every(_ interval: Duration, _ tick: @escaping @Sendable () -> Void) -> any EngineTicker
}

/// A repeating call started by `EngineClock.every`.
package protocol EngineTicker: Sendable {
    /// Ends the ticks: no tick starts after `stop` returns, and one running finishes first.
    func stop()
}

/// The real clocks: `Date()`, `ContinuousClock` and a Dispatch timer.
package struct SystemClock: EngineClock {
    private static let origin = ContinuousClock.now

    package init() {}

    package var date: Date { Date() }
    package var uptime: Duration { ContinuousClock.now - Self.origin }

    package func every(_ interval: Duration, _ tick: @escaping @Sendable () -> Void) -> any EngineTicker {
        DispatchTicker(interval: interval, tick: tick)
    }
}

/// A Dispatch timer on a queue of its own.
private final class DispatchTicker: EngineTicker {
    /// Dispatch sources are thread-safe (set up in `init`, cancelled once from any thread), but the
    /// protocol is not marked Sendable.
    nonisolated(unsafe) private let timer: any DispatchSourceTimer
    private let queue = DispatchQueue(label: "renderfarm.clock")

    init(interval: Duration, tick: @escaping @Sendable () -> Void) {
        timer = DispatchSource.makeTimerSource(queue: queue)
        let nanoseconds = Int(interval.seconds * 1e9)
        timer.schedule(deadline: .now() + .nanoseconds(nanoseconds), repeating: .nanoseconds(nanoseconds))
        timer.setEventHandler(handler: tick)
        timer.resume()
    }

    func stop() {
        timer.cancel()
        // The handler runs on `queue`: one running now finishes before this empty block runs.
        queue.sync {}
    }
}

/// A clock that moves only when told (`advance(by:)`), running the ticks that fall due on the
/// caller's thread, in time order (at one time, in the order the tickers were started). Starts at `date` and an uptime of zero.
package final class ManualClock: EngineClock {
    private struct Ticking {
        var interval: Duration
        var next: Duration
        var tick: @Sendable () -> Void
    }

    private struct State {
        var date: Date
        var uptime: Duration = .zero
        var tickers: [Int: Ticking] = [:]
        var nextID = 0
    }

    private let state: Locked<State>

    package init(date: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        state = Locked(State(date: date))
    }

    package var date: Date { state.withLock { $0.date } }
    package var uptime: Duration { state.withLock { $0.uptime } }

    package func every(_ interval: Duration, _ tick: @escaping @Sendable () -> Void) -> any EngineTicker {
        let id = state.withLock { state in
            state.nextID += 1
            state.tickers[state.nextID] = Ticking(interval: interval, next: state.uptime + interval, tick: tick)
            return state.nextID
        }
        return ManualTicker { [weak self] in self?.state.withLock { _ = $0.tickers.removeValue(forKey: id) } }
    }

    /// Moves both clocks on by `duration`, running each tick due on the way at its own time.
    package func advance(by duration: Duration) {
        let end = state.withLock { $0.uptime + duration }
        while let tick = nextDue(before: end) { tick() }
        state.withLock { state in
            state.date += (end - state.uptime).seconds
            state.uptime = end
        }
    }

    /// The earliest tick due at or before `end`, with the clock moved to its time and the ticker
    /// rescheduled; nil when none is due.
    private func nextDue(before end: Duration) -> (@Sendable () -> Void)? {
        state.withLock { state in
            // Ticks due at one time run in the order they were started.
            let due = state.tickers.filter { $0.value.next <= end }
            guard let (id, due) = due.min(by: { ($0.value.next, $0.key) < ($1.value.next, $1.key) }) else { return nil }
            state.date += (due.next - state.uptime).seconds
            state.uptime = due.next
            state.tickers[id]?.next += due.interval
            return due.tick
        }
    }
}

private struct ManualTicker: EngineTicker {
    let cancel: @Sendable () -> Void
    func stop() { cancel() }
}
