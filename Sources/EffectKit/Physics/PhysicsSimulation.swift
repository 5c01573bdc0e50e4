import Foundation

/// One item's state at one sample time.
public struct PhysicsState: Sendable, Equatable {
    /// Centre in points.
    public var position: Point
    /// Velocity in points/s.
    public var velocity: Point
    /// Rotation in radians (0 unless `allowsRotation`).
    public var angle: Double
    /// Whether the item has been added to the world yet.
    public var present: Bool
    /// Whether the item is at rest (asleep: 0.5 s below 1 pt/s).
    public var resting: Bool
    /// Whether the item has left the canvas for good and was dropped from the simulation.
    public var departed = false

    public init(position: Point, velocity: Point, angle: Double, present: Bool, resting: Bool) {
        self.position = position
        self.velocity = velocity
        self.angle = angle
        self.present = present
        self.resting = resting
    }

    /// An item that is not in the world (yet).
    public static let absent = PhysicsState(position: .zero, velocity: .zero, angle: 0, present: false, resting: false)

    /// An item that has left the canvas for good (see `PhysicsScene.canvas`).
    public static let gone: PhysicsState = {
        var state = absent
        state.departed = true
        return state
    }()
}

/// The moment an item struck a barrier or another item hard enough to bounce (faster than the scene's
/// `restThreshold`): the first step of a contact. A contact of two items is the lower-numbered one's.
public struct PhysicsImpact: Sendable, Equatable {
    /// The item's index in the scene.
    public var item: Int
    /// When it touched, in layer seconds: where the sweep stopped it at a barrier, or else the overlap
    /// Chipmunk found taken back at the approach speed, within the step.
    public var time: Double
}

/// One item drawn at one sample: its index in the scene and its state.
public struct PhysicsEntry: Sendable, Equatable {
    public var item: Int
    public var state: PhysicsState
}

/// The states of the items in the world at the samples a run renders, computed once. Items absent
/// from a sample (not added yet, expired or gone) take no memory there, and samples across which
/// nothing moved share one list.
public struct PhysicsRecording: Sendable {
    public let itemCount: Int
    /// The samples recorded (usually the frames a run renders); empty when only departures were wanted.
    public let samples: Range<Int>
    /// Per recorded sample, the items in the world in index order.
    private let entries: [[PhysicsEntry]]
    /// Per item, the first sample at which it is no longer drawn (expired or gone); Int.max while it stays.
    private let ends: [Int]
    /// For each item that left the canvas for good, the sample time at which it had (a run resumed from a
    /// checkpoint knows only those after it).
    public let departures: [Int: Double]
    /// The items' bouncing contacts the run went through, in order (a run resumed from a checkpoint knows only
    /// those after it).
    public let impacts: [PhysicsImpact]
    init(
        itemCount: Int, samples: Range<Int>, entries: [[PhysicsEntry]], ends: [Int], departures: [Int: Double],
        impacts: [PhysicsImpact]
    ) {
        self.itemCount = itemCount
        self.samples = samples
        self.entries = entries
        self.ends = ends
        self.departures = departures
        self.impacts = impacts
    }

    /// The items in the world at `sample`, in index order; empty outside the recorded samples.
    public func present(atSample sample: Int) -> [PhysicsEntry] {
        samples.contains(sample) ? entries[sample - samples.lowerBound] : []
    }

    /// The state of `item` at `sample`: absent outside the recording or before the item enters, gone once
    /// it expired or left the canvas.
    public func state(ofItem item: Int, atSample sample: Int) -> PhysicsState {
        guard (0..<itemCount).contains(item), samples.contains(sample) else { return .absent }
        if sample >= ends[item] { return .gone }
        let list = present(atSample: sample)
        let low = SortedIndex.first(in: list.count) { list[$0].item >= item }
        return low < list.count && list[low].item == item ? list[low].state : .absent
    }
}

/// Runs a scene with a fixed step and records it at sample times (<doc:UIKitDynamics>, "Time"), streaming:
/// only the items in the world are stepped, and states are kept only for the samples asked for.
///
/// The state at time t is the state after the last whole step at or before t (no interpolation, so an item
/// is never drawn inside an edge it did not reach). An item is added at the first step boundary at or after
/// its spawn time, and taken out at the first sample at or after its expiry or at which it has left the
/// canvas for good. While every item in the world sleeps and none is on its way, the world is not stepped
/// (empty and resting spans cost nothing). A run is a function of the samples up to its last one: the same
/// sample has the same state whatever range is recorded, so a shard far into a job draws what the whole
/// job draws. After every `epochSamples` samples the world is rebuilt from its checkpoint, which a later run
/// may resume from (``PhysicsCheckpoints``).
public enum PhysicsSimulation {
    /// Slack when turning times into step numbers, so 0.25 s at 1/240 s is step 60, not 59.
    static let stepSlack = 1e-6

