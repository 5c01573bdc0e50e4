import Foundation
import Motion

/// An affine map of the plane in cairo's terms (`cairo_matrix_t`): the point (x, y) goes to
/// (xx · x + xy · y + x0, yx · x + yy · y + y0). Where a layer's points land on the canvas.
package struct AffineMap: Sendable, Equatable {
    package var xx: Double
    package var yx: Double
    package var xy: Double
    package var yy: Double
    package var x0: Double
    package var y0: Double

    package init(xx: Double, yx: Double, xy: Double, yy: Double, x0: Double, y0: Double) {
        (self.xx, self.yx, self.xy, self.yy, self.x0, self.y0) = (xx, yx, xy, yy, x0, y0)
    }

    /// The map that moves nothing.
    package static let identity = AffineMap(xx: 1, yx: 0, xy: 0, yy: 1, x0: 0, y0: 0)

    /// Where the point `p` goes.
    package func apply(_ p: Point) -> Point {
        Point(xx * p.x + xy * p.y + x0, yx * p.x + yy * p.y + y0)
    }

    /// Where the vector `v` goes: the linear part alone (a velocity, a side of a box).
    package func applyVector(_ v: Point) -> Point {
        Point(xx * v.x + xy * v.y, yx * v.x + yy * v.y)
    }

    /// This map, then `outer`: `outer.apply(apply(p))` for every p.
    package func then(_ outer: AffineMap) -> AffineMap {
        AffineMap(
            xx: outer.xx * xx + outer.xy * yx, yx: outer.yx * xx + outer.yy * yx,
            xy: outer.xx * xy + outer.xy * yy, yy: outer.yx * xy + outer.yy * yy,
            x0: outer.xx * x0 + outer.xy * y0 + outer.x0, y0: outer.yx * x0 + outer.yy * y0 + outer.y0)
    }

    /// How much the map scales lengths, on average over directions: the square root of the factor
    /// by which it scales areas (|s| for a uniform scale s at any rotation; √(sx · sy) for a
    /// non-uniform one).
    package var lengthScale: Double { abs(xx * yy - xy * yx).squareRoot() }

    /// The direction, in radians (clockwise on screen), that a direction at `angle` points to
    /// after the map: `angle` plus the turn the map gives it, so a map that does not turn it gives
    /// back `angle` itself rather than an equal angle in another turn.
    package func direction(_ angle: Double) -> Double {
        let d = Point(cos(angle), sin(angle))
        let mapped = applyVector(d)
        return angle + atan2(d.x * mapped.y - d.y * mapped.x, d.x * mapped.x + d.y * mapped.y)
    }

    /// The six numbers in cairo's order: `[xx, yx, xy, yy, x0, y0]`.
    package var numbers: [Double] { [xx, yx, xy, yy, x0, y0] }
}
