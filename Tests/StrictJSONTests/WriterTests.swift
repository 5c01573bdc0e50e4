import StrictJSON
import Testing

@Suite("Serializing")
struct WriterTests {
    static let numbers: [(Double, String)] = [
        (30.0, "30"), (-2.0, "-2"), (0.0, "0"), (-0.0, "0"), (0.1, "0.1"), (0.5, "0.5"), (1e-7, "1e-07"),
        (6.316592, "6.316592"), (1e300, "1e+300"), (9_007_199_254_740_991, "9007199254740991"),
        (9_007_199_254_740_992, "9007199254740992.0"), (-1.5e-300, "-1.5e-300"),
        (.nan, "null"), (.infinity, "null"), (-.infinity, "null"),
    ]

    @Test("numbers: integral values without a fraction, others in shortest round-trip form", arguments: numbers)
    func numberFormat(number: Double, text: String) {
        #expect(JSONValue.number(number).serialized() == text)
    }

    static let roundTripNumbers: [Double] = [
        1e300, 0.1, 0.1 + 0.2, 1.0 / 3, .leastNonzeroMagnitude, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
        .leastNormalMagnitude, 123_456_789.123_456_789, 9_007_199_254_740_994, 1e22, 1e23, 2.5e-8,
    ]

    @Test("every finite number reads back exactly", arguments: roundTripNumbers)
    func numberRoundTrip(number: Double) throws {
        let text = JSONValue.number(number).serialized()
        #expect(try JSONParser.parse(text).doubleValue?.bitPattern == number.bitPattern)
    }

    @Test("strings are escaped as JSON requires; non-ASCII and '/' are written as they are")
    func escaping() {
        let value: JSONValue = .string("q\" b\\ \n\r\t\u{08}\u{0C}\u{01}\u{1F} / é 😀 \u{7F}")
        #expect(value.serialized() == #""q\" b\\ \n\r\t\b\f\u0001\u001F / é 😀 "# + "\u{7F}\"")
        #expect(JSONValue.object(JSONObject([(key: "a\"b", value: 1)])).serialized() == #"{"a\"b":1}"#)
    }

    static let document: JSONValue = [
        "name": "intro",
        "size": ["width": 1920, "height": 1080],
        "layers": [["effect": "gradient", "opacity": 0.5], []],
        "options": [:],
        "loop": false,
        "note": nil,
    ]

    @Test("compact output is a single line without spaces")
    func compact() {
        #expect(
            Self.document.serialized() == #"{"name":"intro","size":{"width":1920,"height":1080},"#
                + #""layers":[{"effect":"gradient","opacity":0.5},[]],"options":{},"loop":false,"note":null}"#)
    }

    @Test("pretty output indents by two spaces with one space after colons")
    func pretty() {
        let expected = """
            {
              "name": "intro",
              "size": {
                "width": 1920,
                "height": 1080
              },
              "layers": [
                {
                  "effect": "gradient",
                  "opacity": 0.5
                },
                []
              ],
              "options": {},
              "loop": false,
              "note": null
            }
            """
        #expect(Self.document.serialized(pretty: true) == expected)
    }

    @Test("sorted keys order every object by key, at every level")
    func sortedKeys() {
        let value: JSONValue = ["b": 1, "a": ["z": 1, "y": [["d": 1, "c": 2]]], "B": 2, "é": 3, "e": 4]
        #expect(value.serialized(sortedKeys: true) == #"{"B":2,"a":{"y":[{"c":2,"d":1}],"z":1},"b":1,"e":4,"é":3}"#)
        #expect(
            value.serialized(pretty: true, sortedKeys: true) == """
                {
                  "B": 2,
                  "a": {
                    "y": [
                      {
                        "c": 2,
                        "d": 1
                      }
                    ],
                    "z": 1
                  },
                  "b": 1,
                  "e": 4,
                  "é": 3
                }
                """)
    }

    @Test("top-level scalars and empty containers")
    func scalars() {
        #expect(JSONValue.null.serialized(pretty: true) == "null")
        #expect(JSONValue.bool(true).serialized() == "true")
        #expect(JSONValue.array([]).serialized(pretty: true) == "[]")
        #expect(JSONValue.object(JSONObject()).serialized(pretty: true) == "{}")
        #expect(JSONValue.string("").serialized() == #""""#)
    }
}
