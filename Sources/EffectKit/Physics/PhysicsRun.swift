extension PhysicsSimulation {
    /// One simulation in progress: the world, the items still to enter, and when items end.
    struct Run {
        let scene: PhysicsScene
        /// Replaced by a rebuilt one at every epoch boundary.
        private(set) var world: ChipmunkWorld
        var entries: Entries
        let departure: CanvasDeparture?
        /// Items in order of expiry; `nextExpiry` is the first not yet taken out.
        let expiring: [Int]
        var nextExpiry = 0
        var step = 0
        var ends: [Int]
        var departures: [Int: Double] = [:]
        /// The items' bouncing contacts since the run began, in order.
        var impacts: [PhysicsImpact] = []

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

        /// The state before `sample`, for a checkpoint.
        func checkpoint(before sample: Int) -> PhysicsCheckpoint {
            PhysicsCheckpoint(
                sample: sample, step: step, nextArrival: entries.next, nextApproach: entries.nextApproach,
                nextExpiry: nextExpiry, onTheWay: entries.onTheWay, ended: world.endedItems,
                bodies: world.bodyStates())
        }

        /// Continues from `checkpoint` in a world rebuilt from it: what every run does at an epoch boundary,
        /// so that a run resumed from a saved checkpoint and one that went through it agree bit for bit.
        /// Items that ended before and are not known to have (a resumed run) end at the checkpoint's sample.
        mutating func restore(_ checkpoint: PhysicsCheckpoint) throws(EffectError) {
            world = try ChipmunkWorld(scene: scene, restoring: checkpoint.bodies, ended: checkpoint.ended)
            entries.next = checkpoint.nextArrival
            entries.nextApproach = checkpoint.nextApproach
            entries.onTheWay = checkpoint.onTheWay
            nextExpiry = checkpoint.nextExpiry
            step = checkpoint.step
            for item in checkpoint.ended where ends[item] == Int.max { ends[item] = checkpoint.sample }
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
                    step += 1
                    impacts += world.step(endingAt: Double(step) * scene.timestep)
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
    struct Entries {
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
}
