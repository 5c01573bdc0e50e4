import RenderFarmOutput
import Synchronization

/// Receives progress from a render, on any thread. The engine never prints; the CLI implements
/// this to draw a bar or JSON lines, and tests implement it to observe.
public protocol ProgressObserver: Sendable {
    func renderWillStart(totalFrames: Int, skippedFrames: Int, jobs: [PlannedJob])
    func frameDidFinish(_ event: FrameEvent)
    func renderDidFinish(_ summary: RenderSummary)
    /// The frames being drawn, told once a second while frames are drawn (also when none
    /// finishes): what a notice about a frame that takes long names. The default ignores it.
    func framesInFlight(_ frames: [FrameInFlight])
}

extension ProgressObserver {
    public func framesInFlight(_ frames: [FrameInFlight]) {}
}

/// One frame finished (or finally failed).
public struct FrameEvent: Sendable {
    public var job: String
    public var index: Int
    public var status: FrameStatus
    public var attempts: Int
    public var error: String?
    public var timings: FrameTimings
    /// The frame this one was written from, when it draws the same and was not drawn.
    public var reusedFrom: Int? = nil
    /// Frames finished so far in this run, and how many the run will render.
    public var finished: Int
    public var total: Int
}

/// What one job's render produced.
public struct JobSummary: Sendable {
    public var name: String
    public var outputDirectory: String
    public var manifestPath: String
    /// Frames this run asked for.
    public var requested: Int
    /// Frames drawn in this run.
    public var rendered: Int
    /// Frames written from an earlier frame that draws the same (equal fingerprints), not drawn.
    public var reused: Int
    /// Frames already done by an earlier run (resume).
    public var skipped: Int
    public var failed: [Int]
    public var missing: [Int]
    public var complete: Bool { missing.isEmpty }
}

/// What a whole render produced.
public struct RenderSummary: Sendable {
    public var jobs: [JobSummary]
    /// Set when a signal stopped the render before every frame was done.
    public var interrupted: Bool
    /// Seconds from the first frame to the last.
    public var elapsed: Double
    /// Sum of per-frame timings over the frames rendered in this run.
    public var timings: FrameTimings

    public var rendered: Int { jobs.reduce(0) { $0 + $1.rendered } }
    public var reused: Int { jobs.reduce(0) { $0 + $1.reused } }
    public var skipped: Int { jobs.reduce(0) { $0 + $1.skipped } }
    public var failedCount: Int { jobs.reduce(0) { $0 + $1.failed.count } }
}

/// Set from a signal handler (or a test) to stop taking new frames.
public final class StopSignal: Sendable {
    private let flag = Atomic<Bool>(false)

    public init() {}

    public func stop() { flag.store(true, ordering: .relaxed) }

    public var isStopped: Bool { flag.load(ordering: .relaxed) }
}

/// A silent observer.
public struct NoProgress: ProgressObserver {
    public init() {}
    public func renderWillStart(totalFrames: Int, skippedFrames: Int, jobs: [PlannedJob]) {}
    public func frameDidFinish(_ event: FrameEvent) {}
    public func renderDidFinish(_ summary: RenderSummary) {}
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    public var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
