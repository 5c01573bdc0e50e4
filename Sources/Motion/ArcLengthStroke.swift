import Foundation

/// Cubic curves joined end to start, travelled by arc length: the point a fraction of the whole length along,
/// and the direction there. What a layer's motion path (``MotionPath``, measured once when the job is read) and a
/// position keyframe's curved segment (spatial tangents) move along.
package struct ArcLengthStroke: Sendable, Equatable {
    /// The curves with a length (zero-length pieces left out).
    private let curves: [CubicBezier]
    private let tables: [ArcLengthTable]
    /// The length along the stroke at the end of each curve.
    private let ends: [Double]

    /// Chords per curve in the arc-length tables: the position error stays far below a thousandth of a point on
    /// curves of canvas size (<doc:KeyframePaths>).
    static let samplesPerCurve = 1024

    /// Measures `curves`; nil when together they have no length.
    package init?(_ curves: [CubicBezier]) {
        let tables = curves.map { ArcLengthTable(curve: $0, samples: Self.samplesPerCurve) }
        let kept = tables.indices.filter { tables[$0].length > 0 }
        guard !kept.isEmpty else { return nil }
        self.curves = kept.map { curves[$0] }
        self.tables = kept.map { tables[$0] }
        var total = 0.0
        ends = kept.map { index in
            total += tables[index].length
            return total
        }
    }

    /// The stroke's length in points.
    package var length: Double { ends[ends.count - 1] }

    /// The point `progress` (clamped to 0…1) of the way along the stroke by length, and the direction the stroke
    /// goes there, in radians (0 along +x, clockwise on screen).
    package func point(at progress: Double) -> (point: Point, direction: Double) {
        let distance = min(max(progress.isNaN ? 0 : progress, 0), 1) * length
        // The first curve whose end reaches the distance.
        var (low, high) = (0, ends.count - 1)
        while low < high {
            let mid = (low + high) / 2
            if ends[mid] < distance { low = mid + 1 } else { high = mid }
        }
        let begin = low == 0 ? 0 : ends[low - 1]
        let curve = curves[low]
        let t = tables[low].parameter(atFraction: (distance - begin) / (ends[low] - begin))
        return (curve.point(at: t), Self.direction(of: curve, at: t))
    }

    /// The tangent's direction at `t`; where the derivative vanishes (a control point on its end point), the
    /// direction of the chord through the points just before and after.
    private static func direction(of curve: CubicBezier, at t: Double) -> Double {
        let derivative = curve.derivative(at: t)
        if derivative.length > 1e-9 { return atan2(derivative.y, derivative.x) }
        let (before, after) = (curve.point(at: max(0, t - 1e-4)), curve.point(at: min(1, t + 1e-4)))
        return atan2(after.y - before.y, after.x - before.x)
    }

    /// The same curves measure the same.
    package static func == (lhs: ArcLengthStroke, rhs: ArcLengthStroke) -> Bool { lhs.curves == rhs.curves }
}
