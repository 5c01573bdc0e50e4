import Foundation

/// A parametric Bezier segment B(t), t in [0, 1], in iOS points.
public protocol BezierCurve: Sendable {
    /// The point B(t).
    func point(at t: Double) -> Point
    /// The derivative B'(t) (velocity per unit of t).
    func derivative(at t: Double) -> Point
    /// B(0).
    var start: Point { get }
    /// B(1).
    var end: Point { get }
}

/// A cubic Bezier segment (`addCurveToPoint:controlPoint1:controlPoint2:`).
public struct CubicBezier: BezierCurve, Equatable, Hashable {
    /// Start point.
    public var p0: Point
    /// First control point.
    public var p1: Point
    /// Second control point.
    public var p2: Point
    /// End point.
    public var p3: Point

    /// Creates the curve from its start, control and end points.
    public init(_ p0: Point, _ p1: Point, _ p2: Point, _ p3: Point) {
        (self.p0, self.p1, self.p2, self.p3) = (p0, p1, p2, p3)
    }

    /// B(0) = p0.
    public var start: Point { p0 }
    /// B(1) = p3.
    public var end: Point { p3 }

    /// B(t) = (1−t)³P0 + 3(1−t)²tP1 + 3(1−t)t²P2 + t³P3.
    public func point(at t: Double) -> Point {
        let s = 1 - t
        return (s * s * s) * p0 + (3 * s * s * t) * p1 + (3 * s * t * t) * p2 + (t * t * t) * p3
    }

    /// B'(t) = 3(1−t)²(P1−P0) + 6(1−t)t(P2−P1) + 3t²(P3−P2) (<doc:KeyframePaths>).
    public func derivative(at t: Double) -> Point {
        let s = 1 - t
        return (3 * s * s) * (p1 - p0) + (6 * s * t) * (p2 - p1) + (3 * t * t) * (p3 - p2)
    }
}

/// A quadratic Bezier segment (`addQuadCurveToPoint:controlPoint:`).
public struct QuadraticBezier: BezierCurve, Equatable, Hashable {
    /// Start point.
    public var p0: Point
    /// Control point.
    public var p1: Point
    /// End point.
    public var p2: Point

    /// Creates the curve from its start, control and end points.
    public init(_ p0: Point, _ p1: Point, _ p2: Point) {
        (self.p0, self.p1, self.p2) = (p0, p1, p2)
    }

    /// B(0) = p0.
    public var start: Point { p0 }
    /// B(1) = p2.
    public var end: Point { p2 }

    /// B(t) = (1−t)²P0 + 2(1−t)tP1 + t²P2.
    public func point(at t: Double) -> Point {
        let s = 1 - t
        return (s * s) * p0 + (2 * s * t) * p1 + (t * t) * p2
    }

    /// B'(t) = 2(1−t)(P1−P0) + 2t(P2−P1) (<doc:KeyframePaths>).
    public func derivative(at t: Double) -> Point {
        (2 * (1 - t)) * (p1 - p0) + (2 * t) * (p2 - p1)
    }

    /// Relative size of |a×b|² under which the curve is treated as a straight (collinear) one.
    private static let collinearTolerance = 1e-12

    /// The arc length in closed form (<doc:KeyframePaths>), exact also for straight (degenerate) curves.
    public var exactLength: Double {
        // B'(t) = b + 2a·t with a = P0 − 2P1 + P2, b = 2(P1 − P0) (KeyframePaths article).
        let a = p0 - 2 * p1 + p2
        let b = 2 * (p1 - p0)
        let capA = 4 * a.dot(a)
        let capB = 4 * a.dot(b)
        let capC = b.dot(b)
        let discriminant = 4 * capC * capA - capB * capB  // = 16 |a×b|²
        if capA == 0 || capC == 0 || discriminant <= Self.collinearTolerance * 4 * capC * capA {
            return collinearLength(a: a, b: b)
        }
        let sabc = 2 * (capA + capB + capC).squareRoot()
        let a2 = capA.squareRoot()
        let a32 = 2 * capA * a2
        let c2 = 2 * capC.squareRoot()
        let ba = capB / a2
        let logTerm = log((2 * a2 + ba + sabc) / (ba + c2))
        return (a32 * sabc + a2 * capB * (sabc - c2) + discriminant * logTerm) / (4 * a32)
    }

    /// ∫₀¹ |b + 2a·t| dt when a and b are parallel: the curve runs along a line, possibly turning back.
    private func collinearLength(a: Point, b: Point) -> Double {
        let direction = a.length > 0 ? a / a.length : (b.length > 0 ? b / b.length : Point.zero)
        let speed0 = b.dot(direction)  // signed speed at t = 0
        let speed1 = (b + 2 * a).dot(direction)  // signed speed at t = 1
        if speed0 * speed1 >= 0 {
            return abs(speed0 + speed1) / 2
        }
        // The speed changes sign at t* = speed0 / (speed0 − speed1): two triangles.
        let turn = speed0 / (speed0 - speed1)
        return (abs(speed0) * turn + abs(speed1) * (1 - turn)) / 2
    }
}
