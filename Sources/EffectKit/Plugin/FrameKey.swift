import RenderFarmPluginABI

/// A frame key (ABI `frame_key`): `RF_FRAME_KEY_SIZE` bytes that change whenever an effect's
/// drawing of a frame would change.
///
/// Build one with ``FrameKey/Hasher``: combine everything the drawing depends on (the plans and
/// states of the items visible at the frame, the parameters that shape them), and nothing it
/// does not (the frame's number, when the drawing does not move with time), so that frames that
/// look alike get one key and the host draws them once.
public struct FrameKey: Sendable, Hashable {
    /// Four 64-bit words, written to the host little-endian.
    public private(set) var words: (UInt64, UInt64, UInt64, UInt64)

    /// The bytes the host receives.
    public var bytes: [UInt8] {
        [words.0, words.1, words.2, words.3].flatMap { word in
            (0..<8).map { UInt8(truncatingIfNeeded: word >> (8 * $0)) }
        }
    }

    public static func == (lhs: FrameKey, rhs: FrameKey) -> Bool {
        lhs.words.0 == rhs.words.0 && lhs.words.1 == rhs.words.1 && lhs.words.2 == rhs.words.2
            && lhs.words.3 == rhs.words.3
    }

    public func hash(into hasher: inout Swift.Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
    }

    /// Accumulates values into a key: four independent 64-bit lanes, each a multiply–xorshift
    /// chain over the input words with its own constants, finalised with SplitMix64's mixer.
    /// Deterministic across runs and processes (unlike `Swift.Hasher`); not cryptographic, which
    /// a key that only an effect's own plan feeds does not need.
    public struct Hasher: Sendable {
        private var lanes: (UInt64, UInt64, UInt64, UInt64) = (
            0x6A09_E667_F3BC_C908, 0xBB67_AE85_84CA_A73B, 0x3C6E_F372_FE94_F82B, 0xA54F_F53A_5F1D_36F1
        )
        private var count: UInt64 = 0

        public init() {}

        public mutating func combine(_ word: UInt64) {
            count &+= 1
            lanes.0 = Self.step(lanes.0, word, 0x9E37_79B9_7F4A_7C15)
            lanes.1 = Self.step(lanes.1, word ^ count, 0xC2B2_AE3D_27D4_EB4F)
            lanes.2 = Self.step(lanes.2, word &+ count, 0x1656_67B1_9E37_79F9)
            lanes.3 = Self.step(lanes.3, ~word, 0xD6E8_FEB8_6659_FD93)
        }

        public mutating func combine(_ value: Int) { combine(UInt64(bitPattern: Int64(value))) }

        /// Combines the exact bits of `value` (so -0.0 and 0.0 differ, as they may when drawn).
        public mutating func combine(_ value: Double) { combine(value.bitPattern) }

        public mutating func combine(_ value: Bool) { combine(value ? 1 as UInt64 : 2) }

        public mutating func combine(_ text: String) {
            combine(text.utf8.count)
            var word: UInt64 = 0
            var filled = 0
            for byte in text.utf8 {
                word |= UInt64(byte) << (8 * filled)
                filled += 1
                if filled == 8 {
                    combine(word)
                    (word, filled) = (0, 0)
                }
            }
            if filled > 0 { combine(word) }
        }

        public mutating func combine(_ key: FrameKey) {
            combine(key.words.0)
            combine(key.words.1)
            combine(key.words.2)
            combine(key.words.3)
        }

        public func finalize() -> FrameKey {
            FrameKey(
                words: (
                    Self.mix(lanes.0 ^ count), Self.mix(lanes.1 &+ count), Self.mix(lanes.2 ^ (count << 1)),
                    Self.mix(lanes.3 &+ (count << 2))
                ))
        }

        private static func step(_ lane: UInt64, _ word: UInt64, _ multiplier: UInt64) -> UInt64 {
            let mixed = (lane ^ word) &* multiplier
            return mixed ^ (mixed >> 29)
        }

        private static func mix(_ value: UInt64) -> UInt64 {
            var z = value
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    init(words: (UInt64, UInt64, UInt64, UInt64)) { self.words = words }

    /// A digest of `bytes` (a file's content) with the key's hasher: equal for equal bytes, in any process.
    public static func digest(of bytes: [UInt8]) -> FrameKey {
        var hasher = Hasher()
        hasher.combine(bytes.count)
        bytes.withUnsafeBytes { raw in
            let words = raw.count / 8
            for index in 0..<words { hasher.combine(raw.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self)) }
            var tail: UInt64 = 0
            for (shift, byte) in raw[(words * 8)...].enumerated() { tail |= UInt64(byte) << (8 * UInt64(shift)) }
            hasher.combine(tail)
        }
        return hasher.finalize()
    }
}

extension FrameKey: CustomStringConvertible {
    /// Lower-case hexadecimal, as the host records it.
    public var description: String {
        let digits = Array("0123456789abcdef")
        return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]] })
    }
}
