import Locking

/// A layer's simulation as an effect plays it back: a bounded probe in `create` for the canvas warning,
/// then the frames a run renders, simulated in `prepare` from the layer's start up to the last of them.
/// A host that never calls `prepare` gets the whole job, simulated once on first use; a frame outside the
/// prepared ones (e.g. the frame `preview --debug` traces for the items' paths) is simulated on its own.
/// Given the job's cache folder, `prepare` resumes from the latest checkpoint there and saves those it
/// passes (``PhysicsCheckpoints``), and so does a frame outside the prepared ones.
public struct PhysicsPlayback: Sendable {
    public let scene: PhysicsScene
    private let context: EffectContext
    /// Items that leave the canvas during the probe (`validate` and `render` print it).
    public let warning: EffectError?
    /// The recording of the frames `prepare` named.
    private var prepared: PhysicsRecording?
    /// The job's cache folder `prepare` was given, if any.
    private var cache: EffectCache?
    /// The whole job's recording, made on first use when `prepare` was not called.
    private let whole = WholeJob()

    private final class WholeJob: Sendable {
        let recording = Locked<PhysicsRecording?>(nil)
    }

    /// Checks the scene and probes its first `PhysicsLimits.warningProbe` seconds: the cost of `create`
    /// does not grow with the layer's length.
    public init(scene: PhysicsScene, context: EffectContext) throws(EffectError) {
        try scene.validate()
        self.scene = scene
        self.context = context
        let probeEnd = Int(((context.layerStart + PhysicsLimits.warningProbe) * context.fps).rounded(.down))
        let last = min(context.frameCount - 1, probeEnd)
        let probe = try PhysicsSimulation.run(
            scene, through: last, time: { PhysicsSimulation.frameTime($0, of: context) }, recording: 0..<0)
        warning = PhysicsBounds.warning(
            probe, within: last < context.frameCount - 1 ? PhysicsLimits.warningProbe : nil)
    }

    /// Every impact from the layer's start through the job's last frame, simulated once without recording any
    /// state.
    public func impacts() throws(EffectError) -> [PhysicsImpact] {
        let context = context
        return try PhysicsSimulation.run(
            scene, through: context.frameCount - 1, time: { PhysicsSimulation.frameTime($0, of: context) },
            recording: 0..<0
        ).impacts
    }

    /// Simulates up to the last of `frames`, keeping states for `frames` only, from the latest checkpoint
    /// in `cache` at or before the first of them (from the layer's start without one).
    public mutating func prepare(frames: ClosedRange<Int>, cache: EffectCache? = nil) throws(EffectError) {
        self.cache = cache
        prepared = try record(frames.lowerBound..<(frames.upperBound + 1))
    }

    /// The recording that holds `frame`: the prepared one, a recording of `frame` alone when it lies
    /// outside (simulated from the layer's start, kept by no one), or the whole job's.
    public func recording(for frame: Int) throws(EffectError) -> PhysicsRecording {
        if let prepared {
            return prepared.samples.contains(frame) ? prepared : try record(frame..<(frame + 1))
        }
        let context = context
        return try whole.recording.withLock { (recording) throws(EffectError) -> PhysicsRecording in
            if let recording { return recording }
            let made = try record(0..<max(1, context.frameCount))
            recording = made
            return made
        }
    }

    private func record(_ frames: Range<Int>) throws(EffectError) -> PhysicsRecording {
        let context = context
        if let cache {
            let checkpoints = PhysicsCheckpoints(cache: cache, fps: context.fps, layerStart: context.layerStart)
            return try PhysicsSimulation.run(
                scene, through: frames.upperBound - 1, recording: frames, checkpoints: checkpoints)
        }
        return try PhysicsSimulation.run(
            scene, through: frames.upperBound - 1, time: { PhysicsSimulation.frameTime($0, of: context) },
            recording: frames)
    }
}