    /// Samples per epoch: after every epoch a run rebuilds its world from its checkpoint (a minute at 60 fps;
    /// see <doc:StreamLengthEffects>, "Physics checkpoints").
    public static let epochSamples = 3600

    /// Simulates samples 0 through `last`, whose layer times `time(sample)` never decrease, and records the
    /// samples in `recorded` (clamped to them). `epoch` is the number of samples per epoch.
    public static func run(
        _ scene: PhysicsScene, through last: Int, time: (Int) -> Double, recording recorded: Range<Int>,
        epoch: Int = epochSamples
    ) throws(EffectError) -> PhysicsRecording {
        try simulate(scene, through: last, time: time, recording: recorded, epoch: max(1, epoch), checkpoints: nil)
    }

    /// `run(_:through:time:recording:epoch:)` at the checkpoints' times and epochs, resuming from the latest
    /// checkpoint in their cache at or before the first recorded sample, and saving each one passed that the
    /// cache lacks. The states are the same as without checkpoints, bit for bit.
    public static func run(
        _ scene: PhysicsScene, through last: Int, recording recorded: Range<Int>, checkpoints: PhysicsCheckpoints
    ) throws(EffectError) -> PhysicsRecording {
        try simulate(
            scene, through: last, time: checkpoints.time, recording: recorded, epoch: checkpoints.epoch,
            checkpoints: checkpoints)
    }

    private static func simulate(
        _ scene: PhysicsScene, through last: Int, time: (Int) -> Double, recording recorded: Range<Int>,
        epoch: Int, checkpoints: PhysicsCheckpoints?
    ) throws(EffectError) -> PhysicsRecording {
        try scene.validate()
        let samples = recorded.clamped(to: 0..<(last + 1))
        let keys = checkpoints?.keys(scene, through: last) ?? []
        var run = try Run(scene: scene)
        let first = try resume(
            &run, before: samples.isEmpty ? last : samples.lowerBound, keys: keys, checkpoints: checkpoints)
        var entries: [[PhysicsEntry]] = []
        entries.reserveCapacity(samples.count)
        var stored = 0
        for sample in first..<max(first, last + 1) {
            let moment = time(sample)
            let changed = try run.advance(
                to: moment < 0 ? -1 : Int((moment / scene.timestep + stepSlack).rounded(.down)))
            let removed = run.takeOut(at: sample, time: moment)
            if samples.contains(sample) {
                if changed || removed || entries.isEmpty {
                    let list = run.world.live.map { PhysicsEntry(item: $0, state: run.world.state(of: $0)) }
                    stored += list.count
                    try checkStored(stored, samples.lowerBound, sample)
                    entries.append(list)
                } else {
                    entries.append(entries[entries.count - 1])
                }
            }
            guard (sample + 1) % epoch == 0, sample < last else { continue }
            let checkpoint = run.checkpoint(before: sample + 1)
            try run.restore(checkpoint)
            let index = (sample + 1) / epoch
            if let checkpoints, index <= keys.count {
                checkpoints.save(checkpoint, epoch: index, key: keys[index - 1], scene: scene)
            }
        }
        return PhysicsRecording(
            itemCount: scene.items.count, samples: samples, entries: entries, ends: run.ends,
            departures: run.departures, impacts: run.impacts)
    }

    /// Restores `run` from the latest checkpoint in the cache at or before `sample`; the sample to go on from.
    private static func resume(
        _ run: inout Run, before sample: Int, keys: [FrameKey], checkpoints: PhysicsCheckpoints?
    ) throws(EffectError) -> Int {
        guard let checkpoints else { return 0 }
        for index in stride(from: min(keys.count, sample / checkpoints.epoch), to: 0, by: -1) {
            guard let checkpoint = checkpoints.load(epoch: index, key: keys[index - 1], scene: run.scene) else {
                continue
            }
            try run.restore(checkpoint)
            return checkpoint.sample
        }
        return 0
    }

    private static func checkStored(_ stored: Int, _ first: Int, _ sample: Int) throws(EffectError) {
        guard stored > PhysicsLimits.maxRecordedStates else { return }
        throw EffectError(
            parameter: "items",
            "more than \(PhysicsLimits.maxRecordedStates) item states to keep for frames "
                + "\(first)–\(sample) (render in shards or give items a shorter lifetime)")
    }

    /// Runs a scene once and records it at every one of `sampleTimes` (non-decreasing).
    public static func run(_ scene: PhysicsScene, sampleTimes: [Double]) throws(EffectError) -> PhysicsRecording {
        try run(scene, through: sampleTimes.count - 1, time: { sampleTimes[$0] }, recording: sampleTimes.indices)
    }

    /// The local (layer) time of frame `frame` of a job.
    public static func frameTime(_ frame: Int, of context: EffectContext) -> Double {
        Double(frame) / context.fps - context.layerStart
    }
}
