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

/// The states of every item at every sample time, computed once.
public struct PhysicsRecording: Sendable {
    public let itemCount: Int
    /// The sample times (layer seconds), usually one per frame.
    public let sampleTimes: [Double]
    /// Sample-major: the states of sample s are `states[s * itemCount ..< (s + 1) * itemCount]`.
    private let states: [PhysicsState]
    /// For each item, the sample time at which it had left the canvas for good; nil when it never did.
    public let departures: [Double?]

    init(itemCount: Int, sampleTimes: [Double], states: [PhysicsState], departures: [Double?]? = nil) {
        self.itemCount = itemCount
        self.sampleTimes = sampleTimes
        self.states = states
        self.departures = departures ?? Array(repeating: nil, count: itemCount)
    }

    /// The state of `item` at sample `sample`; absent outside the recording.
    public func state(ofItem item: Int, atSample sample: Int) -> PhysicsState {
        guard (0..<itemCount).contains(item), sampleTimes.indices.contains(sample) else { return .absent }
        return states[sample * itemCount + item]
    }
}

/// Runs a scene once with a fixed step and records it at the sample times (<doc:UIKitDynamics>, "Time").
///
/// The state at time t is the state after the last whole step at or before t (no interpolation, so an item
/// is never drawn inside an edge it did not reach). An item is added at the first step boundary at or after
/// its spawn time. Once every item sleeps and none is still to come, the remaining samples repeat the state.
public enum PhysicsSimulation {
    /// Slack when turning times into step numbers, so 0.25 s at 1/240 s is step 60, not 59.
    static let stepSlack = 1e-6

    public static func run(_ scene: PhysicsScene, sampleTimes: [Double]) throws(EffectError) -> PhysicsRecording {
        try scene.validate()
        let count = scene.items.count
        guard count * sampleTimes.count <= PhysicsLimits.maxRecordedStates else {
            throw EffectError(
                parameter: "items",
                "\(count) items × \(sampleTimes.count) frames is more than \(PhysicsLimits.maxRecordedStates) states")
        }
        let dt = scene.timestep
        let sampleSteps = sampleTimes.map { $0 < 0 ? -1 : Int(($0 / dt + stepSlack).rounded(.down)) }
        let spawnSteps = scene.items.map { Int((max(0, $0.spawnTime) / dt - stepSlack).rounded(.up)) }
        let lastStep = sampleSteps.max() ?? -1
        let itemSteps = spawnSteps.reduce(0) { $0 + max(0, lastStep - $1) }
        guard itemSteps <= PhysicsLimits.maxItemSteps else {
            throw EffectError(
                parameter: "items",
                "simulating \(count) items for \(Double(lastStep) * dt) s is too much work (shorten the layer)")
        }
        let world = try ChipmunkWorld(scene: scene)
        var entries = Entries(scene: scene, spawnSteps: spawnSteps)
        var states = [PhysicsState](repeating: .absent, count: count * sampleTimes.count)
        let departure = scene.canvas.map { CanvasDeparture(canvas: $0, scene: scene) }
        var departures = [Double?](repeating: nil, count: count)
        // Samples in time order; frames usually come sorted already.
        let order = sampleTimes.indices.sorted { (sampleSteps[$0], $0) < (sampleSteps[$1], $1) }
        var step = 0
        for sample in order where sampleSteps[sample] >= 0 {
            let target = sampleSteps[sample]
            try entries.enter(world, at: step)
            while step < target {
                if world.isAsleep && !entries.approaching(at: step) {
                    // Nothing moves until something enters: skip straight to it (or to the target).
                    step = min(target, entries.nextEvent(after: step))
                } else {
                    world.step()
                    step += 1
                }
                try entries.enter(world, at: step)
            }
            for item in 0..<count {
                var state = world.state(of: item)
                if let departure, departures[item] == nil, departure.hasLeft(scene.items[item].body, state) {
                    // Gone for good: no longer simulated, drawn or traced.
                    world.remove(item: item)
                    departures[item] = sampleTimes[sample]
                    state = .gone
                }
                states[sample * count + item] = departures[item] == nil ? state : .gone
            }
        }
        return PhysicsRecording(itemCount: count, sampleTimes: sampleTimes, states: states, departures: departures)
    }

    /// Adds items to the world when their time comes, or earlier when their approach runs into an item.
    private struct Entries {
        let scene: PhysicsScene
        let spawnSteps: [Int]
        /// Items in the order they are scheduled to enter (stable for equal steps).
        let arrivals: [Int]
        var next = 0
        /// Items with an approach, not yet in the world.
        var onTheWay: [Int]

        init(scene: PhysicsScene, spawnSteps: [Int]) {
            self.scene = scene
            self.spawnSteps = spawnSteps
            arrivals = scene.items.indices.sorted { (spawnSteps[$0], $0) < (spawnSteps[$1], $1) }
            onTheWay = scene.items.indices.filter { scene.items[$0].approach != nil }
        }

        /// The first step after `step` at which something may enter: a scheduled arrival or the start of an
        /// approach (whose flight must then be checked every step); Int.max when nothing is left.
        func nextEvent(after step: Int) -> Int {
            var next = self.next < arrivals.count ? spawnSteps[arrivals[self.next]] : Int.max
            for index in onTheWay {
                guard let approach = scene.items[index].approach else { continue }
                let start = Int((approach.start / scene.timestep - PhysicsSimulation.stepSlack).rounded(.up))
                if start > step { next = min(next, start) }
            }
            return next
        }

        /// Whether an item is on its way at `step` (the world must then be stepped, not skipped).
        func approaching(at step: Int) -> Bool {
            onTheWay.contains { index in
                guard let approach = scene.items[index].approach else { return false }
                return Double(step) * scene.timestep >= approach.start && step < spawnSteps[index]
            }
        }

        mutating func enter(_ world: ChipmunkWorld, at step: Int) throws(EffectError) {
            while next < arrivals.count, spawnSteps[arrivals[next]] <= step {
                if !world.contains(item: arrivals[next]) { try world.add(item: arrivals[next]) }
                next += 1
            }
            let time = Double(step) * scene.timestep
            var stillApproaching: [Int] = []
            for index in onTheWay where !world.contains(item: index) {
                let item = scene.items[index]
                guard let approach = item.approach, time >= approach.start else {
                    stillApproaching.append(index)
                    continue
                }
                let (position, velocity) = approach.motion(time)
                if world.overlapsItem(item.body, at: position) {
                    try world.add(item: index, at: position, velocity: velocity)
                } else {
                    stillApproaching.append(index)
                }
            }
            onTheWay = stillApproaching
        }
    }

    /// The local (layer) time of every frame of a job: the usual sample times of an effect.
    public static func frameTimes(of context: EffectContext) -> [Double] {
        (0..<max(0, context.frameCount)).map { Double($0) / context.fps - context.layerStart }
    }
}
