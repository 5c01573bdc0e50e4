import Foundation

/// The UIKit Dynamics model the physics effects reproduce (<doc:UIKitDynamics>), in points.
///
/// UIKit's documented units are Box2D's SI units at 100 pt = 1 m; Chipmunk works in points directly, so
/// the only conversions are gravity (1.0 = 1000 pt/s²) and mass (a 100 × 100 pt item of density 1 is 1).
public enum PhysicsRules {
    /// `UIGravityBehavior` magnitude 1.0 = 1000 points/s² (<doc:UIKitDynamics>).
    public static let pointsPerSecondSquaredPerG = 1000.0
    /// A 100 × 100 pt item of density 1.0 has unit mass (<doc:UIKitDynamics>): mass = density · area / 10 000 pt².
    public static let areaOfUnitMass = 100.0 * 100.0
    /// `UIDynamicItemBehavior.elasticity` as the seed sets it (<doc:UIKitDynamics>).
    public static let itemElasticity = 0.6
    /// `UIDynamicItemBehavior.friction` as the seed sets it (<doc:UIKitDynamics>).
    public static let itemFriction = 0.5
    /// `UIDynamicItemBehavior.density` default (<doc:UIKitDynamics>).
    public static let itemDensity = 1.0
    /// Boundary material (<doc:UIKitDynamics>): restitution 0, friction 0.5, so a contact gets 0.6 and 0.5.
    public static let barrierElasticity = 0.0
    public static let barrierFriction = 0.5
    /// Approach speeds below this bounce with restitution 0 (<doc:UIKitDynamics>: Box2D's 1 m/s = 100 pt/s).
    public static let restThreshold = 100.0
    /// A body rests (sleeps) after this long below `idleSpeed` (<doc:UIKitDynamics>, Box2D's b2_timeToSleep).
    public static let sleepTime = 0.5
    /// Speed under which a body counts as idle: Box2D's 0.01 m/s = 1 pt/s (<doc:UIKitDynamics>).
    public static let idleSpeed = 1.0
    /// The fixed simulation step (<doc:UIKitDynamics>), sampled at frame times.
    public static let timestep = 1.0 / 240.0
    /// Chipmunk's allowed overlap before position correction pushes shapes apart. Chipmunk's default is 0.1;
    /// a smaller one keeps resting items visibly on their edge (<doc:UIKitDynamics>).
    public static let collisionSlop = 0.05
    /// Fraction of the overlap left after one second of position correction: Chipmunk's own default
    /// (10 % corrected per 1/60 s), set explicitly so a Chipmunk upgrade cannot change it silently.
    public static let collisionBias = pow(1.0 - 0.1, 60.0)
    /// Impulse solver iterations per step (Chipmunk's default 10; Box2D uses 8 velocity iterations).
    public static let solverIterations = 10
    /// The overlap a swept item is left with when it reaches an edge within a step, so that Chipmunk sees
    /// the contact in that same step and applies the bounce (stays well inside `collisionSlop`).
    public static let sweepContactDepth = 0.01

    /// Contact restitution: "a superball bounces on anything" (Box2D `b2MixRestitution`, <doc:UIKitDynamics>).
    public static func restitution(_ a: Double, _ b: Double) -> Double { max(a, b) }

    /// Contact friction: "anything slides on ice" (Box2D `b2MixFriction`, <doc:UIKitDynamics>).
    public static func friction(_ a: Double, _ b: Double) -> Double { (a * b).squareRoot() }

    /// Gravity in points/s² for a UIKit direction (normalised here) and magnitude.
    public static func gravity(direction: Point, magnitude: Double) -> Point {
        let length = direction.length
        guard length > 0 else { return .zero }
        return direction / length * (magnitude * pointsPerSecondSquaredPerG)
    }

    /// Chipmunk's space damping (velocity kept after one second) that gives Box2D's per-step linear damping
    /// `v *= 1 / (1 + dt·c)` at a fixed step dt, for UIKit's `resistance` c.
    public static func damping(resistance: Double, timestep: Double) -> Double {
        guard resistance > 0 else { return 1 }
        return pow(1 / (1 + timestep * resistance), 1 / timestep)
    }
}

/// Limits that keep one layer's simulation bounded in memory and time. A simulation streams: its cost
/// follows the items in the world, not the layer's length or its total number of items.
public enum PhysicsLimits {
    /// Items per layer (a three-hour stream at about 9 gifts per second).
    public static let maxItems = 100_000
    /// Items in the world at once, counted from each item's entry to its expiry: what one step costs.
    public static let maxAliveItems = 2000
    /// Item states one run keeps for the frames it renders (about 64 bytes each; frames across which
    /// nothing moves share theirs).
    public static let maxRecordedStates = 20_000_000
    /// Seconds of a layer simulated in `create` to find items that leave the canvas (the warning): a
    /// bounded probe, so that `validate` costs the same for a short and a three-hour layer.
    public static let warningProbe = 60.0
}
