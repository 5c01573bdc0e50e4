import Foundation

/// The collision outline of a physics item.
public enum PhysicsBody: Sendable, Equatable {
    /// A rigid rectangle of this size, centred on the item's position (UIKit's default: the item's bounds).
    case box(Size)
    /// A rigid disc of this diameter.
    case circle(diameter: Double)

    /// The size of the outline's bounding box (unrotated).
    public var size: Size {
        switch self {
        case .box(let size): size
        case .circle(let diameter): Size(width: diameter, height: diameter)
        }
    }

    /// Whether the outline is a disc.
    public var isDisc: Bool {
        if case .circle = self { return true }
        return false
    }

    /// The area in pt², for the mass.
    var area: Double {
        switch self {
        case .box(let size): size.width * size.height
        case .circle(let diameter): Double.pi * diameter * diameter / 4
        }
    }

    /// The outline's half extent along the unit vector `axis` when the body is turned by `angle` radians.
    func extent(along axis: Point, angle: Double) -> Double {
        switch self {
        case .circle(let diameter):
            return diameter / 2
        case .box(let size):
            let (sine, cosine) = (angle == 0) ? (0.0, 1.0) : (sin(angle), cos(angle))
            let alongWidth = abs(axis.x * cosine + axis.y * sine)
            let alongHeight = abs(-axis.x * sine + axis.y * cosine)
            return alongWidth * size.width / 2 + alongHeight * size.height / 2
        }
    }
}

/// How an item moves before it is scheduled to enter the world (e.g. a keyframe animation). The simulation
/// adds it early, with this motion's position and velocity, at the first step where it overlaps another item,
/// so an item flying into a pile hits it instead of landing inside it.
public struct PhysicsApproach: Sendable {
    /// Layer time from which the motion exists (before it, the item is nowhere).
    public var start: Double
    /// Centre (points) and velocity (points/s) at a layer time.
    public var motion: @Sendable (Double) -> (position: Point, velocity: Point)

    public init(start: Double, motion: @escaping @Sendable (Double) -> (position: Point, velocity: Point)) {
        self.start = start
        self.motion = motion
    }
}

/// One dynamic item: its outline, where and when it enters the world and how fast it moves then.
public struct PhysicsItem: Sendable {
    public var body: PhysicsBody
    /// Centre in points when the item is added.
    public var position: Point
    /// Velocity in points/s when the item is added (UIKit items start at rest unless given one).
    public var velocity: Point
    /// Layer time (s) at which the item is added to the world.
    public var spawnTime: Double
    /// The motion before `spawnTime`, if the item is on its way already.
    public var approach: PhysicsApproach?
    /// Layer time (s) from which the item is taken out of the world and no longer drawn (nil: never).
    public var expiry: Double?

    public init(
        body: PhysicsBody, position: Point, velocity: Point = .zero, spawnTime: Double = 0,
        approach: PhysicsApproach? = nil, expiry: Double? = nil
    ) {
        self.body = body
        self.position = position
        self.velocity = velocity
        self.spawnTime = spawnTime
        self.approach = approach
        self.expiry = expiry
    }

    /// When the item may first be in the world: the start of its approach, else its spawn time.
    var entry: Double { min(approach?.start ?? spawnTime, spawnTime) }
}

/// A static collision edge (`UICollisionBehavior addBoundaryWithIdentifier:fromPoint:toPoint:`).
public struct PhysicsBarrier: Sendable, Equatable {
    public var from: Point
    public var to: Point
    public var elasticity: Double
    public var friction: Double

    public init(
        from: Point, to: Point, elasticity: Double = PhysicsRules.barrierElasticity,
        friction: Double = PhysicsRules.barrierFriction
    ) {
        self.from = from
        self.to = to
        self.elasticity = elasticity
        self.friction = friction
    }

    public var length: Double { from.distance(to: to) }
}

