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
    /// For each item that left the canvas for good, the sample time at which it had.
    public let departures: [Int: Double]
    init(
        itemCount: Int, samples: Range<Int>, entries: [[PhysicsEntry]], ends: [Int], departures: [Int: Double]
    ) {
        self.itemCount = itemCount
        self.samples = samples
        self.entries = entries
        self.ends = ends
        self.departures = departures
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
/// job draws.
public enum PhysicsSimulation {
    /// Slack when turning times into step numbers, so 0.25 s at 1/240 s is step 60, not 59.
    static let stepSlack = 1e-6

    /// Simulates samples 0 through `last`, whose layer times `time(sample)` never decrease, and records the
    /// samples in `recorded` (clamped to them).
    public static func run(
        _ scene: PhysicsScene, through last: Int, time: (Int) -> Double, recording recorded: Range<Int>
    ) throws(EffectError) -> PhysicsRecording {
        try scene.validate()
        let samples = recorded.clamped(to: 0..<(last + 1))
        var run = try Run(scene: scene)
        var entries: [[PhysicsEntry]] = []
        entries.reserveCapacity(samples.count)
        var stored = 0
        for sample in 0..<(last + 1) {
            let moment = time(sample)
            let changed = try run.advance(
                to: moment < 0 ? -1 : Int((moment / scene.timestep + stepSlack).rounded(.down)))
            let removed = run.takeOut(at: sample, time: moment)
            guard samples.contains(sample) else { continue }
            if changed || removed || entries.isEmpty {
                let list = run.world.live.map { PhysicsEntry(item: $0, state: run.world.state(of: $0)) }
                stored += list.count
                guard stored <= PhysicsLimits.maxRecordedStates else {
                    throw EffectError(
                        parameter: "items",
                        "more than \(PhysicsLimits.maxRecordedStates) item states to keep for frames "
                            + "\(samples.lowerBound)–\(sample) (render in shards or give items a shorter lifetime)")
                }
                entries.append(list)
            } else {
                entries.append(entries[entries.count - 1])
            }
        }
        return PhysicsRecording(
            itemCount: scene.items.count, samples: samples, entries: entries, ends: run.ends,
            departures: run.departures)
    }

    /// Runs a scene once and records it at every one of `sampleTimes` (non-decreasing).
    public static func run(_ scene: PhysicsScene, sampleTimes: [Double]) throws(EffectError) -> PhysicsRecording {
        try run(scene, through: sampleTimes.count - 1, time: { sampleTimes[$0] }, recording: sampleTimes.indices)
    }

    /// One simulation in progress: the world, the items still to enter, and when items end.
    private struct Run {
        let scene: PhysicsScene
        let world: ChipmunkWorld
        var entries: Entries
        let departure: CanvasDeparture?
        /// Items in order of expiry; `nextExpiry` is the first not yet taken out.
        let expiring: [Int]
        var nextExpiry = 0
        var step = 0
        var ends: [Int]
        var departures: [Int: Double] = [:]

        init(scene: PhysicsScene) throws(EffectError) {
            self.scene = scene
            world = try ChipmunkWorld(scene: scene)
            entries = Entries(scene: scene)
            departure = scene.canvas.map { CanvasDeparture(canvas: $0, scene: scene) }
            expiring = scene.items.indices.filter { scene.items[$0].expiry != nil }.sorted {
                (scene.items[$0].expiry ?? 0, $0) < (scene.items[$1].expiry ?? 0, $1)
            }
            ends = Array(repeating: Int.max, count: scene.items.count)
        }

        /// Steps the world to step `target` (nothing for a negative one); whether anything moved or entered.
        mutating func advance(to target: Int) throws(EffectError) -> Bool {
            guard target >= 0 else { return false }
            var changed = try entries.enter(world, at: step)
            while step < target {
                if world.isAsleep && !entries.approaching(at: step) {
                    // Nothing moves until something enters: skip straight to it (or to the target).
                    step = min(target, entries.nextEvent(after: step))
                } else {
                    world.step()
                    step += 1
                    changed = true
                }
                changed = try entries.enter(world, at: step) || changed
            }
            return changed
        }

        /// Takes out the items that expired by `time` and those that left the canvas for good, at `sample`;
        /// whether any was in the world.
        mutating func takeOut(at sample: Int, time: Double) -> Bool {
            var removed = false
            var expired: [Int] = []
            while nextExpiry < expiring.count, let expiry = scene.items[expiring[nextExpiry]].expiry, time >= expiry {
                expired.append(expiring[nextExpiry])
                nextExpiry += 1
            }
            for item in expired.sorted() {
                removed = removed || world.live.contains(item)
                world.remove(item: item)
                ends[item] = sample
            }
            guard let departure else { return removed }
            for item in world.live where departure.hasLeft(scene.items[item].body, world.state(of: item)) {
                // Gone for good: no longer simulated, drawn or traced.
                world.remove(item: item)
                departures[item] = time
                ends[item] = sample
                removed = true
            }
            return removed
        }
    }

    /// Adds items to the world when their time comes, or earlier when their approach runs into an item.
    private struct Entries {
        let scene: PhysicsScene
        let spawnSteps: [Int]
        /// Items in the order they are scheduled to enter (stable for equal steps).
        let arrivals: [Int]
        var next = 0
        /// Items with an approach, in order of the step at which it starts; `nextApproach` is the first
        /// whose approach has not started.
        let approaches: [Int]
        let approachSteps: [Int]
        var nextApproach = 0
        /// Items whose approach has started and that are not in the world yet, by index.
        var onTheWay: [Int] = []

        init(scene: PhysicsScene) {
            self.scene = scene
            let dt = scene.timestep
            let spawnSteps = scene.items.map {
                Int((max(0, $0.spawnTime) / dt - PhysicsSimulation.stepSlack).rounded(.up))
            }
            self.spawnSteps = spawnSteps
            arrivals = scene.items.indices.sorted { (spawnSteps[$0], $0) < (spawnSteps[$1], $1) }
            let starts = scene.items.map { item in
                item.approach.map { Int(($0.start / dt - PhysicsSimulation.stepSlack).rounded(.up)) } ?? Int.max
            }
            let approaches = scene.items.indices.filter { scene.items[$0].approach != nil }.sorted {
                (starts[$0], $0) < (starts[$1], $1)
            }
            self.approaches = approaches
            approachSteps = approaches.map { starts[$0] }
        }

        /// The first step after `step` at which something may enter: a scheduled arrival or the start of an
        /// approach (whose flight must then be checked every step); Int.max when nothing is left.
        func nextEvent(after step: Int) -> Int {
            var next = self.next < arrivals.count ? spawnSteps[arrivals[self.next]] : Int.max
            var index = nextApproach
            while index < approaches.count, approachSteps[index] <= step { index += 1 }
            if index < approaches.count { next = min(next, approachSteps[index]) }
            return next
        }

        /// Whether an item is on its way at `step` (the world must then be stepped, not skipped).
        func approaching(at step: Int) -> Bool {
            onTheWay.contains { step < spawnSteps[$0] }
        }

        /// Adds the items due at `step`; whether any entered.
        mutating func enter(_ world: ChipmunkWorld, at step: Int) throws(EffectError) -> Bool {
            var entered = false
            while next < arrivals.count, spawnSteps[arrivals[next]] <= step {
                if !world.contains(item: arrivals[next]) {
                    try world.add(item: arrivals[next])
                    entered = true
                }
                next += 1
            }
            let time = Double(step) * scene.timestep
            while nextApproach < approaches.count, let approach = scene.items[approaches[nextApproach]].approach,
                time >= approach.start
            {
                let item = approaches[nextApproach]
                onTheWay.insert(item, at: onTheWay.firstIndex { $0 > item } ?? onTheWay.endIndex)
                nextApproach += 1
            }
            var stillApproaching: [Int] = []
            for index in onTheWay where !world.contains(item: index) {
                let item = scene.items[index]
                guard let approach = item.approach else { continue }
                let (position, velocity) = approach.motion(time)
                if world.overlapsItem(item.body, at: position) {
                    try world.add(item: index, at: position, velocity: velocity)
                    entered = true
                } else {
                    stillApproaching.append(index)
                }
            }
            onTheWay = stillApproaching
            return entered
        }
    }

    /// The local (layer) time of frame `frame` of a job.
    public static func frameTime(_ frame: Int, of context: EffectContext) -> Double {
        Double(frame) / context.fps - context.layerStart
    }
}
