import StrictJSON
import Testing

@Suite("Limits")
struct LimitsTests {
    static func nestedArrays(_ depth: Int) -> String {
        String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
    }

    @Test("the default limits")
    func defaults() {
        let limits = JSONParser.Limits.default
        #expect(limits.maxBytes == 1_048_576)
        #expect(limits.maxDepth == 64)
        #expect(limits.maxStringBytes == 4096)
        #expect(limits.maxContainerCount == 100_000)
    }

    @Test("64 nested arrays parse with the default limits")
    func depth64() throws {
        _ = try JSONParser.parse(Self.nestedArrays(64))
    }

    @Test("65 nested arrays are rejected at the 65th bracket")
    func depth65() throws {
        let error = try #require(parseError(Self.nestedArrays(65)))
        #expect(error.message == "nesting deeper than 64 levels")
        #expect(error.column == 65)
    }

    @Test("objects count toward the depth like arrays")
    func mixedDepth() throws {
        let limits = JSONParser.Limits(maxDepth: 3)
        #expect(parseError(#"{"a": [{"b": 1}]}"#, limits: limits) == nil)
        let error = try #require(parseError(#"{"a": [{"b": []}]}"#, limits: limits))
        #expect(error.message == "nesting deeper than 3 levels")
        #expect(error.column == 14)
    }

    @Test("very deep input fails cleanly instead of exhausting the stack")
    func hostileDepth() throws {
        let error = try #require(parseError(String(repeating: "[{\"a\":", count: 100_000)))
        #expect(error.message == "nesting deeper than 64 levels")
    }

    @Test("a 2 MiB input is rejected on size before anything else")
    func tooLarge() throws {
        // Not even valid JSON: the size is checked first.
        let error = try #require(parseError(bytes: [UInt8](repeating: 0xFF, count: 2 << 20)))
        #expect(error.message == "file larger than 1048576 bytes")
        #expect(error.line == 1)
        #expect(error.column == 1)
    }

    @Test("the size limit is inclusive and counts bytes, not characters")
    func sizeBoundary() throws {
        let limits = JSONParser.Limits(maxBytes: 8)
        #expect(parseError(#""ééé""#, limits: limits) == nil)  // 8 bytes
        let error = try #require(parseError(#""éééé""#, limits: limits))
        #expect(error.message == "file larger than 8 bytes")
    }

    @Test("strings longer than the limit are rejected at their opening quote")
    func longString() throws {
        let fits = "[\"" + String(repeating: "a", count: 4096) + "\"]"
        #expect(parseError(fits) == nil)
        let error = try #require(parseError("[\"" + String(repeating: "a", count: 4097) + "\"]"))
        #expect(error.message == "string longer than 4096 bytes")
        #expect(error.column == 2)
    }

    @Test("the string limit counts decoded UTF-8 bytes and applies to keys")
    func stringLimitDetails() throws {
        let limits = JSONParser.Limits(maxStringBytes: 4)
        #expect(parseError(#"["\u00e9\u00e9"]"#, limits: limits) == nil)  // 12 bytes of input, 4 decoded
        #expect(parseError(#"["\u00e9\u00e9a"]"#, limits: limits)?.message == "string longer than 4 bytes")
        #expect(parseError(#"["ééa"]"#, limits: limits)?.message == "string longer than 4 bytes")
        let error = try #require(parseError(#"{"ok": 1, "toolong": 2}"#, limits: limits))
        #expect(error.message == "string longer than 4 bytes")
        #expect(error.column == 11)
    }

    @Test("arrays and objects with too many entries are rejected at the first entry too many")
    func containerCount() throws {
        let limits = JSONParser.Limits(maxContainerCount: 3)
        #expect(parseError("[1, 2, 3]", limits: limits) == nil)
        #expect(parseError(#"{"a": 1, "b": 2, "c": 3}"#, limits: limits) == nil)

        let arrayError = try #require(parseError("[1, 2, 3, 4]", limits: limits))
        #expect(arrayError.message == "array with more than 3 elements")
        #expect(arrayError.column == 11)

        let objectError = try #require(parseError(#"{"a": 1, "b": 2, "c": 3, "d": 4}"#, limits: limits))
        #expect(objectError.message == "object with more than 3 members")
        #expect(objectError.column == 26)
    }
}
