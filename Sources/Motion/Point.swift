import StrictJSON

/// A point in iOS points, y down.
public struct Point: Sendable, Equatable, Hashable, Encodable {
    /// The horizontal coordinate, growing to the right.
    public var x: Double
    /// The vertical coordinate, growing downwards.
    public var y: Double

    /// Creates a point from its coordinates.
    public init(_ x: Double, _ y: Double) {
        self.x = x
        self.y = y
    }

    /// The origin (0, 0).
    public static let zero = Point(0, 0)

    /// How far from the origin a point a job gives may lie, in points, in either coordinate: far beyond any
    /// canvas, and small enough that sums and products of coordinates stay exact to a millionth.
    public static let coordinateLimit = 1_000_000.0

    /// The Euclidean length of the point seen as a vector from the origin.
    public var length: Double { (x * x + y * y).squareRoot() }

    /// The Euclidean distance to another point.
    public func distance(to other: Point) -> Double { (other - self).length }

    /// Component-wise sum.
    public static func + (lhs: Point, rhs: Point) -> Point { Point(lhs.x + rhs.x, lhs.y + rhs.y) }

    /// Component-wise difference.
    public static func - (lhs: Point, rhs: Point) -> Point { Point(lhs.x - rhs.x, lhs.y - rhs.y) }

    /// Negation of both components.
    public static prefix func - (point: Point) -> Point { Point(-point.x, -point.y) }

    /// Scaling by a scalar.
    public static func * (lhs: Point, rhs: Double) -> Point { Point(lhs.x * rhs, lhs.y * rhs) }

    /// Scaling by a scalar.
    public static func * (lhs: Double, rhs: Point) -> Point { Point(lhs * rhs.x, lhs * rhs.y) }

    /// Division by a scalar.
    public static func / (lhs: Point, rhs: Double) -> Point { Point(lhs.x / rhs, lhs.y / rhs) }

    /// Adds another point in place.
    public static func += (lhs: inout Point, rhs: Point) { lhs = lhs + rhs }

    /// Subtracts another point in place.
    public static func -= (lhs: inout Point, rhs: Point) { lhs = lhs - rhs }

    /// The dot product with another vector.
    public func dot(_ other: Point) -> Double { x * other.x + y * other.y }

    /// The z component of the cross product with another vector.
    public func cross(_ other: Point) -> Double { x * other.y - y * other.x }
}

extension Point {
    /// `[x, y]`, the job file's point notation.
    public var json: JSONValue { .array([.number(x), .number(y)]) }
}
