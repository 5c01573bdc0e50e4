import CChipmunk
import Foundation

// All of EffectKit's contact with Chipmunk's C API is in this file.
//
// Why the unsafe code is safe:
// - A `ChipmunkWorld` owns its space, bodies and shapes; it is created, stepped and freed on one thread
//   inside `PhysicsSimulation.run` and never escapes it (not Sendable). deinit frees what init made, also
//   when init throws after creating the space.
// - Chipmunk calls back into Swift through C function pointers without captures (pre-solve, position
//   update, bounding-box query). Their state comes from user-data pointers that this file sets: the space's
//   user data is an unretained pointer to the world's `WorldRules`, which the world keeps alive (a stored
//   property) for as long as the space exists; a body's user data is its item index + 1, an integer stored in
//   a pointer, never dereferenced; a bounding-box query gets a pointer to a local Bool, and an arbiter walk
//   (`cpBodyEachArbiter`) a pointer to a local array, each outliving its (synchronous) call.
// - Chipmunk is used single-threaded (`cpSpace`, not `cpHastySpace`): the callbacks run one at a time, inside
//   `cpSpaceStep`, `cpSpaceBBQuery` or `cpBodyEachArbiter` on the world's thread, so the `WorldRules` they
//   update is never shared.

/// What the Chipmunk callbacks read and keep between calls: the contact rules, the barrier sweep, and per
/// item the last step with a contact and where in the current step the sweep stopped it.
private final class WorldRules {
    let restThreshold: Double
    let gravity: Point
    let timestep: Double
    let sweep: BarrierSweep
    let bodies: [PhysicsBody]
    /// The step being taken (1 for the first).
    var step = 0
    /// Per item: the last step in which it touched something (free flight when older than the previous step).
    var lastContact: [Int]
    /// Per item: the fraction of the current step after which the sweep stopped it at an edge, else nil.
    var impactFraction: [Double?]
    /// The layer time at the end of the current step, and the impacts found in it.
    var stepEnd = 0.0
    var impacts: [PhysicsImpact] = []

    init(scene: PhysicsScene) {
        restThreshold = scene.restThreshold
        gravity = scene.gravity
        timestep = scene.timestep
        sweep = BarrierSweep(barriers: scene.barriers)
        bodies = scene.items.map(\.body)
        lastContact = Array(repeating: Int.min / 2, count: scene.items.count)
        impactFraction = Array(repeating: nil, count: scene.items.count)
    }

    /// The item index stored in a body's user data (index + 1), or nil for the static body.
    func item(of body: OpaquePointer) -> Int? {
        let index = Int(bitPattern: cpBodyGetUserData(body)) - 1
        return bodies.indices.contains(index) ? index : nil
    }
}

/// Absorbs Chipmunk's debug banner once per process (see `rf_chipmunk_absorb_banner` in the shim header).
private let chipmunkBannerAbsorbed: Void = rf_chipmunk_absorb_banner()

/// A Chipmunk space holding one scene: barriers at creation, items when `add(item:)` is called.
final class ChipmunkWorld {
    private let space: OpaquePointer
    private let rules: WorldRules
    private let scene: PhysicsScene
    /// The static barrier shapes.
    private var barrierShapes: [OpaquePointer] = []
    /// Where each item is: not added yet, in the space (with its body and shape), or taken out.
    private var slots: [Slot]
    /// The items in the space, by index (ascending).
    private(set) var live: [Int] = []

    private enum Slot {
        case waiting
        case inSpace(body: OpaquePointer, shape: OpaquePointer)
        case removed
    }

    /// The version of Chipmunk's headers, part of every checkpoint's key (another version may step differently).
    static let version = "\(CP_VERSION_MAJOR).\(CP_VERSION_MINOR).\(CP_VERSION_RELEASE)"

