import Foundation

/// CAMediaTimingFunction: a unit cubic Bezier from (0,0) to (1,1) (WebKit UnitBezier solver, <doc:TimingFunctions>).
public struct TimingFunction: Sendable, Equatable, Encodable {
    /// Solver accuracy for offline rendering: |X(t) − x| below this ends the solve (<doc:TimingFunctions>, eps 1e-7).
    static let epsilon = 1e-7
    /// Lower bound of the bisection accuracy, `max(1e-10, eps)` (<doc:TimingFunctions>).
    static let bisectionFloor = 1e-10
    /// Samples of X(i/10) used to bracket t before Newton (<doc:TimingFunctions>, the 11-sample table).
    static let splineSamples = 11
    /// Newton steps before falling back to bisection (<doc:TimingFunctions>, up to 4 Newton steps).
    static let newtonIterations = 4
    /// Safety cap on bisection halvings; 64 halvings exhaust a double's precision.
    private static let maxBisections = 64

    /// x of the first control point, clamped to [0, 1] so that X(t) is monotonic.
    public let c1x: Double
    /// y of the first control point.
    public let c1y: Double
    /// x of the second control point, clamped to [0, 1] so that X(t) is monotonic.
    public let c2x: Double
    /// y of the second control point.
    public let c2y: Double

    private let ax, bx, cx, ay, by, cy: Double
    private let startGradient, endGradient: Double
    private let samples: [Double]

    /// Creates the curve with control points c1 = (c1x, c1y), c2 = (c2x, c2y) (`init(controlPoints:)`).
    public init(_ c1x: Double, _ c1y: Double, _ c2x: Double, _ c2y: Double) {
        let p1x = min(max(c1x, 0), 1)
        let p2x = min(max(c2x, 0), 1)
        self.c1x = p1x
        self.c1y = c1y
        self.c2x = p2x
        self.c2y = c2y
        // Polynomial coefficients, end points implicitly (0,0) and (1,1) (TimingFunctions article).
        let cx = 3 * p1x
        let bx = 3 * (p2x - p1x) - cx
        let ax = 1 - cx - bx
        let cy = 3 * c1y
        let by = 3 * (c2y - c1y) - cy
        let ay = 1 - cy - by
        (self.ax, self.bx, self.cx, self.ay, self.by, self.cy) = (ax, bx, cx, ay, by, cy)
        // End gradients for x outside [0, 1], with the WebKit/Chromium fallbacks for coincident points.
        if p1x > 0 {
            startGradient = c1y / p1x
        } else if c1y == 0 && p2x > 0 {
            startGradient = c2y / p2x
        } else if c1y == 0 && c2y == 0 {
            startGradient = 1
        } else {
            startGradient = 0
        }
        if p2x < 1 {
            endGradient = (c2y - 1) / (p2x - 1)
        } else if c2y == 1 && p1x < 1 {
            endGradient = (c1y - 1) / (p1x - 1)
        } else if c2y == 1 && c1y == 1 {
            endGradient = 1
        } else {
            endGradient = 0
        }
        let step = 1 / Double(Self.splineSamples - 1)
        samples = (0..<Self.splineSamples).map { i in
            let t = Double(i) * step
            return ((ax * t + bx) * t + cx) * t
        }
    }

    /// Linear pacing, `kCAMediaTimingFunctionLinear`: c1 (0,0), c2 (1,1) (<doc:TimingFunctions>).
    public static let linear = TimingFunction(0, 0, 1, 1)
    /// `kCAMediaTimingFunctionEaseIn`: c1 (0.42,0), c2 (1,1) (<doc:TimingFunctions>).
    public static let easeIn = TimingFunction(0.42, 0, 1, 1)
    /// `kCAMediaTimingFunctionEaseOut`: c1 (0,0), c2 (0.58,1) (<doc:TimingFunctions>).
    public static let easeOut = TimingFunction(0, 0, 0.58, 1)
    /// `kCAMediaTimingFunctionEaseInEaseOut`: c1 (0.42,0), c2 (0.58,1) (<doc:TimingFunctions>).
    public static let easeInEaseOut = TimingFunction(0.42, 0, 0.58, 1)
    /// `kCAMediaTimingFunctionDefault`: c1 (0.25,0.1), c2 (0.25,1) (<doc:TimingFunctions>).
    public static let `default` = TimingFunction(0.25, 0.1, 0.25, 1)

    /// The names accepted by `init?(name:)`, in the order of <doc:TimingFunctions>.
    public static let names: [String] = ["linear", "easeIn", "easeOut", "easeInEaseOut", "default"]

    /// The named constant ("linear", "easeIn", "easeOut", "easeInEaseOut", "default"), or nil.
    public init?(name: String) {
        switch name {
        case "linear": self = .linear
        case "easeIn": self = .easeIn
        case "easeOut": self = .easeOut
        case "easeInEaseOut": self = .easeInEaseOut
        case "default": self = .default
        default: return nil
        }
    }

