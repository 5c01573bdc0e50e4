/// An exact fraction of 128-bit integers, always reduced, with a positive denominator.
///
/// The Lottie clock maps job frames to Lottie frames with these, so frame k of a long loop is computed
/// from k alone and never drifts the way a running sum of `Double` steps would.
struct Rational: Sendable, Equatable, Comparable {
    let numerator: Int128
    let denominator: Int128

    init(_ numerator: Int128, _ denominator: Int128 = 1) {
        precondition(denominator != 0, "a fraction needs a non-zero denominator")
        let divisor = Self.gcd(numerator, denominator)
        let sign: Int128 = denominator < 0 ? -1 : 1
        self.numerator = sign * numerator / divisor
        self.denominator = sign * denominator / divisor
    }

    /// The simplest fraction within a relative 1e-12 of `value` whose denominator is at most
    /// `maxDenominator` (continued fractions): 29.97 → 2997/100, 0.1 → 1/10, 1/3 typed as 0.3333333333333 → 1/3.
    /// Nil for values that are not finite or are beyond ±1e12.
    init?(approximating value: Double, maxDenominator: Int128 = 1_000_000) {
        guard value.isFinite, abs(value) <= 1e12 else { return nil }
        let negative = value < 0
        var remainder = abs(value)
        // Convergents h/k of the continued fraction of |value|.
        var (h0, h1): (Int128, Int128) = (0, 1)
        var (k0, k1): (Int128, Int128) = (1, 0)
        for _ in 0..<64 {
            let whole = remainder.rounded(.down)
            let a = Int128(whole)
            let (h2, k2) = (a * h1 + h0, a * k1 + k0)
            guard k2 <= maxDenominator else { break }
            (h0, h1, k0, k1) = (h1, h2, k1, k2)
            let fraction = remainder - whole
            if abs(Double(h1) / Double(k1) - abs(value)) <= 1e-12 * max(1, abs(value)) || fraction < 1e-15 { break }
            remainder = 1 / fraction
        }
        guard k1 != 0 else { return nil }
        self.init(negative ? -h1 : h1, k1)
    }

    static func + (lhs: Rational, rhs: Rational) -> Rational {
        Rational(lhs.numerator * rhs.denominator + rhs.numerator * lhs.denominator, lhs.denominator * rhs.denominator)
    }

    static func - (lhs: Rational, rhs: Rational) -> Rational {
        lhs + Rational(-rhs.numerator, rhs.denominator)
    }

    static func * (lhs: Rational, rhs: Rational) -> Rational {
        // Cross-reduce first so intermediate products stay small.
        let a = gcd(lhs.numerator, rhs.denominator)
        let b = gcd(rhs.numerator, lhs.denominator)
        return Rational((lhs.numerator / a) * (rhs.numerator / b), (lhs.denominator / b) * (rhs.denominator / a))
    }

    static func / (lhs: Rational, rhs: Rational) -> Rational {
        lhs * Rational(rhs.denominator, rhs.numerator)
    }

    static func < (lhs: Rational, rhs: Rational) -> Bool {
        lhs.numerator * rhs.denominator < rhs.numerator * lhs.denominator
    }

    /// The largest integer not above the fraction.
    var floor: Int128 {
        let quotient = numerator / denominator
        return numerator % denominator != 0 && numerator < 0 ? quotient - 1 : quotient
    }

    var doubleValue: Double { Double(numerator) / Double(denominator) }

    private static func gcd(_ a: Int128, _ b: Int128) -> Int128 {
        var (x, y) = (a.magnitude, b.magnitude)
        while y != 0 { (x, y) = (y, x % y) }
        return x == 0 ? 1 : Int128(x)
    }
}
