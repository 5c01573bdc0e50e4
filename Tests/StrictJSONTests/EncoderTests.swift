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
}
