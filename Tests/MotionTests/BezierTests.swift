import Testing

@testable import Motion

/// The heart path of Motion article KeyframePaths ("Test vectors"): W = 36, H = 667, centre (300, 600),
/// dir = +1, end.y = H/6 + 100, x = −48.
private enum Heart {
    static let endY = 667.0 / 6 + 100  // 211.1667, kept exact so the length matches to 1e-5
    static let curve = CubicBezier(Point(300, 600), Point(252, 667 - endY), Point(396, endY), Point(340, endY))
    static let length = 404.745420
}

/// The parabola of Motion article KeyframePaths ("Test vectors"): S = (60, 300),
/// C = (60 + 0.3·190, 300 − 150), E = (250, 500).
private enum Parabola {
    static let curve = QuadraticBezier(Point(60, 300), Point(117, 150), Point(250, 500))
    static let length = 359.308956
}

/// One row of a KeyframePaths test-vector table: progress u, (A) position, (B) parameter and position.
private struct PathVector: Sendable, CustomTestStringConvertible {
    let u: Double
    let bezier: Point
    let pacedT: Double
    let paced: Point
    var testDescription: String { "u = \(u)" }
}

private let heartVectors = [
    PathVector(u: 0.25, bezier: Point(293.875, 478.424), pacedT: 0.208448, paced: Point(291.461, 499.872)),
    PathVector(u: 0.50, bezier: Point(323.000, 351.521), pacedT: 0.400827, paced: Point(309.578, 400.431)),
    PathVector(u: 0.75, bezier: Point(350.625, 251.648), pacedT: 0.608110, paced: Point(337.284, 303.119)),
]

private let parabolaVectors = [
    PathVector(u: 0.25, bezier: Point(93.250, 256.250), pacedT: 0.435823, paced: Point(124.119, 264.224)),
    PathVector(u: 0.50, bezier: Point(136.000, 275.000), pacedT: 0.701952, paced: Point(177.470, 335.783)),
    PathVector(u: 0.75, bezier: Point(188.250, 356.250), pacedT: 0.868697, paced: Point(216.384, 416.708)),
]

@Suite("Bezier paths and arc length (KeyframePaths)")
struct BezierTests {
    @Test("heart (A): position = B(u) to 1e-3", arguments: heartVectors)
    fileprivate func heartBezier(_ vector: PathVector) {
        let path = KeyframePath(curve: Heart.curve, sampling: .bezier)
        #expect(path.position(at: vector.u).distance(to: vector.bezier) < 1e-3)
    }

    @Test("heart (B): paced position to 0.01 pt and parameter to 1e-4", arguments: heartVectors)
    fileprivate func heartPaced(_ vector: PathVector) {
        let path = KeyframePath(curve: Heart.curve, sampling: .paced)
        #expect(abs(path.parameter(at: vector.u) - vector.pacedT) < 1e-4)
        #expect(path.position(at: vector.u).distance(to: vector.paced) < 0.01)
    }

    @Test("heart length: 404.745420 by adaptive Gauss–Legendre (1e-5) and by the table (0.05)")
    func heartLength() {
        #expect(abs(ArcLength.length(of: Heart.curve) - Heart.length) < 1e-5)
        #expect(abs(ArcLengthTable(curve: Heart.curve).length - Heart.length) < 0.05)
    }

    @Test("parabola length: closed form 359.308956 (1e-6) equals the quadrature")
    func parabolaLength() {
        let exact = Parabola.curve.exactLength
        #expect(abs(exact - Parabola.length) < 1e-6)
        #expect(abs(ArcLength.length(of: Parabola.curve) - exact) < 1e-8)
        #expect(abs(ArcLengthTable(curve: Parabola.curve).length - exact) < 0.05)
    }

    @Test("parabola (A): position = B(u) to 1e-3", arguments: parabolaVectors)
    fileprivate func parabolaBezier(_ vector: PathVector) {
        let path = KeyframePath(curve: Parabola.curve, sampling: .bezier)
        #expect(path.position(at: vector.u).distance(to: vector.bezier) < 1e-3)
    }

    @Test("parabola (B): paced position to 0.01 pt and parameter to 1e-4", arguments: parabolaVectors)
    fileprivate func parabolaPaced(_ vector: PathVector) {
        let path = KeyframePath(curve: Parabola.curve, sampling: .paced)
        #expect(abs(path.parameter(at: vector.u) - vector.pacedT) < 1e-4)
        #expect(path.position(at: vector.u).distance(to: vector.paced) < 0.01)
    }

    @Test("parabola apex (A) at u = 0.3 is (101.04, 255.0), where the vertical speed vanishes")
    func parabolaApex() {
        let path = KeyframePath(curve: Parabola.curve, sampling: .bezier)
        #expect(path.position(at: 0.3).distance(to: Point(101.04, 255.0)) < 1e-9)
        #expect(abs(Parabola.curve.derivative(at: 0.3).y) < 1e-9)
    }

