import RenderFarmPluginABI
import Testing

@testable import EffectKit

/// The header's C key hasher (`rf_key_start` … `rf_key_finish`) and EffectKit's `FrameKey.Hasher` give one
/// key for one input, so C and Swift plugins key alike: generated sequences of every kind of value, fed to
/// both.
@Suite("C frame keys equal EffectKit's")
struct CFrameKeyTests {
    /// One value added to a key.
    enum Value {
        case word(UInt64)
        case integer(Int)
        case number(Double)
        case truth(Bool)
        case text(String)
    }

    static func randomValue(_ random: inout SeededRandom) -> Value {
        switch random.uniform(5) {
        case 0: return .word(random.next())
        case 1: return .integer(Int(Int64(bitPattern: random.next())) >> Int(random.uniform(64)))
        case 2:
            let special: [Double] = [
                0, -0.0, .infinity, -.infinity, .nan, .leastNormalMagnitude / 4, .greatestFiniteMagnitude,
            ]
            return .number(
                random.uniform(4) == 0
                    ? special[Int(random.uniform(UInt32(special.count)))] : Double(bitPattern: random.next()))
        case 3: return .truth(random.uniform(2) == 0)
        default:
            let scalars = ["a", "Z", "0", " ", "é", "☃", "日", "🎁", "\u{0}"]
            let count = Int(random.uniform(20))
            return .text((0..<count).map { _ in scalars[Int(random.uniform(UInt32(scalars.count)))] }.joined())
        }
    }

    static func swiftKey(_ values: [Value]) -> [UInt8] {
        var hasher = FrameKey.Hasher()
        for value in values {
            switch value {
            case .word(let word): hasher.combine(word)
            case .integer(let integer): hasher.combine(integer)
            case .number(let number): hasher.combine(number)
            case .truth(let truth): hasher.combine(truth)
            case .text(let text): hasher.combine(text)
            }
        }
        return hasher.finalize().bytes
    }

    static func cKey(_ values: [Value]) -> [UInt8] {
        var hasher = rf_key_start()
        for value in values {
            switch value {
            case .word(let word): rf_key_u64(&hasher, word)
            case .integer(let integer): rf_key_int(&hasher, Int64(integer))
            case .number(let number): rf_key_double(&hasher, number)
            case .truth(let truth): rf_key_bool(&hasher, truth ? 1 : 0)
            case .text(let text):
                var utf8 = Array(text.utf8)
                let count = utf8.count
                utf8.withUnsafeMutableBufferPointer { bytes in
                    bytes.withMemoryRebound(to: CChar.self) { rf_key_string(&hasher, $0.baseAddress, count) }
                }
            }
        }
        var key = [UInt8](repeating: 0, count: Int(RF_FRAME_KEY_SIZE))
        key.withUnsafeMutableBufferPointer { rf_key_finish(&hasher, $0.baseAddress) }
        return key
    }

    @Test("2,000 generated sequences of words, integers, doubles, truths and texts give the same key")
    func generatedSequences() {
        var random = SeededRandom(seed: 0x4B45_5953)
        for sequence in 0..<2000 {
            let values = (0..<Int(random.uniform(12))).map { _ in Self.randomValue(&random) }
            let (swift, c) = (Self.swiftKey(values), Self.cKey(values))
            #expect(swift == c, "sequence \(sequence): \(values)")
            if swift != c { return }
        }
    }

    @Test("the nothing-drawn key is EffectKit's, and one added value changes it")
    func nothingDrawn() {
        var key = [UInt8](repeating: 0, count: Int(RF_FRAME_KEY_SIZE))
        key.withUnsafeMutableBufferPointer { rf_key_nothing_drawn($0.baseAddress) }
        #expect(key == FrameKey.nothingDrawn.bytes)
        #expect(Self.cKey([.word(0)]) != key)
        #expect(Self.cKey([.number(0)]) != Self.cKey([.number(-0.0)]))
    }
}
