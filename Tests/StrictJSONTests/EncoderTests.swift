import StrictJSON
import Testing

@Suite("Encoding values as JSON")
struct EncoderTests {
    enum Timing: Encodable, Equatable {
        case curve([Double])
        case spring(damping: Double, velocity: Double)
        case linear
    }

    struct Layer: Encodable {
        var name: String
        var end: Double?
        var seed: UInt64
        var flags: [Bool]
        var timing: Timing
        var params: JSONObject
    }

    @Test("a structure becomes an object of its stored properties; nil ones are left out")
    func structure() throws {
        let layer = Layer(
            name: "a", end: nil, seed: 7, flags: [true, false], timing: .spring(damping: 0.5, velocity: 1),
            params: ["size": .number(3), "list": .array([.null, .string("x")])])
        let json = try JSONValueEncoder.encode(layer)
        #expect(
            json.serialized(sortedKeys: true)
                == #"{"flags":[true,false],"name":"a","params":{"list":[null,"x"],"size":3},"seed":7,"#
                + #""timing":{"spring":{"damping":0.5,"velocity":1}}}"#)
        var ended = layer
        ended.end = 2
        ended.timing = .curve([0, 1])
        let other = try JSONValueEncoder.encode(ended).objectValue
        #expect(other?["end"] == .number(2))
        #expect(other?["timing"] == .object(["curve": .object(["_0": .array([.number(0), .number(1)])])]))
        #expect(try JSONValueEncoder.encode(Timing.linear) == .object(["linear": .object([:])]))
    }

    @Test("integers no Double holds exactly keep every digit", arguments: [UInt64(1) << 53 + 1, UInt64.max])
    func largeIntegers(value: UInt64) throws {
        #expect(try JSONValueEncoder.encode(value) == .string("\(value)"))
        #expect(try JSONValueEncoder.encode(value - 1) != JSONValueEncoder.encode(value))
        #expect(try JSONValueEncoder.encode(UInt64(1) << 53) == .number(9_007_199_254_740_992))
    }

    /// What an integer should encode as: a number when a Double holds it exactly, else its digits.
    private static func expected(_ value: some BinaryInteger) -> JSONValue {
        Double(exactly: value).map(JSONValue.number) ?? .string("\(value)")
    }

    /// `value` alone and as a member, encoded as `expected` says.
    private static func check(_ value: some BinaryInteger & Encodable) throws {
        #expect(try JSONValueEncoder.encode(value) == expected(value), "\(type(of: value)) \(value)")
        #expect(try JSONValueEncoder.encode(Holder(value: value)) == .object(["value": expected(value)]))
        #expect(try JSONValueEncoder.encode([value]) == .array([expected(value)]))
    }

    /// Every standard integer type at its bounds and at random values (SplitMix64 from the seed).
    private static func check<T: FixedWidthInteger & Encodable>(_ type: T.Type, seed: UInt64) throws {
        var state = seed
        try check(T.min)
        try check(T.max)
        try check(T.zero)
        for _ in 0..<200 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = (state ^ (state >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            // Random bits, shifted down at random so that small values come up as often as large ones.
            try check(T(truncatingIfNeeded: (z ^ (z >> 31)) >> (z % 64)))
        }
    }

    @Test(
        "every standard integer type encodes as a number, or as digits where a Double would round", arguments: [1, 2])
    func integerTypes(seed: UInt64) throws {
        try Self.check(Int.self, seed: seed)
        try Self.check(Int64.self, seed: seed)
        try Self.check(Int32.self, seed: seed)
        try Self.check(Int16.self, seed: seed)
        try Self.check(Int8.self, seed: seed)
        try Self.check(UInt.self, seed: seed)
        try Self.check(UInt64.self, seed: seed)
        try Self.check(UInt32.self, seed: seed)
        try Self.check(UInt16.self, seed: seed)
        try Self.check(UInt8.self, seed: seed)
    }
}

/// A value as the member of an object.
private struct Holder<Value: Encodable>: Encodable { var value: Value }