    init(scene: PhysicsScene) throws(EffectError) {
        chipmunkBannerAbsorbed
        guard let space = cpSpaceNew() else { throw EffectError("physics: cannot create a Chipmunk space") }
        self.space = space
        self.scene = scene
        rules = WorldRules(scene: scene)
        slots = Array(repeating: .waiting, count: scene.items.count)
        cpSpaceSetGravity(space, cpv(scene.gravity.x, scene.gravity.y))
        cpSpaceSetDamping(space, PhysicsRules.damping(resistance: scene.material.resistance, timestep: scene.timestep))
        cpSpaceSetIterations(space, Int32(PhysicsRules.solverIterations))
        // Chipmunk's defaults differ from UIKit's rules (no sleeping, 0.1 pt slop): set every rule.
        cpSpaceSetSleepTimeThreshold(space, PhysicsRules.sleepTime)
        cpSpaceSetIdleSpeedThreshold(space, PhysicsRules.idleSpeed)
        cpSpaceSetCollisionSlop(space, PhysicsRules.collisionSlop)
        cpSpaceSetCollisionBias(space, PhysicsRules.collisionBias)
        cpSpaceSetUserData(space, Unmanaged.passUnretained(rules).toOpaque())
        if let handler = cpSpaceAddDefaultCollisionHandler(space) {
            handler.pointee.preSolveFunc = contactRules
            handler.pointee.userData = Unmanaged.passUnretained(rules).toOpaque()
        }
        let ground = cpSpaceGetStaticBody(space)
        for barrier in scene.barriers {
            guard
                let shape = cpSegmentShapeNew(
                    ground, cpv(barrier.from.x, barrier.from.y), cpv(barrier.to.x, barrier.to.y), 0)
            else { throw EffectError("physics: cannot create a barrier") }
            cpShapeSetElasticity(shape, barrier.elasticity)
            cpShapeSetFriction(shape, barrier.friction)
            cpSpaceAddShape(space, shape)
            barrierShapes.append(shape)
        }
    }

    deinit {
        // The space first: destroying it still visits its bodies, which must exist until then.
        cpSpaceFree(space)
        for shape in barrierShapes { cpShapeFree(shape) }
        for slot in slots {
            guard case .inSpace(let body, let shape) = slot else { continue }
            cpShapeFree(shape)
            cpBodyFree(body)
        }
    }

    /// A world holding `bodies` as a checkpoint kept them (awake, or asleep in their groups), with the `ended`
    /// items taken out for good. Chipmunk's contact caches start empty: see <doc:StreamLengthEffects>.
    convenience init(scene: PhysicsScene, restoring bodies: [BodyState], ended: [Int]) throws(EffectError) {
        try self.init(scene: scene)
        for state in bodies {
            try add(
                item: state.item, at: state.position, velocity: state.velocity, angle: state.angle,
                angularVelocity: state.angularVelocity)
            rules.lastContact[state.item] = state.touched ? rules.step : Int.min / 2
            rules.impactFraction[state.item] = state.impactFraction
        }
        // A group falls asleep with its first item, which must sleep before the others join it.
        for state in bodies where state.sleepGroup == state.item { sleep(state.item, joining: nil) }
        for state in bodies {
            guard let group = state.sleepGroup, group != state.item else { continue }
            sleep(state.item, joining: group)
        }
        for item in ended { slots[item] = .removed }
    }

    private func sleep(_ item: Int, joining group: Int?) {
        guard case .inSpace(let body, _) = slots[item] else { return }
        var root: OpaquePointer?
        if let group, case .inSpace(let groupBody, _) = slots[group] { root = groupBody }
        cpBodySleepWithGroup(body, root)
    }

    /// The items in the world, in index order, as a checkpoint keeps them.
    func bodyStates() -> [BodyState] {
        let groups = sleepingGroups()
        return live.compactMap { index in
            guard case .inSpace(let body, _) = slots[index] else { return nil }
            let position = cpBodyGetPosition(body)
            let velocity = cpBodyGetVelocity(body)
            return BodyState(
                item: index, position: Point(position.x, position.y), velocity: Point(velocity.x, velocity.y),
                angle: cpBodyGetAngle(body), angularVelocity: cpBodyGetAngularVelocity(body),
                sleepGroup: groups[index], touched: rules.lastContact[index] >= rules.step,
                impactFraction: rules.impactFraction[index])
        }
    }

    /// The items taken out for good (expired or gone), in index order.
    var endedItems: [Int] {
        slots.indices.filter { index in
            if case .removed = slots[index] { return true }
            return false
        }
    }

