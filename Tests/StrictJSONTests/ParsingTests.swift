import StrictJSON
import Testing

@Suite("Parsing valid documents")
struct ParsingTests {
    static let documents = [
        "null", "true", "false", "0", "-0", "42", "-17", "3.25", "1e300", "-1.5E-7", "2.5e+3",
        #""""#, #""plain""#, #""esc \" \\ \/ \b \f \n \r \t \u0001 \u00e9 \ud83d\ude00""#, #""né 😀""#,
        "[]", "{}", "[1, [2, [3, []]], {}]",
        #"{"name": "intro", "fps": 30, "size": {"width": 1920, "height": 1080}, "tags": ["a", "b"], "x": null}"#,
        " \t\r\n [ 1 , 2 ] \r\n ",
        "123456789012345678901234567890", "0.1", "5e-324", "1.7976931348623157e308",
    ]

    @Test("a valid document round-trips: parse → serialize → parse gives an equal value", arguments: documents)
    func roundTrip(document: String) throws {
        let value = try JSONParser.parse(document)
        for pretty in [false, true] {
            for sortedKeys in [false, true] {
                let text = value.serialized(pretty: pretty, sortedKeys: sortedKeys)
                #expect(try JSONParser.parse(text) == value, "pretty: \(pretty), sortedKeys: \(sortedKeys)")
            }
        }
    }

    @Test("object members keep document order")
    func keyOrder() throws {
        let value = try JSONParser.parse(#"{"zeta": 1, "alpha": 2, "mid": {"b": 1, "a": 2}}"#)
        let object = try #require(value.objectValue)
        #expect(object.keys == ["zeta", "alpha", "mid"])
        #expect(object["mid"]?.objectValue?.keys == ["b", "a"])
        #expect(Array(object).map(\.key) == ["zeta", "alpha", "mid"])
        #expect(value.serialized() == #"{"zeta":1,"alpha":2,"mid":{"b":1,"a":2}}"#)
    }

    @Test("values come out with the right types")
    func values() throws {
        let value = try JSONParser.parse(#"{"s": "x", "n": -2.5, "b": true, "z": null, "a": [1], "o": {}}"#)
        let expected: JSONValue = ["s": "x", "n": -2.5, "b": true, "z": nil, "a": [1], "o": [:]]
        #expect(value == expected)
    }

    @Test("escapes decode, including surrogate pairs and \\u0000")
    func escapes() throws {
        let value = try JSONParser.parse(#""\"\\\/\b\f\n\r\t\u0000\u00E9\uD83D\uDE00""#)
        #expect(value == .string("\"\\/\u{08}\u{0C}\n\r\t\u{00}é😀"))
    }

    @Test("non-ASCII UTF-8 in strings is accepted as is")
    func utf8Strings() throws {
        #expect(try JSONParser.parse(#"["Grüße", "日本", "🎬"]"#) == ["Grüße", "日本", "🎬"])
    }

    @Test("a leading byte order mark is skipped")
    func byteOrderMark() throws {
        #expect(try JSONParser.parse([0xEF, 0xBB, 0xBF] + Array("[1]".utf8)) == [1])
    }

    @Test("any collection of bytes can be parsed, contiguous or not")
    func collections() throws {
        let bytes = Array(#"{"a": [1, 2]}"#.utf8)
        let expected: JSONValue = ["a": [1, 2]]
        #expect(try JSONParser.parse(bytes) == expected)
        #expect(try JSONParser.parse(bytes[...]) == expected)
        #expect(try JSONParser.parse(bytes.lazy.map { $0 }) == expected)
        #expect(try JSONParser.parse(#"{"a": [1, 2]}"#) == expected)
    }

    @Test("numbers: integers, fractions, exponents, negative zero and underflow")
    func numbers() throws {
        #expect(
            try JSONParser.parse("[0, -0, 10, 2.5, 1E2, 1e-2, 9007199254740993, 1e-400]") == [
                0, 0, 10, 2.5, 100, 0.01, 9_007_199_254_740_992, 0,
            ])
        let negativeZero = try #require(try JSONParser.parse("-0").doubleValue)
        #expect(negativeZero.sign == .minus)
    }

    @Test("canonically equivalent keys count as the same key")
    func canonicalEquivalence() {
        let error = parseError("{\"\u{E9}\": 1, \"e\u{301}\": 2}")
        #expect(error?.message == "duplicate key \"e\u{301}\"")
        #expect(error?.column == 11)
    }

    @Test("a 1 MiB document parses")
    func largeDocument() throws {
        var text = "["
        var count = 0
        while text.utf8.count < (1 << 20) - 100 {
            if count > 0 { text += "," }
            text += #"{"id":\#(count),"name":"frame-\#(count)","t":\#(Double(count) / 8)}"#
            count += 1
        }
        text += "]"
        let value = try JSONParser.parse(text)
        #expect(value.arrayValue?.count == count)
        #expect(value.arrayValue?.last?.objectValue?["name"] == .string("frame-\(count - 1)"))
    }
}

@Suite("Syntax errors explained")
struct SyntaxExplanationTests {
    @Test("a comma missing at the end of a line is named, and the excerpt points at the next token")
    func missingComma() throws {
        let text = "{\n  \"a\": 1\n  \"b\": 2\n}"
        do {
            _ = try JSONParser.parse(text)
            Issue.record("parsed")
        } catch {
            #expect(error.line == 3 && error.column == 3)
            #expect(error.hint == "missing ',' after line 2?")
            #expect(error.description.hasSuffix("(missing ',' after line 2?)"))
            #expect(error.excerpt(of: Array(text.utf8)) == "    3 |   \"b\": 2\n      |   ^")
        }
    }

    @Test("a problem inside one line has no comma hint")
    func noHint() throws {
        do {
            _ = try JSONParser.parse("{\"a\": 1 \"b\": 2}")
            Issue.record("parsed")
        } catch {
            #expect(error.hint == nil)
            #expect(error.excerpt(of: Array("{\"a\": 1 \"b\": 2}".utf8)).hasSuffix("|         ^"))
        }
    }
}
