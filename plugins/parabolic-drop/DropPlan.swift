import EffectKit

/// Where the items of a drop layer start: one point, or spread at random over a rect.
enum DropOrigin: Sendable {
    case point(Point)
    case area(Rect)
}

/// The geometry every item of a layer shares (the seed's `pointsAnimaton` inputs).
struct DropGeometry: Sendable {
    var size: Size
    var origin: DropOrigin
    var target: Rect
    var deviation: Double
    var arcHeight: Double
    var controlFraction: Double
    var sampling: PathSampling
}

/// Everything random about one dropped item, drawn once in `create` from the item's own seed, in the order
/// the seed draws it: the deviation, then the duration (then, for a start rect, where in it).
struct DropPlan: Sendable {
    /// `arc4random() % 5 * 3`: the random part of the deviation (EffectKit article ParabolicDropMotion).
    static let deviationChoices: UInt32 = 5
    static let deviationStep = 3.0
    /// `.6 + ((arc4random() % 3) * 0.04)`: the keyframe animation's duration in seconds.
    static let baseDuration = 0.6
    static let durationChoices: UInt32 = 3
    static let durationStep = 0.04

    let id: Int
    /// Layer time of the launch.
    let start: Double
    /// The keyframe animation's duration.
    let duration: Double
    /// `moveTo(start) addQuadCurveToPoint(end, control)`, sampled per `pathSampling`.
    let travel: KeyframePath<QuadraticBezier>

    init(id: Int, start: Double, geometry: DropGeometry, random: inout SeededRandom) {
        self.id = id
        self.start = start
        let deviation = geometry.deviation + Double(random.uniform(Self.deviationChoices)) * Self.deviationStep
        duration = Self.baseDuration + Double(random.uniform(Self.durationChoices)) * Self.durationStep
        let origin: Point
        switch geometry.origin {
        case .point(let point):
            origin = point
        case .area(let rect):
            origin = Point(rect.minX + rect.width * random.unit(), rect.minY + rect.height * random.unit())
        }
        let target = geometry.target
        // The seed's horizontal `distance` uses the unclamped x; only the end point is clamped into the target.
        let aimX = target.midX + deviation
        let distance = aimX - origin.x
        let itemTop = origin.y - geometry.size.height / 2
        let control = Point(origin.x + geometry.controlFraction * distance, itemTop - geometry.arcHeight)
        let end = Point(min(max(aimX, target.minX), target.maxX), target.minY)
        travel = KeyframePath(curve: QuadraticBezier(origin, control, end), sampling: geometry.sampling)
    }

    /// Layer time at which the item reaches the target's top edge.
    var landing: Double { start + duration }

    /// The progress u = (t − start) / duration, clamped to [0, 1] (linear timing; EffectKit article
    /// ParabolicDropMotion, "Timeline").
    func progress(at time: Double) -> Double { min(max((time - start) / duration, 0), 1) }

    /// The item's centre at layer time `time` (held at the end afterwards: fill mode forwards).
    func position(at time: Double) -> Point { travel.position(at: progress(at: time)) }

    /// The centre's velocity in points/s while travelling, at progress u.
    func velocity(atProgress u: Double) -> Point {
        let curve = travel.curve
        switch travel.sampling {
        case .bezier:
            return curve.derivative(at: u) / duration
        case .paced:
            let tangent = curve.derivative(at: travel.parameter(at: u))
            let length = tangent.length
            return length > 0 ? tangent / length * (curve.exactLength / duration) : .zero
        }
    }
}