    /// For each sleeping item, the smallest index among the sleeping items it is connected to by contacts:
    /// Chipmunk keeps the contacts of sleeping bodies, and its sleeping components are made of them.
    private func sleepingGroups() -> [Int: Int] {
        var parent: [Int: Int] = [:]
        func root(_ item: Int) -> Int {
            var root = item
            while let next = parent[root], next != root { root = next }
            return root
        }
        var sleeping: [(item: Int, body: OpaquePointer)] = []
        for index in live {
            guard case .inSpace(let body, _) = slots[index], cpBodyIsSleeping(body) != 0 else { continue }
            parent[index] = index
            sleeping.append((index, body))
        }
        for (item, body) in sleeping {
            var touching: [Int] = []
            withUnsafeMutablePointer(to: &touching) { list in cpBodyEachArbiter(body, itemTouched, list) }
            for other in touching where parent[other] != nil {
                let (first, second) = (root(item), root(other))
                if first != second { parent[max(first, second)] = min(first, second) }
            }
        }
        return parent.keys.reduce(into: [:]) { groups, item in groups[item] = root(item) }
    }

    /// Adds item `index` of the scene at its start position and velocity, or at the ones given.
    func add(
        item index: Int, at position: Point? = nil, velocity: Point? = nil, angle: Double = 0,
        angularVelocity: Double = 0
    ) throws(EffectError) {
        var item = scene.items[index]
        item.position = position ?? item.position
        item.velocity = velocity ?? item.velocity
        let material = scene.material
        let mass = material.density * item.body.area / PhysicsRules.areaOfUnitMass
        let moment: Double
        switch item.body {
        case .box(let size): moment = cpMomentForBox(mass, size.width, size.height)
        case .circle(let diameter): moment = cpMomentForCircle(mass, 0, diameter / 2, cpvzero)
        }
        // allowsRotation = NO is a fixed rotation: infinite moment of inertia (UIKitDynamics article).
        guard let body = cpBodyNew(mass, material.allowsRotation ? moment : Double.infinity) else {
            throw EffectError("physics: cannot create item \(index)")
        }
        let shape: OpaquePointer?
        switch item.body {
        case .box(let size): shape = cpBoxShapeNew(body, size.width, size.height, 0)
        case .circle(let diameter): shape = cpCircleShapeNew(body, diameter / 2, cpvzero)
        }
        guard let shape else {
            cpBodyFree(body)
            throw EffectError("physics: cannot create item \(index)")
        }
        cpBodySetPosition(body, cpv(item.position.x, item.position.y))
        cpBodySetVelocity(body, cpv(item.velocity.x, item.velocity.y))
        cpBodySetAngle(body, angle)
        cpBodySetAngularVelocity(body, angularVelocity)
        cpBodySetUserData(body, UnsafeMutableRawPointer(bitPattern: index + 1))
        cpBodySetPositionUpdateFunc(body, sweptPositionUpdate)
        cpShapeSetElasticity(shape, material.elasticity)
        cpShapeSetFriction(shape, material.friction)
        if !scene.itemsCollide {
            // Shapes of one non-zero group never collide with each other; barriers have no group.
            cpShapeSetFilter(shape, cpShapeFilterNew(1, cpBitmask.max, cpBitmask.max))
        }
        cpSpaceAddBody(space, body)
        cpSpaceAddShape(space, shape)
        slots[index] = .inSpace(body: body, shape: shape)
        let place = live.firstIndex { $0 > index } ?? live.endIndex
        live.insert(index, at: place)
    }

    /// Takes item `index` out of the space for good (between steps, never during one) and frees it; an
    /// item not added yet never will be.
    func remove(item index: Int) {
        if case .inSpace(let body, let shape) = slots[index] {
            cpSpaceRemoveShape(space, shape)
            cpSpaceRemoveBody(space, body)
            cpShapeFree(shape)
            cpBodyFree(body)
            live.removeAll { $0 == index }
        }
        slots[index] = .removed
    }

    /// Advances the world by one fixed step, which ends at layer time `end`; the impacts in it, if any.
    func step(endingAt end: Double) -> [PhysicsImpact] {
        rules.step += 1
        rules.stepEnd = end
        rules.impacts.removeAll(keepingCapacity: true)
        cpSpaceStep(space, scene.timestep)
        return rules.impacts
    }

    /// Whether item `index` has been added (it may have been taken out since).
    func contains(item index: Int) -> Bool {
        if case .waiting = slots[index] { return false }
        return true
    }

