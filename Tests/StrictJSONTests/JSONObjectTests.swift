import StrictJSON
import Testing

@Suite("JSONObject and JSONValue")
struct JSONObjectTests {
    @Test("setting a new key appends it; setting an existing key replaces it in place")
    func subscriptSet() {
        var object = JSONObject([(key: "a", value: 1), (key: "b", value: 2)])
        object["c"] = 3
        object["a"] = "one"
        #expect(object.keys == ["a", "b", "c"])
        #expect(object["a"] == "one")
        #expect(object.count == 3)
    }

    @Test("setting nil removes the member and keeps the others in order")
    func subscriptRemove() {
        var object = JSONObject([(key: "a", value: 1), (key: "b", value: 2), (key: "c", value: 3)])
        object["a"] = nil
        object["missing"] = nil
        #expect(object.keys == ["b", "c"])
        #expect(object["a"] == nil)
        #expect(object["c"] == 3)
        object["a"] = .null
        #expect(object.keys == ["b", "c", "a"])
        #expect(object["a"] == .null)
    }

    @Test("lookups, replacements and removals agree as an object grows past the size it is scanned at and shrinks")
    func growAndShrink() {
        var object = JSONObject()
        var expected: [(String, Double)] = []
        for index in 0..<20 {
            object["k\(index)"] = .number(Double(index))
            expected.append(("k\(index)", Double(index)))
            #expect(object.keys == expected.map(\.0))
            #expect(expected.allSatisfy { object[$0.0] == .number($0.1) })
            #expect(object["k\(index + 1)"] == nil)
        }
        object["k3"] = "three"
        #expect(object.keys.firstIndex(of: "k3") == 3 && object["k3"] == "three")
        for index in stride(from: 19, through: 0, by: -2) {
            object["k\(index)"] = nil
            #expect(object["k\(index)"] == nil)
        }
        #expect(object.keys == (0..<10).map { "k\(2 * $0)" })
        #expect(object["k18"] == .number(18) && object["k0"] == .number(0))
        let reordered = JSONObject(object.reversed().map { (key: $0.key, value: $0.value) })
        #expect(reordered == object, "equality ignores order at any size")
        object["k0"] = nil
        #expect(reordered != object)
    }

    @Test("a repeated key in the initializer keeps the first position and the last value")
    func initializerDuplicates() {
        let object = JSONObject([(key: "a", value: 1), (key: "b", value: 2), (key: "a", value: 3)])
        #expect(object.keys == ["a", "b"])
        #expect(object["a"] == 3)
    }

    @Test("iteration yields members in order")
    func iteration() {
        let object = JSONObject([(key: "x", value: true), (key: "y", value: false)])
        #expect(object.map(\.key) == ["x", "y"])
        #expect(object.map(\.value) == [true, false])
    }

    @Test("objects with the same members are equal in any order")
    func equality() {
        let ab = JSONObject([(key: "a", value: 1), (key: "b", value: 2)])
        let ba = JSONObject([(key: "b", value: 2), (key: "a", value: 1)])
        #expect(ab == ba)
        #expect(ab != JSONObject([(key: "a", value: 1), (key: "b", value: 3)]))
        #expect(ab != JSONObject([(key: "a", value: 1)]))
        #expect(ab != JSONObject([(key: "a", value: 1), (key: "c", value: 2)]))
    }

    @Test("literals build values; dictionary literals keep their order")
    func literals() {
        let value: JSONValue = ["z": nil, "y": true, "x": 3, "w": 2.5, "v": "s", "u": [1, "two"]]
        #expect(value.objectValue?.keys == ["z", "y", "x", "w", "v", "u"])
        #expect(value.objectValue?["z"] == .null)
        #expect(value.objectValue?["y"] == .bool(true))
        #expect(value.objectValue?["x"] == .number(3))
        #expect(value.objectValue?["w"] == .number(2.5))
        #expect(value.objectValue?["v"] == .string("s"))
        #expect(value.objectValue?["u"] == .array([.number(1), .string("two")]))
    }

    @Test("accessors return nil on a type mismatch")
    func accessors() {
        let string: JSONValue = "s"
        #expect(string.stringValue == "s")
        #expect(string.doubleValue == nil)
        #expect(string.boolValue == nil)
        #expect(string.arrayValue == nil)
        #expect(string.objectValue == nil)
        #expect(!string.isNull)
        #expect(JSONValue.number(2).doubleValue == 2)
        #expect(JSONValue.bool(false).boolValue == false)
        #expect(JSONValue.array([1]).arrayValue == [1])
        #expect(JSONValue.object(JSONObject()).objectValue == JSONObject())
        #expect(JSONValue.null.isNull)
    }

    @Test(
        "type names for messages",
        arguments: [
            (JSONValue.null, "null"), (true, "boolean"), (1, "number"), ("s", "string"), ([], "array"), ([:], "object"),
        ] as [(JSONValue, String)])
    func typeNames(value: JSONValue, name: String) {
        #expect(value.typeName == name)
    }
}
