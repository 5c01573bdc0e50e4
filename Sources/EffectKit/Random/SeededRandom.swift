/// Deterministic random draws for one item: a SplitMix64 stream. (arc4random_uniform semantics.)
public struct SeededRandom: Sendable {
    /// SplitMix64 increment (the golden-ratio "gamma", Steele, Lea & Flood 2014).
    private static let gamma: UInt64 = 0x9E37_79B9_7F4A_7C15
    /// First SplitMix64 finaliser multiplier.
    private static let mix1: UInt64 = 0xBF58_476D_1CE4_E5B9
    /// Second SplitMix64 finaliser multiplier.
    private static let mix2: UInt64 = 0x94D0_49BB_1331_11EB
    /// 2⁻⁵³: scales a 53-bit integer into [0, 1).
    private static let unitScale = 1.0 / Double(UInt64(1) << 53)

    private var state: UInt64

    /// Starts the stream at the given seed.
    public init(seed: UInt64) {
        state = seed
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= Self.gamma
        var z = state
        z = (z ^ (z >> 30)) &* Self.mix1
        z = (z ^ (z >> 27)) &* Self.mix2
        return z ^ (z >> 31)
    }

    /// The next 32 random bits (the high half of `next()`), standing in for `arc4random()`.
    mutating func next32() -> UInt32 {
        UInt32(truncatingIfNeeded: next() >> 32)
    }

    /// An unbiased integer in [0, upperBound) like `arc4random_uniform`; 0 when upperBound < 2.
    public mutating func uniform(_ upperBound: UInt32) -> UInt32 {
        guard upperBound >= 2 else { return 0 }
        // As OpenBSD's arc4random_uniform: reject draws below 2³² mod n so the rest divide evenly.
        let minimum = (0 &- upperBound) % upperBound
        while true {
            let draw = next32()
            if draw >= minimum { return draw % upperBound }
        }
    }

    /// A double in [0, 1) built from 53 random bits.
    public mutating func unit() -> Double {
        Double(next() >> 11) * Self.unitScale
    }

    /// A double in the range (the upper bound itself is not drawn unless the range is a single value).
    public mutating func uniform(in range: ClosedRange<Double>) -> Double {
        min(range.lowerBound + (range.upperBound - range.lowerBound) * unit(), range.upperBound)
    }
}