    @Test("progress is clamped and both samplings start and end at the path's ends", arguments: PathSampling.allCases)
    func clamping(_ sampling: PathSampling) {
        let path = KeyframePath(curve: Heart.curve, sampling: sampling)
        #expect(path.position(at: -1) == Heart.curve.start)
        #expect(path.position(at: 0) == Heart.curve.start)
        #expect(path.position(at: 1) == Heart.curve.end)
        #expect(path.position(at: 2) == Heart.curve.end)
        #expect(PathSampling(rawValue: sampling.rawValue) == sampling)
    }

    @Test("paced motion has constant speed: equal progress steps cover equal arc lengths")
    func pacedIsUniform() {
        let path = KeyframePath(curve: Heart.curve, sampling: .paced)
        for i in 0..<10 {
            let t0 = path.parameter(at: Double(i) / 10)
            let t1 = path.parameter(at: Double(i + 1) / 10)
            let piece = ArcLength.length(of: Heart.curve, from: t0, to: t1)
            #expect(abs(piece - Heart.length / 10) < 1e-3)
        }
    }

    @Test("table parameters are monotonic and hit both ends")
    func tableMonotonic() {
        let table = ArcLengthTable(curve: Parabola.curve, samples: 64)
        #expect(table.parameter(atFraction: 0) == 0)
        #expect(table.parameter(atFraction: 1) == 1)
        var previous = 0.0
        for i in 1...500 {
            let t = table.parameter(atFraction: Double(i) / 500)
            #expect(t >= previous)
            previous = t
        }
    }

    @Test("derivatives match central differences")
    func derivatives() {
        let h = 1e-6
        for t in [0.1, 0.37, 0.8] {
            let cubic = (Heart.curve.point(at: t + h) - Heart.curve.point(at: t - h)) / (2 * h)
            #expect(cubic.distance(to: Heart.curve.derivative(at: t)) < 1e-4)
            let quad = (Parabola.curve.point(at: t + h) - Parabola.curve.point(at: t - h)) / (2 * h)
            #expect(quad.distance(to: Parabola.curve.derivative(at: t)) < 1e-4)
        }
    }

    @Test("degenerate quadratics: straight line, turning back, single point")
    func degenerateQuadratics() {
        // a = 0: evenly spaced control point, a straight line from (0,0) to (3,4).
        let straight = QuadraticBezier(Point(0, 0), Point(1.5, 2), Point(3, 4))
        #expect(abs(straight.exactLength - 5) < 1e-12)
        // Collinear but uneven: still the straight distance.
        let uneven = QuadraticBezier(Point(0, 0), Point(0.5, 0), Point(3, 0))
        #expect(abs(uneven.exactLength - 3) < 1e-12)
        #expect(abs(ArcLength.length(of: uneven) - 3) < 1e-9)
        // Speed |6 − 10t| changes sign at t = 0.6: out to x = 1.8, back to 1, length 2.6.
        let turning = QuadraticBezier(Point(0, 0), Point(3, 0), Point(1, 0))
        #expect(abs(turning.exactLength - 2.6) < 1e-12)
        #expect(abs(ArcLength.length(of: turning) - 2.6) < 1e-7)
        let point = QuadraticBezier(Point(2, 2), Point(2, 2), Point(2, 2))
        #expect(point.exactLength == 0)
        #expect(ArcLength.length(of: point) == 0)
        #expect(ArcLengthTable(curve: point).parameter(atFraction: 0.5) == 0.5)
    }

    @Test("a cubic with a cusp still integrates accurately")
    func cuspCubic() {
        // B'(0.5) = 0. Reference: the same curve as two cubics split at the cusp, each smooth.
        let cusp = CubicBezier(Point(0, 0), Point(1, 1), Point(0, 1), Point(1, 0))
        let total = ArcLength.length(of: cusp)
        let halves = ArcLength.length(of: cusp, from: 0, to: 0.5) + ArcLength.length(of: cusp, from: 0.5, to: 1)
        #expect(abs(total - halves) < 1e-8)
        #expect(abs(ArcLengthTable(curve: cusp, samples: 4096).length - total) < 1e-6)
    }

    @Test("point arithmetic")
    func pointArithmetic() {
        let a = Point(3, 4)
        #expect(a.length == 5)
        #expect(a.distance(to: Point(0, 0)) == 5)
        #expect(a + Point(1, 1) == Point(4, 5))
        #expect(a - Point(1, 1) == Point(2, 3))
        #expect(a * 2 == Point(6, 8))
        #expect(2 * a == Point(6, 8))
        #expect(-a == Point(-3, -4))
    }
}
