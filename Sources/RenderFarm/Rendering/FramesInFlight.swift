import Dispatch
import Locking

/// A frame a worker is drawing, as seen while it draws: for notices about frames that take long.
public struct FrameInFlight: Sendable, Equatable {
    public var job: String
    public var index: Int
    /// The layer being drawn and its plugin id; nil before the first layer, or in a worker process
    /// (`--isolate`), whose layers the engine does not see.
    public var layer: Int?
    public var effect: String?
    /// Seconds since the worker started the frame.
    public var seconds: Double
}

/// What one worker (a lane of the scheduler) is drawing. The worker writes it around each frame
/// and layer; the render's watch reads it once a second.
final class DrawingLane: Sendable {
    private struct Drawing {
        var job: String
        var index: Int
        var layer: Int?
        var effect: String?
        var started: ContinuousClock.Instant
    }

    private let state = Locked<Drawing?>(nil)

    func begin(job: String, frame index: Int) {
        state.withLock { $0 = Drawing(job: job, index: index, started: .now) }
    }

    func layer(_ layer: Int, effect: String) {
        state.withLock { drawing in
            drawing?.layer = layer
            drawing?.effect = effect
        }
    }

    func end() { state.withLock { $0 = nil } }

    var current: FrameInFlight? {
        state.withLock { drawing in
            drawing.map {
                FrameInFlight(
                    job: $0.job, index: $0.index, layer: $0.layer, effect: $0.effect,
                    seconds: (ContinuousClock.now - $0.started).seconds)
            }
        }
    }
}

/// The lanes of one render, and a timer that tells the observer once a second what they are
/// drawing (`ProgressObserver.framesInFlight`), so a frame that hangs is named while it hangs.
final class FramesInFlight: Sendable {
    private let lanes = Locked<[DrawingLane]>([])
    /// Dispatch sources are thread-safe (set up in `init`, cancelled once from any thread), but the
    /// protocol is not marked Sendable.
    nonisolated(unsafe) private let timer: any DispatchSourceTimer
    private let queue = DispatchQueue(label: "renderfarm.in-flight")

    init(observer: some ProgressObserver, interval: Duration = .seconds(1)) {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        self.timer = timer
        let nanoseconds = Int(interval.seconds * 1e9)
        timer.schedule(deadline: .now() + .nanoseconds(nanoseconds), repeating: .nanoseconds(nanoseconds))
        timer.setEventHandler { [weak self] in
            guard let self else { return }
            observer.framesInFlight(lanes.withLock { $0.compactMap(\.current) })
        }
        timer.resume()
    }

    /// A new lane, watched until `stop`.
    func lane() -> DrawingLane {
        let lane = DrawingLane()
        lanes.withLock { $0.append(lane) }
        return lane
    }

    /// Stops the timer; no call to the observer starts after it returns.
    func stop() {
        timer.cancel()
        // The handler runs on `queue`: one running now finishes before this empty block runs.
        queue.sync {}
    }
}
