import Foundation

/// A path a layer moves along (a layer's `transform.path`, the RenderFarm article ComposingLayers): SVG path data
/// of one stroke, travelled by arc length, so equal steps of progress are equal distances along it.
package struct MotionPath: Sendable, Equatable, Encodable {
    /// The path data as the job wrote it.
    package let data: String
    /// The stroke as cubic curves (lines and arcs turned into cubics), zero-length pieces left out.
    private let curves: [CubicBezier]
    private let tables: [ArcLengthTable]
    /// The length along the path at the end of each curve.
    private let ends: [Double]

    /// Why path data cannot be a motion path.
    package enum Problem: Error, Equatable, CustomStringConvertible {
        case syntax(SVGPathError)
        /// A second `M` after something was drawn: the layer would have to jump.
        case twoStrokes
        /// Nothing to travel along.
        case empty

        package var description: String {
            switch self {
            case .syntax(let error): "path data \(error)"
            case .twoStrokes: "a motion path is one stroke: only its first command may be M"
            case .empty: "the path has no length: give it a segment after M (L, C, Q, A, …)"
            }
        }
    }

    /// Parses and measures `data`.
    package init(_ data: String) throws(Problem) {
        let elements: [PathElement]
        do {
            elements = try SVGPath(data).elements
        } catch {
            throw .syntax(error)
        }
        var curves: [CubicBezier] = []
        var (current, start) = (Point.zero, Point.zero)
        var moved = false
        func line(to end: Point) -> CubicBezier {
            CubicBezier(current, current + (end - current) / 3, current + (end - current) * (2.0 / 3), end)
        }
        for element in elements {
            switch element {
            case .move(let point):
                if moved && !curves.isEmpty { throw .twoStrokes }
                (current, start, moved) = (point, point, true)
                continue
            case .line(let end): curves.append(line(to: end))
            case .curve(let c1, let c2, let end): curves.append(CubicBezier(current, c1, c2, end))
            case .close: curves.append(line(to: start))
            }
            current = curves[curves.count - 1].end
        }
        let tables = curves.map { ArcLengthTable(curve: $0, samples: Self.samplesPerCurve) }
        let kept = tables.indices.filter { tables[$0].length > 0 }
        guard !kept.isEmpty else { throw .empty }
        self.data = data
        self.curves = kept.map { curves[$0] }
        self.tables = kept.map { tables[$0] }
        var total = 0.0
        ends = kept.map { index in
            total += tables[index].length
            return total
        }
    }

    /// Chords per curve in the arc-length tables: the position error stays far below a thousandth of a point on
    /// curves of canvas size (<doc:KeyframePaths>).
    static let samplesPerCurve = 1024

    /// The path's length in points.
    package var length: Double { ends[ends.count - 1] }

    /// The point `progress` (clamped to 0…1) of the way along the path by length, and the direction the path
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

    package static func == (lhs: MotionPath, rhs: MotionPath) -> Bool { lhs.data == rhs.data }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(data)
    }
}