    /// Whether an unrotated `body` centred at `center` overlaps an item in the world (bounding boxes, found
    /// through Chipmunk's spatial index; barriers do not count).
    func overlapsItem(_ body: PhysicsBody, at center: Point) -> Bool {
        let size = body.size
        let box = cpBBNewForExtents(cpv(center.x, center.y), size.width / 2, size.height / 2)
        var found = false
        withUnsafeMutablePointer(to: &found) { flag in
            cpSpaceBBQuery(space, box, cpShapeFilterNew(0, cpBitmask.max, cpBitmask.max), dynamicShapeFound, flag)
        }
        return found
    }

    /// Whether every item in the space sleeps (nothing will move until something new is added).
    var isAsleep: Bool {
        live.allSatisfy { index in
            guard case .inSpace(let body, _) = slots[index] else { return true }
            return cpBodyIsSleeping(body) != 0
        }
    }

    /// The state of item `index` now.
    func state(of index: Int) -> PhysicsState {
        let body: OpaquePointer
        switch slots[index] {
        case .waiting: return .absent
        case .removed: return .gone
        case .inSpace(let inSpace, _): body = inSpace
        }
        let position = cpBodyGetPosition(body)
        let velocity = cpBodyGetVelocity(body)
        return PhysicsState(
            position: Point(position.x, position.y), velocity: Point(velocity.x, velocity.y),
            angle: cpBodyGetAngle(body), present: true, resting: cpBodyIsSleeping(body) != 0)
    }
}

/// Pre-solve for every contact: the combine rules and restitution threshold of <doc:UIKitDynamics>, which
/// replace Chipmunk's own (restitution and friction multiplied, no threshold).
///
/// Chipmunk bounces from the approach speed at the start of the step; an item that the sweep stopped after
/// a fraction s of the step has gained s·dt of gravity by then, so the restitution is scaled to bounce from
/// the speed at the moment of impact, as an exact (time-of-impact) solver would.
private let contactRules: cpCollisionPreSolveFunc = { arbiter, _, userData in
    guard let arbiter, let userData else { return 1 }
    let rules = Unmanaged<WorldRules>.fromOpaque(userData).takeUnretainedValue()
    var shapeA: OpaquePointer?
    var shapeB: OpaquePointer?
    cpArbiterGetShapes(arbiter, &shapeA, &shapeB)
    var bodyA: OpaquePointer?
    var bodyB: OpaquePointer?
    cpArbiterGetBodies(arbiter, &bodyA, &bodyB)
    guard let shapeA, let shapeB, let bodyA, let bodyB else { return 1 }
    let itemA = rules.item(of: bodyA)
    let itemB = rules.item(of: bodyB)
    for case let item? in [itemA, itemB] { rules.lastContact[item] = rules.step }
    // Approach speed along the normal (from A to B) at the start of the step: what Chipmunk bounces from.
    // The contact point is the midpoint of the two surface points (they differ by the overlap only).
    let normal = cpArbiterGetNormal(arbiter)
    var approach = 0.0
    for index in 0..<max(0, min(2, cpArbiterGetCount(arbiter))) {
        let point = cpvlerp(cpArbiterGetPointA(arbiter, index), cpArbiterGetPointB(arbiter, index), 0.5)
        let velocityA = cpBodyGetVelocityAtWorldPoint(bodyA, point)
        let velocityB = cpBodyGetVelocityAtWorldPoint(bodyB, point)
        approach = max(approach, -cpvdot(cpvsub(velocityB, velocityA), normal))
    }
    // Gravity gained until the impact, for an item the sweep stopped at an edge (two items fall alike).
    var impactSpeed = approach
    let sweptFraction = (itemA == nil) != (itemB == nil) ? (itemA ?? itemB).flatMap { rules.impactFraction[$0] } : nil
    if let fraction = sweptFraction {
        let towardEdge = itemB == nil ? 1.0 : -1.0  // the normal points from A to B
        let gain = towardEdge * (rules.gravity.x * normal.x + rules.gravity.y * normal.y) * rules.timestep
        impactSpeed += max(0, gain) * fraction
    }
    let elasticity = PhysicsRules.restitution(cpShapeGetElasticity(shapeA), cpShapeGetElasticity(shapeB))
    let bounces = impactSpeed > rules.restThreshold && approach > 0
    cpArbiterSetRestitution(arbiter, bounces ? elasticity * impactSpeed / approach : 0)
    if bounces, cpArbiterIsFirstContact(arbiter) != 0, let item = [itemA, itemB].compactMap({ $0 }).min() {
        let time = impactTime(arbiter, sweptFraction: sweptFraction, approach: approach, rules)
        rules.impacts.append(PhysicsImpact(item: item, time: time))
    }
    cpArbiterSetFriction(arbiter, PhysicsRules.friction(cpShapeGetFriction(shapeA), cpShapeGetFriction(shapeB)))
    return 1
}

