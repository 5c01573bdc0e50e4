/// A strict RFC 8259 JSON parser for untrusted input.
///
/// Unlike Foundation's `JSONSerialization`, it rejects duplicate keys, keeps object members in document order,
/// checks UTF-8 itself and reports the line and column of every error. Resource use is bounded by `Limits`.
///
/// Rejected: invalid UTF-8, comments, trailing commas, single quotes, `NaN`/`Infinity`, leading zeros and `+`
/// signs in numbers, numbers too large for a `Double`, unescaped control characters and unpaired surrogate escapes
/// in strings, duplicate keys in one object, anything after the value, and empty input. A leading UTF-8 byte order
/// mark is skipped.
public struct JSONParser {
    /// Bounds on the size of a document, so that hostile input cannot exhaust memory, time or stack.
    public struct Limits: Sendable {
        /// The largest accepted input, in bytes. Checked before anything else.
        public var maxBytes: Int
        /// The deepest accepted nesting of arrays and objects; a top-level array or object is depth 1.
        public var maxDepth: Int
        /// The longest accepted string (key or value), in UTF-8 bytes after escapes are decoded.
        public var maxStringBytes: Int
        /// The most elements in one array or members in one object.
        public var maxContainerCount: Int

        /// Creates limits; every parameter defaults to the value in `Limits.default`.
        public init(
            maxBytes: Int = 1 << 20,
            maxDepth: Int = 64,
            maxStringBytes: Int = 4096,
            maxContainerCount: Int = 100_000
        ) {
            self.maxBytes = maxBytes
            self.maxDepth = maxDepth
            self.maxStringBytes = maxStringBytes
            self.maxContainerCount = maxContainerCount
        }

        /// 1 MiB of input, 64 levels of nesting, 4096-byte strings and 100,000 entries per container.
        public static let `default` = Limits()
    }

    /// Parses one JSON document from UTF-8 bytes.
    ///
    /// - Throws: `JSONParseError` with the line, column and reason of the first problem found.
    public static func parse(
        _ bytes: some Collection<UInt8>,
        limits: Limits = .default
    ) throws(JSONParseError) -> JSONValue {
        guard bytes.count <= limits.maxBytes else {
            throw JSONParseError(line: 1, column: 1, message: "file larger than \(limits.maxBytes) bytes")
        }
        let contiguous = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(JSONParseError) in try parse(buffer: buffer, limits: limits) }
        }
        if let contiguous {
            return try contiguous.get()
        }
        let copy = Array(bytes)
        return try copy.withUnsafeBufferPointer { buffer in
            Result { () throws(JSONParseError) in try parse(buffer: buffer, limits: limits) }
        }.get()
    }

    /// Parses one JSON document from text. The limits apply to its UTF-8 encoding.
    ///
    /// - Throws: `JSONParseError` with the line, column and reason of the first problem found.
    public static func parse(_ text: String, limits: Limits = .default) throws(JSONParseError) -> JSONValue {
        try parse(text.utf8, limits: limits)
    }

    /// Validates the encoding, then reads the document.
    private static func parse(
        buffer: UnsafeBufferPointer<UInt8>,
        limits: Limits
    ) throws(JSONParseError) -> JSONValue {
        let hasByteOrderMark = buffer.count >= 3 && buffer[0] == 0xEF && buffer[1] == 0xBB && buffer[2] == 0xBF
        let start = hasByteOrderMark ? 3 : 0
        var reader = JSONReader(bytes: buffer, start: start, limits: limits)
        if let offset = firstInvalidUTF8(in: buffer, from: start) {
            throw reader.error("invalid UTF-8", at: offset)
        }
        return try reader.readDocument()
    }

    /// The offset of the first byte in `bytes[start...]` that is not part of well-formed UTF-8 (no overlong
    /// forms, no surrogates, nothing above U+10FFFF), or `nil` if all of it is well formed. A sequence cut short
    /// by the end of the input is reported at its first byte.
    static func firstInvalidUTF8(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        var index = start
        let count = bytes.count
        while index < count {
            let lead = bytes[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            // Length of the sequence and the allowed range of its second byte (Unicode Table 3-7).
            let length: Int
            var lower: UInt8 = 0x80
            var upper: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0:
                length = 3
                lower = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED:
                length = 3
                upper = 0x9F
            case 0xF0:
                length = 4
                lower = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4:
                length = 4
                upper = 0x8F
            default: return index
            }
            guard index + length <= count else { return index }
            let second = bytes[index + 1]
            guard second >= lower, second <= upper else { return index + 1 }
            for offset in 2..<length where bytes[index + offset] & 0xC0 != 0x80 {
                return index + offset
            }
            index += length
        }
        return nil
    }
}