    /// Easing presets by name, as cubic Béziers: CSS's keywords (CSS Easing Functions Level 1, §2.2) and the
    /// Penner curves in the cubic forms designers know from easings.net (<doc:TimingFunctions>, "Presets").
    public static let presets: KeyValuePairs<String, (Double, Double, Double, Double)> = [
        "ease": (0.25, 0.1, 0.25, 1), "ease-in": (0.42, 0, 1, 1), "ease-out": (0, 0, 0.58, 1),
        "ease-in-out": (0.42, 0, 0.58, 1),
        "easeInSine": (0.12, 0, 0.39, 0), "easeOutSine": (0.61, 1, 0.88, 1), "easeInOutSine": (0.37, 0, 0.63, 1),
        "easeInQuad": (0.11, 0, 0.5, 0), "easeOutQuad": (0.5, 1, 0.89, 1), "easeInOutQuad": (0.45, 0, 0.55, 1),
        "easeInCubic": (0.32, 0, 0.67, 0), "easeOutCubic": (0.33, 1, 0.68, 1), "easeInOutCubic": (0.65, 0, 0.35, 1),
        "easeInQuart": (0.5, 0, 0.75, 0), "easeOutQuart": (0.25, 1, 0.5, 1), "easeInOutQuart": (0.76, 0, 0.24, 1),
        "easeInQuint": (0.64, 0, 0.78, 0), "easeOutQuint": (0.22, 1, 0.36, 1), "easeInOutQuint": (0.83, 0, 0.17, 1),
        "easeInExpo": (0.7, 0, 0.84, 0), "easeOutExpo": (0.16, 1, 0.3, 1), "easeInOutExpo": (0.87, 0, 0.13, 1),
        "easeInCirc": (0.55, 0, 1, 0.45), "easeOutCirc": (0, 0.55, 0.45, 1), "easeInOutCirc": (0.85, 0, 0.15, 1),
        "easeInBack": (0.36, 0, 0.66, -0.56), "easeOutBack": (0.34, 1.56, 0.64, 1),
        "easeInOutBack": (0.68, -0.6, 0.32, 1.6),
    ]

    /// The preset `name` (`presets`), or nil.
    public static func preset(named name: String) -> TimingFunction? {
        guard let points = presets.first(where: { $0.key == name })?.value else { return nil }
        return TimingFunction(points.0, points.1, points.2, points.3)
    }

    /// Two timing functions are equal when their control points are.
    public static func == (lhs: TimingFunction, rhs: TimingFunction) -> Bool {
        lhs.c1x == rhs.c1x && lhs.c1y == rhs.c1y && lhs.c2x == rhs.c2x && lhs.c2y == rhs.c2y
    }

    /// The eased progress Y(t) where X(t) = x; outside [0, 1] extrapolates with the end gradients
    /// (<doc:TimingFunctions>).
    public func callAsFunction(_ x: Double) -> Double {
        if x < 0 { return startGradient * x }
        if x > 1 { return 1 + endGradient * (x - 1) }
        return sampleY(solveX(x))
    }

    private func sampleX(_ t: Double) -> Double { ((ax * t + bx) * t + cx) * t }

    private func sampleY(_ t: Double) -> Double { ((ay * t + by) * t + cy) * t }

    private func sampleDerivativeX(_ t: Double) -> Double { (3 * ax * t + 2 * bx) * t + cx }

    /// WebKit `solveCurveX`: bracket from the sample table, Newton, then bisection (<doc:TimingFunctions>).
    func solveX(_ x: Double) -> Double {
        let step = 1 / Double(Self.splineSamples - 1)
        var t0 = 0.0
        var t1 = 1.0
        var t = x
        for i in 1..<Self.splineSamples where x <= samples[i] {
            t1 = step * Double(i)
            t0 = t1 - step
            let span = samples[i] - samples[i - 1]
            t = span > 0 ? t0 + step * (x - samples[i - 1]) / span : t0
            break
        }
        for _ in 0..<Self.newtonIterations {
            let error = sampleX(t) - x
            if abs(error) < Self.epsilon { return t }
            let slope = sampleDerivativeX(t)
            if abs(slope) < Self.epsilon { break }
            t -= error / slope
        }
        let error = sampleX(t) - x
        let bisectionEpsilon = max(Self.bisectionFloor, Self.epsilon)
        if abs(error) < bisectionEpsilon { return t }
        t = min(max(t, t0), t1)
        for _ in 0..<Self.maxBisections where t0 < t1 {
            let value = sampleX(t)
            if abs(value - x) < bisectionEpsilon { return t }
            if x > value { t0 = t } else { t1 = t }
            t = (t0 + t1) / 2
        }
        return t
    }
}