/// The material every item of a layer shares (`UIDynamicItemBehavior`).
public struct PhysicsMaterial: Sendable, Equatable {
    public var elasticity: Double
    public var friction: Double
    public var density: Double
    /// Linear velocity damping (UIKit `resistance`).
    public var resistance: Double
    /// False: fixed rotation (infinite moment of inertia), as the seed sets it.
    public var allowsRotation: Bool

    public init(
        elasticity: Double = PhysicsRules.itemElasticity, friction: Double = PhysicsRules.itemFriction,
        density: Double = PhysicsRules.itemDensity, resistance: Double = 0, allowsRotation: Bool = false
    ) {
        self.elasticity = elasticity
        self.friction = friction
        self.density = density
        self.resistance = resistance
        self.allowsRotation = allowsRotation
    }
}

/// Everything one simulation needs: gravity, edges, items and the rules of <doc:UIKitDynamics>.
public struct PhysicsScene: Sendable {
    /// Gravity in points/s² (see `PhysicsRules.gravity(direction:magnitude:)`).
    public var gravity: Point
    public var barriers: [PhysicsBarrier]
    public var items: [PhysicsItem]
    public var material: PhysicsMaterial
    /// Whether items collide with each other (UIKit: items of one collision behaviour do).
    public var itemsCollide: Bool
    /// Approach speed (pt/s) below which a contact does not bounce.
    public var restThreshold: Double
    /// The fixed step in seconds.
    public var timestep: Double
    /// The visible area: items that leave it for good are dropped from the simulation (nil: never).
    public var canvas: Rect?

    public init(
        gravity: Point = Point(0, PhysicsRules.pointsPerSecondSquaredPerG), barriers: [PhysicsBarrier],
        items: [PhysicsItem], material: PhysicsMaterial = PhysicsMaterial(), itemsCollide: Bool = true,
        restThreshold: Double = PhysicsRules.restThreshold, timestep: Double = PhysicsRules.timestep,
        canvas: Rect? = nil
    ) {
        self.canvas = canvas
        self.gravity = gravity
        self.barriers = barriers
        self.items = items
        self.material = material
        self.itemsCollide = itemsCollide
        self.restThreshold = restThreshold
        self.timestep = timestep
    }

    /// Checks what Chipmunk would otherwise assert on or silently mishandle.
    public func validate() throws(EffectError) {
        guard timestep > 0, timestep.isFinite else { throw EffectError(parameter: "timestep", "must be positive") }
        guard items.count <= PhysicsLimits.maxItems else {
            throw EffectError(parameter: "items", "\(items.count) items; at most \(PhysicsLimits.maxItems) per layer")
        }
        for (index, barrier) in barriers.enumerated() where !(barrier.length > 1e-9) {
            throw EffectError(parameter: "barriers[\(index)].to", "zero-length boundary")
        }
        for (index, item) in items.enumerated() {
            let size = item.body.size
            guard size.width > 0, size.height > 0, size.width.isFinite, size.height.isFinite else {
                throw EffectError(parameter: "items[\(index)].size", "must be positive")
            }
        }
        guard material.density > 0 else { throw EffectError(parameter: "density", "must be positive") }
        let alive = mostAliveAtOnce
        guard alive.count <= PhysicsLimits.maxAliveItems else {
            throw EffectError(
                parameter: "items",
                "\(alive.count) items would be in the world at once by \(String(format: "%.1f", alive.time)) s; "
                    + "at most \(PhysicsLimits.maxAliveItems) (give items a lifetime, or fewer items)")
        }
    }

    /// The most items whose spans from entry to expiry overlap, and the first time that many do: a bound
    /// on the items in the world at once (items that leave the canvas early only lower it).
    var mostAliveAtOnce: (count: Int, time: Double) {
        // Expiries sort before entries at the same time: an item is gone from its expiry on.
        let changes = items.flatMap { item in
            [(item.entry, 1)] + (item.expiry.map { [($0, -1)] } ?? [])
        }.sorted { ($0.0, $0.1) < ($1.0, $1.1) }
        var (count, most, time) = (0, 0, 0.0)
        for (moment, change) in changes {
            count += change
            if count > most { (most, time) = (count, moment) }
        }
        return (most, time)
    }
}
