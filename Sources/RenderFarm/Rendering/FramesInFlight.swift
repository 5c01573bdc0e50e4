import Locking

/// A frame a worker is drawing, as seen while it draws: for notices about frames that take long.
package struct FrameInFlight: Sendable, Equatable {
    package var job: String
    package var index: Int
    /// The layer being drawn and its plugin id; nil before the first layer, or in a worker process
    /// (`--isolate`), whose layers the engine does not see.
    package var layer: Int?
    package var effect: String?
    /// Seconds since the worker started the frame.
    package var seconds: Double
}

/// What one worker (a lane of the scheduler) is drawing. The worker writes it around each frame
/// and layer; the render's watch reads it once a second.
final class DrawingLane: Sendable {
    private struct Drawing {
        var job: String
        var index: Int
        var layer: Int?
        var effect: String?
        var started: Duration
    }

    private let state = Locked<Drawing?>(nil)
    private let clock: any EngineClock

    init(clock: any EngineClock) {
        self.clock = clock
    }

    func begin(job: String, frame index: Int) {
        let now = clock.uptime
        state.withLock { $0 = Drawing(job: job, index: index, started: now) }
    }

    func layer(_ layer: Int, effect: String) {
        state.withLock { drawing in
            drawing?.layer = layer
            drawing?.effect = effect
        }
    }

    func end() { state.withLock { $0 = nil } }

    var current: FrameInFlight? {
        let now = clock.uptime
        return state.withLock { drawing in
            drawing.map {
                FrameInFlight(
                    job: $0.job, index: $0.index, layer: $0.layer, effect: $0.effect,
                    seconds: (now - $0.started).seconds)
            }
        }
    }
}

/// The lanes of one render, and a ticker that tells the observer once a second what they are
/// drawing (`ProgressObserver.framesInFlight`), so a frame that hangs is named while it hangs.
final class FramesInFlight: Sendable {
    private let lanes = Locked<[DrawingLane]>([])
    private let clock: any EngineClock
    private let ticker: Locked<(any EngineTicker)?> = Locked(nil)

    init(observer: some ProgressObserver, clock: any EngineClock, interval: Duration = .seconds(1)) {
        self.clock = clock
        let started = clock.every(interval) { [weak self] in
            guard let self else { return }
            observer.framesInFlight(lanes.withLock { $0.compactMap(\.current) })
        }
        ticker.withLock { $0 = started }
    }

    /// A new lane, watched until `stop`.
    func lane() -> DrawingLane {
        let lane = DrawingLane(clock: clock)
        lanes.withLock { $0.append(lane) }
        return lane
    }

    /// Stops the ticker; no call to the observer starts after it returns.
    func stop() {
        ticker.withLock { $0 }?.stop()
    }
}
