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
    /// The flight's timing; nil for linear, the seed's (progress = elapsed / duration, exactly).
    var timing: TimingFunction?
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
    /// The flight's timing function (`timing`); nil: linear.
    let timing: TimingFunction?

    init(id: Int, start: Double, geometry: DropGeometry, random: inout SeededRandom) {
        self.id = id
        self.start = start
        timing = geometry.timing
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

    /// The elapsed fraction of the flight, (t − start) / duration, clamped to [0, 1].
    func elapsed(at time: Double) -> Double { min(max((time - start) / duration, 0), 1) }

    /// The progress u along the path: the elapsed fraction through the flight's timing, clamped to [0, 1]
    /// (linear by default, u = elapsed; EffectKit article ParabolicDropMotion, "Timeline").
    func progress(at time: Double) -> Double {
        let fraction = elapsed(at: time)
        guard let timing else { return fraction }
        return min(max(timing(fraction), 0), 1)
    }

    /// du/d(elapsed): the timing function's slope at layer time `time` (1 when linear), so that the
    /// progress moves at slope / duration per second.
    func slope(at time: Double) -> Double { slope(atElapsed: elapsed(at: time)) }

    /// The timing function's slope at elapsed fraction `fraction`, by a central difference inside [0, 1] of the
    /// clamped progress.
    func slope(atElapsed fraction: Double) -> Double {
        guard let timing else { return 1 }
        let (low, high) = (max(0, fraction - 1e-5), min(1, fraction + 1e-5))
        let (from, to) = (min(max(timing(low), 0), 1), min(max(timing(high), 0), 1))
        return (to - from) / (high - low)
    }

    /// The item's centre at layer time `time` (held at the end afterwards: fill mode forwards).
    func position(at time: Double) -> Point { travel.position(at: progress(at: time)) }

    /// The centre's velocity in points/s at layer time `time` of the flight.
    func velocity(at time: Double) -> Point { velocity(atProgress: progress(at: time), slope: slope(at: time)) }

    /// The centre's velocity on arrival (progress 1).
    var arrivalVelocity: Point { velocity(atProgress: 1, slope: slope(atElapsed: 1)) }

    /// The centre's velocity at progress u, where the progress moves at slope / duration per second.
    func velocity(atProgress u: Double, slope: Double) -> Point {
        let curve = travel.curve
        switch travel.sampling {
        case .bezier:
            return curve.derivative(at: u) * slope / duration
        case .paced:
            let tangent = curve.derivative(at: travel.parameter(at: u))
            let length = tangent.length
            return length > 0 ? tangent / length * (curve.exactLength * slope / duration) : .zero
        }
    }
}
