import EffectKit

/// The heart of the seed's `drawRect:` in a `size` × `size` view: two quad curves from the tip
/// and two arcs on top, 2 pt padding, coordinates floored like the original.
struct HeartShape: Sendable {
    /// `drawingPadding` in the seed.
    static let padding = 2.0

    let size: Double

    var curveRadius: Double { ((size - 2 * Self.padding) / 4).rounded(.down) }
    var tip: Point { Point((size / 2).rounded(.down), size - Self.padding) }
    var topLeftCurveStart: Point { Point(Self.padding, (size / 3).rounded(.down)) }

    /// Adds the outline to the current path, in the view's own coordinates.
    func addPath(to context: DrawingContext) {
        let radius = curveRadius
        let left = topLeftCurveStart
        context.move(to: tip.x, tip.y)
        context.quadCurve(to: left.x, left.y, control: left.x, left.y + radius)
        // UIKit's arc from π to 0 clockwise bulges upward; in cairo (y down) that is π → 2π.
        context.arc(centerX: left.x + radius, centerY: left.y, radius: radius, from: .pi, to: 2 * .pi)
        context.arc(centerX: left.x + 3 * radius, centerY: left.y, radius: radius, from: .pi, to: 2 * .pi)
        let rightEnd = Point(left.x + 4 * radius, left.y)
        context.quadCurve(to: tip.x, tip.y, control: rightEnd.x, rightEnd.y + radius)
    }
}