/// When, in layer seconds, the contact `arbiter` began in the current step: where the sweep stopped the item
/// at an edge (after `sweptFraction` of the step), or else the overlap Chipmunk found taken back at the
/// approach speed (never before the step).
private func impactTime(_ arbiter: OpaquePointer, sweptFraction: Double?, approach: Double, _ rules: WorldRules)
    -> Double
{
    let end = rules.stepEnd
    if let sweptFraction { return end - (1 - sweptFraction) * rules.timestep }
    var depth = 0.0
    for index in 0..<max(0, min(2, cpArbiterGetCount(arbiter))) {
        depth = max(depth, -cpArbiterGetDepth(arbiter, index))
    }
    return end - min(rules.timestep, depth / approach)
}

/// Bounding-box query callback: sets the Bool behind `data` when the shape belongs to an item (a dynamic
/// body). `data` points at a local variable of `overlapsItem`, alive for the whole synchronous query.
private let dynamicShapeFound: cpSpaceBBQueryFunc = { shape, data in
    guard let shape, let data, let body = cpShapeGetBody(shape), cpBodyGetType(body) == CP_BODY_TYPE_DYNAMIC else {
        return
    }
    data.assumingMemoryBound(to: Bool.self).pointee = true
}

/// Arbiter walk callback: appends the item index of the body on the other side of the contact to the
/// `[Int]` behind `data` (a local array of `sleepingGroups`, alive for the whole synchronous walk).
private let itemTouched: cpBodyArbiterIteratorFunc = { body, arbiter, data in
    guard let arbiter, let data else { return }
    var bodyA: OpaquePointer?
    var bodyB: OpaquePointer?
    cpArbiterGetBodies(arbiter, &bodyA, &bodyB)
    guard let other = bodyA == body ? bodyB : bodyA else { return }
    // Items store index + 1; the static body stores nothing.
    let item = Int(bitPattern: cpBodyGetUserData(other)) - 1
    if item >= 0 { data.assumingMemoryBound(to: [Int].self).pointee.append(item) }
}

/// Chipmunk's position update, made exact for free flight, followed by the barrier sweep.
///
/// Chipmunk moves a body by its velocity from the start of the step (x += v·dt), which lags a free fall by
/// g·dt/2 in speed: a bounce of 114 pt/s then rises 7 % too high at 1/240 s. A body that touched nothing in
/// the previous step also gets the ½·g·dt² term, so ballistic flight is exact; resting and stacked bodies
/// keep Chipmunk's update, whose contact solver already holds them.
private let sweptPositionUpdate: cpBodyPositionFunc = { body, dt in
    guard let body else { return }
    let before = cpBodyGetPosition(body)
    cpBodyUpdatePosition(body, dt)
    guard let space = cpBodyGetSpace(body), let userData = cpSpaceGetUserData(space) else { return }
    let rules = Unmanaged<WorldRules>.fromOpaque(userData).takeUnretainedValue()
    guard let index = rules.item(of: body) else { return }
    rules.impactFraction[index] = nil
    var after = cpBodyGetPosition(body)
    var moved = false
    if rules.lastContact[index] < rules.step - 1, rules.gravity != .zero {
        after = cpvadd(after, cpv(rules.gravity.x * dt * dt / 2, rules.gravity.y * dt * dt / 2))
        moved = true
    }
    let start = Point(before.x, before.y)
    let end = Point(after.x, after.y)
    if let stop = rules.sweep.limit(rules.bodies[index], angle: cpBodyGetAngle(body), from: start, to: end) {
        let travel = start.distance(to: end)
        rules.impactFraction[index] = travel > 0 ? start.distance(to: stop) / travel : 0
        after = cpv(stop.x, stop.y)
        moved = true
    }
    if moved { cpBodySetPosition(body, after) }
}
