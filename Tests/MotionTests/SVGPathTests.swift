import Foundation
import Testing

@testable import Motion

/// SVG path data read into the elements cairo draws: every command, absolute and relative, implicit repetition, smooth
/// curves, arcs, SVG's number spellings, and errors that say where the data went wrong.
@Suite("SVG path data")
struct SVGPathTests {
    static func elements(_ data: String) throws -> [PathElement] { try SVGPath(data).elements }

    static func near(_ a: Point, _ b: Point, _ tolerance: Double = 1e-9) -> Bool {
        abs(a.x - b.x) <= tolerance && abs(a.y - b.y) <= tolerance
    }

    @Test("relative commands, implicit repetition and H/V give the same path as absolute ones")
    func relative() throws {
        let absolute = try Self.elements("M 10 10 L 50 10 L 50 50 L 10 50 Z M 60 60 L 70 70")
        #expect(try Self.elements("m10,10 l40,0 0,40 -40,0 z m50 50 10 10") == absolute)
        #expect(try Self.elements("M10 10 H50 V50 H10 Z M60,60 70,70") == absolute)
        #expect(try Self.elements("M10 10h40v40h-40zm50 50l10 10") == absolute)
        #expect(absolute.count == 7)
    }

    @Test("after Z, a relative command starts from the closed subpath's start")
    func afterClose() throws {
        #expect(
            try Self.elements("M 10 10 l 5 0 z l 0 5") == [
                .move(Point(10, 10)), .line(Point(15, 10)), .close, .line(Point(10, 15)),
            ])
    }

    @Test("S mirrors the previous cubic's second control point, T the previous quadratic's control point")
    func smooth() throws {
        let cubic = try Self.elements("M0 0 C 10 0 20 10 20 20 s 10 20 20 20")
        #expect(cubic.last == .curve(Point(20, 30), Point(30, 40), Point(40, 40)))
        // S after a line: the first control point is the current point.
        #expect(try Self.elements("M0 0 L 5 5 S 10 10 20 20").last == .curve(Point(5, 5), Point(10, 10), Point(20, 20)))
        let quadratic = try Self.elements("M0 0 Q 10 10 20 0 T 40 0")
        // The mirrored control point is (30, -10); raised to a cubic: two thirds of the way from each end.
        guard case .curve(let c1, let c2, let end) = quadratic.last else {
            Issue.record("no curve: \(quadratic)")
            return
        }
        #expect(Self.near(c1, Point(20 + 20.0 / 3, -20.0 / 3)))
        #expect(Self.near(c2, Point(40 - 20.0 / 3, -20.0 / 3)))
        #expect(end == Point(40, 0))
        guard case .curve(let q1, let q2, _) = quadratic[1] else { return }
        #expect(Self.near(q1, Point(20.0 / 3, 20.0 / 3)) && Self.near(q2, Point(20 - 20.0 / 3, 20.0 / 3)))
    }

    @Test("numbers in SVG's spellings: signs and points as separators, exponents, no separators at all")
    func numbers() throws {
        #expect(
            try Self.elements("M.5.5L-1e1-2E+0l+3,.25e1") == [
                .move(Point(0.5, 0.5)), .line(Point(-10, -2)), .line(Point(-7, 0.5)),
            ])
    }

    /// Every point of the cubic `from` → `curve` at 33 parameter values.
    static func samples(from start: Point, _ element: PathElement) -> [Point] {
        guard case .curve(let c1, let c2, let end) = element else { return [] }
        return (0...32).map { step in
            let t = Double(step) / 32
            let u = 1 - t
            let (a, b, c, d) = (u * u * u, 3 * u * u * t, 3 * u * t * t, t * t * t)
            return Point(
                a * start.x + b * c1.x + c * c2.x + d * end.x, a * start.y + b * c1.y + c * c2.y + d * end.y)
        }
    }

    /// The points of every curve of `elements`, each curve starting where the one before ended.
    static func curvePoints(_ elements: [PathElement]) -> [Point] {
        var current = Point(0, 0)
        var points: [Point] = []
        for element in elements {
            switch element {
            case .move(let point), .line(let point): current = point
            case .curve(_, _, let end):
                points += samples(from: current, element)
                current = end
            case .close: break
            }
        }
        return points
    }

    @Test(
        "arcs become cubics on the ellipse (within 0.03 % of the radius), in the direction of the sweep flag",
        arguments: [
            // data, centre, rx, ry, a point the arc passes through
            ("M 0 50 A 50 50 0 0 1 100 50", Point(50, 50), 50.0, 50.0, Point(50, 0)),
            ("M 0 50 A 50 50 0 0 0 100 50", Point(50, 50), 50.0, 50.0, Point(50, 100)),
            // Compact flags and a relative end: three quarters of a circle, the large arc, clockwise.
            ("M 100 50 a50 50 0 11-50-50", Point(50, 50), 50.0, 50.0, Point(0, 50)),
            // The same ends, the large arc counter-clockwise: about the other centre.
            ("M 100 50 a50 50 0 10-50-50", Point(100, 0), 50.0, 50.0, Point(150, 0)),
            // Radii too small to reach: scaled up to the half chord.
            ("M 0 0 A 1 1 0 0 1 100 0", Point(50, 0), 50.0, 50.0, Point(50, -50)),
            // An ellipse rotated by 90 degrees: rx along y.
            ("M 50 0 A 50 20 90 0 1 50 100", Point(50, 50), 20.0, 50.0, Point(70, 50)),
        ])
    func arcs(data: String, center: Point, rx: Double, ry: Double, through: Point) throws {
        let elements = try Self.elements(data)
        let points = Self.curvePoints(elements)
        #expect(!points.isEmpty)
        for point in points {
            // On the axis-aligned ellipse about `center` (the rotated case is given with its axes swapped).
            let dx = (point.x - center.x) / rx
            let dy = (point.y - center.y) / ry
            #expect(abs((dx * dx + dy * dy).squareRoot() - 1) < 3e-4, "\(point) is off the ellipse")
        }
        #expect(points.contains { Self.near($0, through, 0.5) }, "the arc does not pass through \(through)")
        #expect(elements.count <= 1 + 4)
    }

    @Test("a zero radius draws a line; an arc to its own start draws nothing")
    func degenerateArcs() throws {
        #expect(try Self.elements("M 0 0 A 0 10 0 0 1 20 0") == [.move(Point(0, 0)), .line(Point(20, 0))])
        #expect(try Self.elements("M 5 5 A 10 10 0 0 1 5 5") == [.move(Point(5, 5))])
    }

    @Test(
        "bad path data is refused at the character where it goes wrong",
        arguments: [
            ("", 1, "the path data is empty"),
            ("M 10 10 L 20", 13, "expected a number (y of L), the data ends"),
            ("M 10 10 X 5 5", 9, "expected a command (M, L, H, V, C, S, Q, T, A, Z"),
            ("L 10 10", 2, "path data must start with M or m"),
            ("M 1 1 A 5 5 0 2 1 3 3", 15, "expected 0 or 1 (large-arc-flag of A), found \"2\""),
            ("M 1e999 0", 3, "1e999 is out of range"),
            ("M 0 0 L 1e7 0", 9, "x of L must be within ±1000000 points"),
            ("M 0 0 z 5", 9, "Z takes no numbers"),
            ("M 0 0 L 1e 0", 11, "expected the digits of an exponent"),
            ("M 0 0 L 1, , 2", 12, "expected a number (y of L), found \",\""),
            ("M 0 0 L 1 2 é", 13, "expected a command"),
        ])
    func errors(data: String, position: Int, problem: String) throws {
        #expect(throws: SVGPathError.self) { try SVGPath(data) }
        do {
            _ = try SVGPath(data)
        } catch {
            #expect(error.position == position, "\(error)")
            #expect(error.problem.hasPrefix(problem), "\(error)")
        }
    }

    @Test("the message shows the data around the character")
    func excerpt() {
        let data = "M 0 0 L 10 10 L 20 20 L 30 x 40 L 50 50 L 60 60"
        #expect(
            throws: SVGPathError(
                position: 28, excerpt: "near \"… 20 20 L 30 x 40 L 50 50…\"",
                problem: "expected a number (y of L), found \"x\"")
        ) {
            try SVGPath(data)
        }
        #expect(
            SVGPathError(position: 29, excerpt: "near \"…30 x…\"", problem: "expected a number").description
                == "at character 29 (near \"…30 x…\"): expected a number")
    }
}
