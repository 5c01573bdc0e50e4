import Foundation

/// An SVG elliptical arc (the A command) as cubic Bézier curves, by the conversion of SVG 1.1 appendix F.6:
/// endpoint to centre parameterisation (F.6.5), radii scaled up when too small (F.6.6), then one curve per
/// quarter turn or less, whose control points lie 4/3 · tan(θ/4) along the tangents (the error stays below
/// 0.03 % of the radius).
struct SVGArc {
    let elements: [PathElement]

    /// The arc from `start` to `end` on the ellipse of `radii` (signs ignored) rotated by `rotation` degrees.
    init(from start: Point, to end: Point, radii: Point, rotation: Double, largeArc: Bool, sweep: Bool) {
        var rx = abs(radii.x)
        var ry = abs(radii.y)
        // F.6.2: an arc to its own start draws nothing; a zero radius draws a line.
        if start == end {
            elements = []
            return
        }
        if rx == 0 || ry == 0 {
            elements = [.line(end)]
            return
        }
        let phi = rotation.truncatingRemainder(dividingBy: 360) * .pi / 180
        let (cosPhi, sinPhi) = (cos(phi), sin(phi))
        // F.6.5.1: the start in the ellipse's own axes, relative to the chord's midpoint.
        let dx = (start.x - end.x) / 2
        let dy = (start.y - end.y) / 2
        let x1 = cosPhi * dx + sinPhi * dy
        let y1 = -sinPhi * dx + cosPhi * dy
        // F.6.6.2: radii too small to reach from start to end grow, keeping their ratio.
        let lambda = (x1 * x1) / (rx * rx) + (y1 * y1) / (ry * ry)
        if lambda > 1 {
            rx *= lambda.squareRoot()
            ry *= lambda.squareRoot()
        }
        // F.6.5.2: the centre in those axes.
        let numerator = rx * rx * ry * ry - rx * rx * y1 * y1 - ry * ry * x1 * x1
        let denominator = rx * rx * y1 * y1 + ry * ry * x1 * x1
        let root = (max(0, numerator) / denominator).squareRoot() * (largeArc == sweep ? -1 : 1)
        let cx1 = root * rx * y1 / ry
        let cy1 = -root * ry * x1 / rx
        // F.6.5.3: the centre on the canvas.
        let center = Point(
            cosPhi * cx1 - sinPhi * cy1 + (start.x + end.x) / 2, sinPhi * cx1 + cosPhi * cy1 + (start.y + end.y) / 2)
        // F.6.5.5 and 6: the start angle and the sweep, on the unit circle the ellipse is stretched from.
        let theta1 = atan2((y1 - cy1) / ry, (x1 - cx1) / rx)
        var delta = atan2((-y1 - cy1) / ry, (-x1 - cx1) / rx) - theta1
        if sweep, delta < 0 { delta += 2 * .pi }
        if !sweep, delta > 0 { delta -= 2 * .pi }

        // Quarter turns or less each; a hair less than a whole number of quarters is not one more curve.
        let count = max(1, Int((abs(delta) / (.pi / 2) - 1e-9).rounded(.up)))
        let step = delta / Double(count)
        let k = 4 / 3 * tan(step / 4)
        func onEllipse(_ x: Double, _ y: Double) -> Point {
            Point(center.x + rx * cosPhi * x - ry * sinPhi * y, center.y + rx * sinPhi * x + ry * cosPhi * y)
        }
        var elements: [PathElement] = []
        var angle = theta1
        for segment in 0..<count {
            let next = angle + step
            let (cos0, sin0, cos1, sin1) = (cos(angle), sin(angle), cos(next), sin(next))
            let c1 = onEllipse(cos0 - k * sin0, sin0 + k * cos0)
            let c2 = onEllipse(cos1 + k * sin1, sin1 - k * cos1)
            // The last curve ends exactly where the command said, not where rounding put it.
            elements.append(.curve(c1, c2, segment == count - 1 ? end : onEllipse(cos1, sin1)))
            angle = next
        }
        self.elements = elements
    }
}
