import Foundation

/// A UIView spring (usingSpringWithDamping) mapped to stiffness/damping with Framer's converter,
/// solved in closed form (<doc:Springs>).
public struct SpringCurve: Sendable {
    /// Envelope amplitude reached exactly at t = duration, ε = 0.001 (<doc:Springs>).
    static let envelopeEpsilon = 0.001
    /// Shortest duration the converter accepts (<doc:Springs>, d clamped to 0.01…10).
    static let minDuration = 0.01
    /// Longest duration the converter accepts (<doc:Springs>, d clamped to 0.01…10).
    static let maxDuration = 10.0
    /// Largest damping ratio: overdamped springs are treated as critical (<doc:Springs>, ζ ≤ 1).
    static let maxDampingRatio = 1.0
    /// Newton steps from ω = 5/d: the coffee loop `[1...12]` runs 11 times (<doc:Springs>).
    static let newtonIterations = 11
    /// Numerator of the Newton start ω = 5/d (<doc:Springs>).
    static let initialGuessNumerator = 5.0
    /// Fallback when Newton yields NaN: the CASpringAnimation defaults k = 100, c = 10 (<doc:Springs>).
    static let fallbackStiffness = 100.0
    /// Fallback damping coefficient c = 10 with k = 100 (CASpringAnimation's default, <doc:Springs>), i.e. ζ = 0.5.
    static let fallbackDamping = 10.0

    /// Animation duration in seconds, clamped to 0.01…10.
    public let duration: Double
    /// Damping ratio ζ, clamped to (0, 1].
    public let dampingRatio: Double
    /// Initial velocity v0 in animation distances per second (`initialSpringVelocity`, <doc:Springs>).
    public let initialVelocity: Double
    /// Natural angular frequency ω0 = √(k/m), in rad/s.
    public let omega0: Double

    /// Stiffness k = ω0² (mass m = 1).
    public var stiffness: Double { omega0 * omega0 }
    /// Damping coefficient c = 2ζ√(m·k).
    public var dampingCoefficient: Double { 2 * dampingRatio * stiffness.squareRoot() }

    /// The spring of `animateWithDuration:…usingSpringWithDamping:initialSpringVelocity:` (Framer converter).
    public init(duration: Double, damping: Double, velocity: Double) {
        let d = min(max(duration, Self.minDuration), Self.maxDuration)
        let zeta = min(max(damping, Double.leastNonzeroMagnitude), Self.maxDampingRatio)
        let omega = Self.undampedFrequency(duration: d, dampingRatio: zeta, velocity: velocity)
        self.duration = d
        self.initialVelocity = velocity
        if omega.isFinite && omega > 0 {
            dampingRatio = zeta
            omega0 = omega
        } else {
            omega0 = Self.fallbackStiffness.squareRoot()
            dampingRatio = Self.fallbackDamping / (2 * omega0)
        }
    }

    /// The blog's heart bloom: duration 0.5, damping 0.6, velocity 0.8 (<doc:Springs>, ω0 = 21.857103).
    public static let uiKitDefault = SpringCurve(duration: 0.5, damping: 0.6, velocity: 0.8)

    /// Normalised progress x(t): 0 for t ≤ 0, closed form inside, exactly 1 from `duration` on (<doc:Springs>).
    public func value(at t: Double) -> Double {
        if t <= 0 { return 0 }
        if t >= duration { return 1 }
        return Self.closedForm(t: t, omega0: omega0, dampingRatio: dampingRatio, velocity: initialVelocity)
    }

    /// x(t) of m·x'' + c·x' + k·(x − 1) = 0 with x(0) = 0, x'(0) = v0 (<doc:Springs>).
    static func closedForm(t: Double, omega0: Double, dampingRatio zeta: Double, velocity v0: Double) -> Double {
        if zeta < 1 {
            let omegaD = omega0 * (1 - zeta * zeta).squareRoot()
            let decay = exp(-zeta * omega0 * t)
            return 1 - decay * (cos(omegaD * t) + (zeta * omega0 - v0) / omegaD * sin(omegaD * t))
        }
        if zeta == 1 {
            return 1 - exp(-omega0 * t) * (1 + (omega0 - v0) * t)
        }
        let root = (zeta * zeta - 1).squareRoot()
        let r1 = -omega0 * (zeta - root)
        let r2 = -omega0 * (zeta + root)
        let a = (r2 + v0) / (r2 - r1)
        return 1 - a * exp(r1 * t) - (1 - a) * exp(r2 * t)
    }

    /// Framer's `computeDerivedCurveOptions`: Newton on the envelope from ω = 5/d, 11 steps (<doc:Springs>).
    static func undampedFrequency(duration d: Double, dampingRatio zeta: Double, velocity v: Double) -> Double {
        let epsilon = envelopeEpsilon
        let envelope: (Double) -> Double
        let derivative: (Double) -> Double
        if zeta < 1 {
            let sqrtOneMinusZeta2 = (1 - zeta * zeta).squareRoot()
            envelope = { omega in
                let decay = omega * zeta
                return epsilon - (decay - v) / (omega * sqrtOneMinusZeta2) * exp(-decay * d)
            }
            // Transcribed as in the Framer file, including its sign factor.
            derivative = { omega in
                let displacement = omega * zeta * d
                let numerator = displacement * v + v - zeta * zeta * omega * omega * d
                let factor: Double = -envelope(omega) + epsilon > 0 ? -1 : 1
                return factor * numerator * exp(-displacement) / (omega * omega * sqrtOneMinusZeta2)
            }
        } else {
            envelope = { omega in -epsilon + exp(-omega * d) * ((omega - v) * d + 1) }
            derivative = { omega in exp(-omega * d) * (v - omega) * d * d }
        }
        var omega = initialGuessNumerator / d
        for _ in 0..<newtonIterations {
            omega -= envelope(omega) / derivative(omega)
        }
        return omega
    }
}
