import RenderFarmOutput
import Synchronization

/// Receives progress from a render, on any thread. The engine never prints; the CLI implements
/// this to draw a bar or JSON lines, and tests implement it to observe.
package protocol ProgressObserver: Sendable {
    func renderWillStart(totalFrames: Int, skippedFrames: Int, jobs: [PlannedJob])
    func frameDidFinish(_ event: FrameEvent)
    func renderDidFinish(_ summary: RenderSummary)
    /// The frames being drawn, told once a second while frames are drawn (also when none
    /// finishes): what a notice about a frame that takes long names. The default ignores it.
    func framesInFlight(_ frames: [FrameInFlight])
    /// Something the user should know that does not stop the render (frame keys a worker could not give). The
    /// default ignores it.
    func warning(_ text: String)
}

extension ProgressObserver {
    package func framesInFlight(_ frames: [FrameInFlight]) {}
    package func warning(_ text: String) {}
}

/// One frame finished (or finally failed).
package struct FrameEvent: Sendable {
    package var job: String
    package var index: Int
    package var status: FrameStatus
    package var attempts: Int
    package var error: String?
    package var timings: FrameTimings
    /// The frame this one was written from, when it draws the same and was not drawn.
    package var reusedFrom: Int? = nil
    /// Frames finished so far in this run, and how many the run will render.
    package var finished: Int
    package var total: Int
}

/// What one job's render produced.
package struct JobSummary: Sendable {
    package var name: String
    package var outputDirectory: String
    package var manifestPath: String
    /// Frames this run asked for.
    package var requested: Int
    /// Frames drawn in this run.
    package var rendered: Int
    /// Frames written from an earlier frame that draws the same (equal fingerprints), not drawn.
    package var reused: Int
    /// Frames already done by an earlier run (resume).
    package var skipped: Int
    package var failed: [Int]
    package var missing: [Int]
    package var complete: Bool { missing.isEmpty }
}

/// What a whole render produced.
package struct RenderSummary: Sendable {
    package var jobs: [JobSummary]
    /// Set when a signal stopped the render before every frame was done.
    package var interrupted: Bool
    /// Seconds from the first frame to the last.
    package var elapsed: Double
    /// Sum of per-frame timings over the frames rendered in this run.
    package var timings: FrameTimings

    package var rendered: Int { jobs.reduce(0) { $0 + $1.rendered } }
    package var reused: Int { jobs.reduce(0) { $0 + $1.reused } }
    package var skipped: Int { jobs.reduce(0) { $0 + $1.skipped } }
    package var failedCount: Int { jobs.reduce(0) { $0 + $1.failed.count } }
}

/// A silent observer.
package struct NoProgress: ProgressObserver {
    package init() {}
    package func renderWillStart(totalFrames: Int, skippedFrames: Int, jobs: [PlannedJob]) {}
    package func frameDidFinish(_ event: FrameEvent) {}
    package func renderDidFinish(_ summary: RenderSummary) {}
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    package var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
