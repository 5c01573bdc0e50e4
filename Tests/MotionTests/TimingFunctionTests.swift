import Testing

@testable import Motion

/// Motion article TimingFunctions, "Test vectors": WebKit algorithm, eps 1e-7, double.
private struct TimingVector: Sendable, CustomTestStringConvertible {
    let name: String
    let x: Double
    let expected: Double
    var testDescription: String { "\(name)(\(x)) = \(expected)" }
}

private let timingTable: [(x: Double, values: [Double])] = [
    (0.10, [0.100000, 0.017027, 0.160572, 0.019722, 0.094796]),
    (0.25, [0.250000, 0.093465, 0.378138, 0.129162, 0.408511]),
    (0.50, [0.500000, 0.315357, 0.684643, 0.500000, 0.802403]),
    (0.75, [0.750000, 0.621862, 0.906535, 0.870838, 0.960459]),
    (0.90, [0.900000, 0.839428, 0.982973, 0.980278, 0.994316]),
]

private let timingVectors: [TimingVector] = timingTable.flatMap { row in
    zip(TimingFunction.names, row.values).map { TimingVector(name: $0.0, x: row.x, expected: $0.1) }
}

@Suite("TimingFunction (TimingFunctions)")
struct TimingFunctionTests {
    @Test("matches the TimingFunctions test vectors to 1e-6", arguments: timingVectors)
    fileprivate func table(_ vector: TimingVector) throws {
        let function = try #require(TimingFunction(name: vector.name))
        #expect(abs(function(vector.x) - vector.expected) < 1e-6)
    }

    @Test("easeInEaseOut matches the reference at x = 0.25")
    func easeInEaseOutQuarter() {
        #expect(abs(TimingFunction.easeInEaseOut(0.25) - 0.129162) < 1e-6)
    }

    @Test("the named curves have the documented control points")
    func constants() {
        #expect(TimingFunction.linear == TimingFunction(0, 0, 1, 1))
        #expect(TimingFunction.easeIn == TimingFunction(0.42, 0, 1, 1))
        #expect(TimingFunction.easeOut == TimingFunction(0, 0, 0.58, 1))
        #expect(TimingFunction.easeInEaseOut == TimingFunction(0.42, 0, 0.58, 1))
        #expect(TimingFunction.default == TimingFunction(0.25, 0.1, 0.25, 1))
        #expect(TimingFunction.easeIn != TimingFunction.easeOut)
    }

    @Test("every listed name resolves and unknown names do not")
    func names() {
        #expect(TimingFunction.names.count == 5)
        for name in TimingFunction.names {
            #expect(TimingFunction(name: name) != nil)
        }
        #expect(TimingFunction(name: "easeInOut") == nil)
        #expect(TimingFunction(name: "") == nil)
    }

    @Test("end points are exact and the curves are monotonic", arguments: TimingFunction.names)
    func endPointsAndMonotonic(_ name: String) throws {
        let function = try #require(TimingFunction(name: name))
        #expect(abs(function(0)) < 1e-9)
        #expect(abs(function(1) - 1) < 1e-9)
        var previous = function(0)
        for i in 1...1000 {
            let value = function(Double(i) / 1000)
            #expect(value >= previous - 1e-12)
            previous = value
        }
    }

    @Test("x outside [0, 1] extrapolates with the end gradients")
    func extrapolation() {
        #expect(TimingFunction.default(-0.5) == -0.5 * (0.1 / 0.25))
        #expect(abs(TimingFunction.default(1.5) - 1) < 1e-12)  // end gradient (1 − 1)/(0.25 − 1) = 0
        #expect(TimingFunction.linear(-1) == -1)
        #expect(TimingFunction.linear(2) == 2)
        // easeIn: start gradient p1y/p1x = 0; p2 = (1,1), so the end gradient uses p1: (p1y − 1)/(p1x − 1).
        #expect(TimingFunction.easeIn(-1) == 0)
        #expect(abs(TimingFunction.easeIn(2) - (1 + 1 / 0.58)) < 1e-12)
        // easeOut has p1 = (0,0): WebKit falls back to the far control point, p2y/p2x.
        #expect(abs(TimingFunction.easeOut(-0.1) - (-0.1 / 0.58)) < 1e-12)
    }

    @Test("the solver inverts X(t) to better than 1e-7 everywhere")
    func solverAccuracy() {
        let function = TimingFunction(0.9, 0, 0.1, 1)  // steep middle: stresses Newton
        for i in 0...2000 {
            let x = Double(i) / 2000
            let t = function.solveX(x)
            let s = 1 - t
            let xOfT = 3 * s * s * t * 0.9 + 3 * s * t * t * 0.1 + t * t * t
            #expect(abs(xOfT - x) < 1e-7)
        }
    }
}
