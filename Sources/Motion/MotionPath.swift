/// A path a layer moves along (a layer's `transform.path`, the RenderFarm article ComposingLayers): SVG path data
/// of one stroke, travelled by arc length, so equal steps of progress are equal distances along it.
package struct MotionPath: Sendable, Equatable, Encodable {
    /// The path data as the job wrote it.
    package let data: String
    /// The stroke as cubic curves (lines and arcs turned into cubics), measured.
    private let stroke: ArcLengthStroke

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
        guard let stroke = ArcLengthStroke(curves) else { throw .empty }
        self.data = data
        self.stroke = stroke
    }

    /// The path's length in points.
    package var length: Double { stroke.length }

    /// The point `progress` (clamped to 0…1) of the way along the path by length, and the direction the path
    /// goes there, in radians (0 along +x, clockwise on screen).
    package func point(at progress: Double) -> (point: Point, direction: Double) { stroke.point(at: progress) }

    package static func == (lhs: MotionPath, rhs: MotionPath) -> Bool { lhs.data == rhs.data }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(data)
    }
}
