import StrictJSON
import Testing

@Suite("Rejecting invalid documents")
struct RejectionTests {
    static let syntaxErrors: [Rejection] = [
        Rejection(input: "", message: "empty input", column: 1),
        Rejection(input: "  \n   ", message: "empty input", line: 2, column: 4),
        Rejection(input: #"{"a": 1,}"#, message: "trailing comma before '}'", column: 8),
        Rejection(input: "[1, 2,\n]", message: "trailing comma before ']'", column: 6),
        Rejection(input: "[1,,2]", message: "unexpected ','", column: 4),
        Rejection(input: "[NaN]", message: "NaN is not allowed in JSON", column: 2),
        Rejection(input: "[Infinity]", message: "Infinity is not allowed in JSON", column: 2),
        Rejection(input: "[-Infinity]", message: "Infinity is not allowed in JSON", column: 2),
        Rejection(input: "[01]", message: "leading zeros are not allowed", column: 2),
        Rejection(input: "-007", message: "leading zeros are not allowed", column: 1),
        Rejection(input: "[+1]", message: "numbers must not start with '+'", column: 2),
        Rejection(input: "[.5]", message: "numbers must start with a digit", column: 2),
        Rejection(input: "[-]", message: "expected a digit after '-'", column: 3),
        Rejection(input: "[1.]", message: "expected a digit after the decimal point", column: 4),
        Rejection(input: "[1e+]", message: "expected a digit in the exponent", column: 5),
        Rejection(input: "[1e999]", message: "number out of range", column: 2),
        Rejection(input: "-1.5e400", message: "number out of range", column: 1),
        Rejection(input: "// job\n{}", message: "comments are not allowed", column: 1),
        Rejection(input: "[1, /* two */ 2]", message: "comments are not allowed", column: 5),
        Rejection(input: "{\"a\": 1 // one\n}", message: "comments are not allowed", column: 9),
        Rejection(input: "{'a': 1}", message: "single-quoted strings are not allowed", column: 2),
        Rejection(input: "['a']", message: "single-quoted strings are not allowed", column: 2),
        Rejection(input: "[\"a\tb\"]", message: "control character U+0009 must be escaped in a string", column: 4),
        Rejection(
            input: "{\"a\":\n\"x\ny\"}", message: "control character U+000A must be escaped in a string",
            line: 2, column: 3),
        Rejection(input: #"["\uD800"]"#, message: #"unpaired surrogate escape \uD800"#, column: 3),
        Rejection(input: #"["\uDC00\uD800"]"#, message: #"unpaired surrogate escape \uDC00"#, column: 3),
        Rejection(input: #"["\ud83dx"]"#, message: #"unpaired surrogate escape \ud83d"#, column: 3),
        Rejection(input: #"["\uD83D\u0041"]"#, message: #"unpaired surrogate escape \uD83D"#, column: 3),
        Rejection(input: #"["\u12G4"]"#, message: #"expected four hex digits after \u"#, column: 3),
        Rejection(input: #"["\x"]"#, message: #"invalid escape sequence '\x'"#, column: 3),
        Rejection(input: #"["abc"#, message: "unterminated string", column: 2),
        Rejection(input: "{} {}", message: "trailing content after the JSON value", column: 4),
        Rejection(input: "1 2", message: "trailing content after the JSON value", column: 3),
        Rejection(input: "[1, 2", message: "unexpected end of input", column: 6),
        Rejection(input: #"{"a":"#, message: "unexpected end of input", column: 6),
        Rejection(input: #"{"a" 1}"#, message: "expected ':' after an object key", column: 6),
        Rejection(input: #"{"a": 1 "b": 2}"#, message: "expected ',' or '}' after an object member", column: 9),
        Rejection(input: "[1 2]", message: "expected ',' or ']' after an array element", column: 4),
        Rejection(input: "{1: 2}", message: "expected a double-quoted string as object key", column: 2),
        Rejection(
            input: "[True]",
            message: "invalid literal 'True' (expected true, false, null, a number, "
                + "a string, an array or an object)", column: 2),
        Rejection(
            input: "[nul]",
            message: "invalid literal 'nul' (expected true, false, null, a number, "
                + "a string, an array or an object)", column: 2),
        Rejection(input: "[\u{A0}1]", message: "unexpected character U+00A0", column: 2),
    ]

    @Test("each kind of invalid syntax is reported with its message, line and column", arguments: syntaxErrors)
    func syntax(_ rejection: Rejection) throws {
        let error = try #require(parseError(rejection.input))
        #expect(error.message == rejection.message)
        #expect(error.line == rejection.line)
        #expect(error.column == rejection.column)
    }

    @Test("a duplicate key is reported at its second occurrence")
    func duplicateKey() throws {
        let document = """
            {
              "rate": 24,
              "rate": 30
            }
            """
        let error = try #require(parseError(document))
        #expect(error.message == #"duplicate key "rate""#)
        #expect(error.line == 3)
        #expect(error.column == 3)
        #expect(error.description == #"line 3, column 3: duplicate key "rate""#)
    }

    @Test("duplicate keys are only an error within one object")
    func sameKeyInDifferentObjects() throws {
        let value = try JSONParser.parse(#"{"a": {"a": 1}, "b": [{"a": 1}, {"a": 2}]}"#)
        #expect(value.objectValue?.count == 2)
    }

    @Test("a bad byte in the middle of a string is reported at that byte")
    func invalidUTF8InString() throws {
        // "ab" then 0xC3 (which needs a continuation byte) then "(cd".
        let bytes = Array("{\n  \"name\": \"ab".utf8) + [0xC3] + Array("(cd\"\n}".utf8)
        let error = try #require(parseError(bytes: bytes))
        #expect(error.message == "invalid UTF-8")
        #expect(error.line == 2)
        #expect(error.column == 15)
    }

    static let malformedSequences: [(bytes: [UInt8], column: Int)] = [
        ([0x22, 0xFF, 0x22], 2),  // never valid
        ([0x22, 0x80, 0x22], 2),  // stray continuation byte
        ([0x22, 0xC0, 0x80, 0x22], 2),  // overlong NUL
        ([0x22, 0xE0, 0x80, 0x80, 0x22], 3),  // overlong three-byte form
        ([0x22, 0xED, 0xA0, 0x80, 0x22], 3),  // encoded surrogate U+D800
        ([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], 3),  // above U+10FFFF
        ([0x22, 0xE2, 0x82, 0x41, 0x22], 4),  // third byte is not a continuation
        ([0x22, 0x61, 0xE2, 0x82], 3),  // cut short by the end of input
        ([0xEF, 0xBB, 0xBF, 0x5B, 0xFE, 0x5D], 2),  // after a byte order mark, columns count from the mark's end
    ]

    @Test("malformed UTF-8 is rejected at the offending byte", arguments: malformedSequences)
    func invalidUTF8(bytes: [UInt8], column: Int) throws {
        let error = try #require(parseError(bytes: bytes))
        #expect(error.message == "invalid UTF-8")
        #expect(error.line == 1)
        #expect(error.column == column)
    }

    @Test("the location counts lines by line feeds and columns in bytes")
    func locationInBytes() throws {
        let error = try #require(parseError("[\r\n  \"é\", \"日\",\n  x]"))
        #expect(error.line == 3)
        #expect(error.column == 3)
    }
}
