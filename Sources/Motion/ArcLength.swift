import Foundation

/// Arc length of Bezier curves by adaptive Gauss–Legendre quadrature of the speed |B'(t)| (<doc:KeyframePaths>).
public enum ArcLength {
    /// Gauss–Legendre order per interval; the sample heart of <doc:KeyframePaths> gives −7.2e-5 with n = 16.
    static let order = 16
    /// Deepest subdivision level (intervals of 2⁻³⁰ in t); only reached next to a cusp where B' vanishes.
    static let maxDepth = 30

    /// Nodes and weights of the `order`-point Gauss–Legendre rule on [−1, 1].
    static let rule: (nodes: [Double], weights: [Double]) = legendreRule(order: order)

    /// The length of the curve: GL-n on an interval is compared with GL-n on both halves,
    /// subdividing while they differ by more than the tolerance (<doc:KeyframePaths>).
    public static func length(of curve: some BezierCurve, tolerance: Double = 1e-9) -> Double {
        let whole = gauss(curve, from: 0, to: 1)
        return adaptive(curve, from: 0, to: 1, whole: whole, tolerance: max(tolerance, 0), depth: 0)
    }

    /// The length of the piece of the curve between parameters a and b (a ≤ b), same method.
    static func length(of curve: some BezierCurve, from a: Double, to b: Double, tolerance: Double = 1e-9) -> Double {
        let whole = gauss(curve, from: a, to: b)
        return adaptive(curve, from: a, to: b, whole: whole, tolerance: max(tolerance, 0), depth: 0)
    }

    private static func adaptive(
        _ curve: some BezierCurve, from a: Double, to b: Double, whole: Double, tolerance: Double, depth: Int
    ) -> Double {
        let mid = (a + b) / 2
        let left = gauss(curve, from: a, to: mid)
        let right = gauss(curve, from: mid, to: b)
        if depth >= maxDepth || abs(left + right - whole) <= tolerance {
            return left + right
        }
        return adaptive(curve, from: a, to: mid, whole: left, tolerance: tolerance / 2, depth: depth + 1)
            + adaptive(curve, from: mid, to: b, whole: right, tolerance: tolerance / 2, depth: depth + 1)
    }

    /// `(b−a)/2 · Σ wᵢ σ((b−a)/2·xᵢ + (a+b)/2)` with σ = |B'| (<doc:KeyframePaths>).
    static func gauss(_ curve: some BezierCurve, from a: Double, to b: Double) -> Double {
        let half = (b - a) / 2
        let centre = (a + b) / 2
        var sum = 0.0
        for (node, weight) in zip(rule.nodes, rule.weights) {
            sum += weight * curve.derivative(at: half * node + centre).length
        }
        return half * sum
    }

    /// Gauss–Legendre nodes and weights on [−1, 1] by Newton iteration on Pₙ.
    static func legendreRule(order n: Int) -> (nodes: [Double], weights: [Double]) {
        var nodes = [Double](repeating: 0, count: n)
        var weights = [Double](repeating: 0, count: n)
        for i in 0..<(n + 1) / 2 {
            var x = cos(Double.pi * (Double(i) + 0.75) / (Double(n) + 0.5))
            var derivative = 1.0
            for _ in 0..<100 {
                // Recurrence (k+1)P_{k+1} = (2k+1)xP_k − kP_{k−1}.
                var p0 = 1.0
                var p1 = x
                for k in 1..<n {
                    let p2 = (Double(2 * k + 1) * x * p1 - Double(k) * p0) / Double(k + 1)
                    p0 = p1
                    p1 = p2
                }
                derivative = Double(n) * (x * p1 - p0) / (x * x - 1)
                let step = p1 / derivative
                x -= step
                if abs(step) < 1e-16 { break }
            }
            let weight = 2 / ((1 - x * x) * derivative * derivative)
            nodes[i] = -x
            nodes[n - 1 - i] = x
            weights[i] = weight
            weights[n - 1 - i] = weight
        }
        return (nodes, weights)
    }
}

/// Uniform-t table of cumulative chord lengths for constant-speed sampling (<doc:KeyframePaths>, "Constant speed:
/// the arc-length table"), built once per animation.
public struct ArcLengthTable: Sendable {
    /// Cumulative chord length at t = i / (count − 1); the first entry is 0.
    let cumulative: [Double]

    /// Samples the curve at `samples + 1` uniform parameters (at least 2) and sums the chords.
    public init(curve: some BezierCurve, samples: Int = 256) {
        let pieces = max(samples, 1)
        var cumulative = [0.0]
        cumulative.reserveCapacity(pieces + 1)
        var previous = curve.start
        var total = 0.0
        for i in 1...pieces {
            let next = i == pieces ? curve.end : curve.point(at: Double(i) / Double(pieces))
            total += previous.distance(to: next)
            cumulative.append(total)
            previous = next
        }
        self.cumulative = cumulative
    }

    /// The polyline length (slightly below the true length: relative error O(1/N²), <doc:KeyframePaths>).
    public var length: Double { cumulative[cumulative.count - 1] }

    /// The parameter t with s(t) ≈ u·L, linearly interpolated in the table; u is clamped to [0, 1].
    public func parameter(atFraction u: Double) -> Double {
        let fraction = min(max(u, 0), 1)
        let pieces = cumulative.count - 1
        guard length > 0 else { return fraction }
        let target = fraction * length
        // Binary search for the first index whose cumulative length reaches the target.
        var low = 1
        var high = pieces
        while low < high {
            let mid = (low + high) / 2
            if cumulative[mid] < target { low = mid + 1 } else { high = mid }
        }
        let s0 = cumulative[low - 1]
        let s1 = cumulative[low]
        let within = s1 > s0 ? (target - s0) / (s1 - s0) : 0
        return (Double(low - 1) + min(max(within, 0), 1)) / Double(pieces)
    }
}
