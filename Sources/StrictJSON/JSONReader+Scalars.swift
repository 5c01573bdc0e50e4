/// Strings, numbers and error descriptions for `JSONReader`.
extension JSONReader {
    /// Reads a string; `position` is at its opening quote.
    mutating func readString() throws(JSONParseError) -> String {
        let open = position
        position += 1
        let contentStart = position
        // Fast path: no escapes, so the content is a slice of the (validated) input.
        while position < bytes.count {
            let byte = bytes[position]
            if byte == ASCII.quote {
                guard position - contentStart <= limits.maxStringBytes else { throw stringTooLong(at: open) }
                let content = UnsafeBufferPointer(rebasing: bytes[contentStart..<position])
                position += 1
                return String(decoding: content, as: UTF8.self)
            }
            if byte == ASCII.backslash { break }
            if byte < ASCII.space { throw controlCharacter(byte) }
            position += 1
        }
        guard position < bytes.count else { throw error("unterminated string", at: open) }
        var decoded = Array(bytes[contentStart..<position])
        while position < bytes.count {
            guard decoded.count <= limits.maxStringBytes else { throw stringTooLong(at: open) }
            let byte = bytes[position]
            switch byte {
            case ASCII.quote:
                position += 1
                return String(decoding: decoded, as: UTF8.self)
            case ASCII.backslash:
                try readEscape(into: &decoded)
            case ..<ASCII.space:
                throw controlCharacter(byte)
            default:
                decoded.append(byte)
                position += 1
            }
        }
        throw error("unterminated string", at: open)
    }

    /// Decodes one escape sequence into `decoded`; `position` is at its backslash.
    private mutating func readEscape(into decoded: inout [UInt8]) throws(JSONParseError) {
        let escapeStart = position
        guard position + 1 < bytes.count else { throw error("unexpected end of input", at: bytes.count) }
        let kind = bytes[position + 1]
        position += 2
        switch kind {
        case ASCII.quote, ASCII.backslash, ASCII.slash: decoded.append(kind)
        case UInt8(ascii: "b"): decoded.append(0x08)
        case UInt8(ascii: "f"): decoded.append(0x0C)
        case UInt8(ascii: "n"): decoded.append(ASCII.lineFeed)
        case UInt8(ascii: "r"): decoded.append(ASCII.carriageReturn)
        case UInt8(ascii: "t"): decoded.append(ASCII.tab)
        case UInt8(ascii: "u"):
            var value = try readHexQuad(escapeStart: escapeStart)
            if (0xDC00...0xDFFF).contains(value) {
                throw error("unpaired surrogate escape \(text(from: escapeStart, count: 6))", at: escapeStart)
            }
            if (0xD800...0xDBFF).contains(value) {
                let lowStart = position
                guard position + 1 < bytes.count, bytes[position] == ASCII.backslash,
                    bytes[position + 1] == UInt8(ascii: "u")
                else {
                    throw error("unpaired surrogate escape \(text(from: escapeStart, count: 6))", at: escapeStart)
                }
                position += 2
                let low = try readHexQuad(escapeStart: lowStart)
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw error("unpaired surrogate escape \(text(from: escapeStart, count: 6))", at: escapeStart)
                }
                value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let scalar = Unicode.Scalar(value) else {
                throw error("invalid escape \(text(from: escapeStart, count: 6))", at: escapeStart)
            }
            UTF8.encode(scalar) { decoded.append($0) }
        default:
            throw error("invalid escape sequence \(describe(byteAt: escapeStart + 1, prefix: "\\"))", at: escapeStart)
        }
    }

    /// Reads the four hex digits after `\u`; `position` is at the first digit.
    private mutating func readHexQuad(escapeStart: Int) throws(JSONParseError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard position < bytes.count else { throw error("unexpected end of input", at: position) }
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case ASCII.zero...ASCII.nine: digit = byte - ASCII.zero
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("expected four hex digits after \\u", at: escapeStart)
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    /// Reads a number; `position` is at its `-` or first digit.
    mutating func readNumber() throws(JSONParseError) -> Double {
        let numberStart = position
        let negative = bytes[position] == ASCII.minus
        if negative {
            position += 1
            if word(at: position) == "Infinity" { throw error("Infinity is not allowed in JSON", at: numberStart) }
        }
        let digitsStart = position
        guard position < bytes.count, ASCII.isDigit(bytes[position]) else {
            throw error("expected a digit after '-'", at: position)
        }
        if bytes[position] == ASCII.zero {
            position += 1
            if position < bytes.count, ASCII.isDigit(bytes[position]) {
                throw error("leading zeros are not allowed", at: numberStart)
            }
        } else {
            skipDigits()
        }
        let integerEnd = position
        if position < bytes.count, bytes[position] == ASCII.period {
            position += 1
            guard position < bytes.count, ASCII.isDigit(bytes[position]) else {
                throw error("expected a digit after the decimal point", at: position)
            }
            skipDigits()
        }
        if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
            position += 1
            if position < bytes.count, bytes[position] == ASCII.plus || bytes[position] == ASCII.minus {
                position += 1
            }
            guard position < bytes.count, ASCII.isDigit(bytes[position]) else {
                throw error("expected a digit in the exponent", at: position)
            }
            skipDigits()
        }
        // Integers of up to 15 digits are exact in a Double; anything else goes through the correctly rounded
        // conversion of the standard library.
        if position == integerEnd, integerEnd - digitsStart <= 15 {
            var magnitude = 0
            for index in digitsStart..<integerEnd {
                magnitude = magnitude * 10 + Int(bytes[index] - ASCII.zero)
            }
            return negative ? -Double(magnitude) : Double(magnitude)
        }
        let literal = String(decoding: UnsafeBufferPointer(rebasing: bytes[numberStart..<position]), as: UTF8.self)
        guard let value = Double(literal), value.isFinite else {
            throw error("number out of range", at: numberStart)
        }
        return value
    }

    private mutating func skipDigits() {
        while position < bytes.count, ASCII.isDigit(bytes[position]) {
            position += 1
        }
    }

    // MARK: - Errors

    /// The error for a byte that cannot start a value at `position`.
    func unexpectedCharacter() -> JSONParseError {
        let byte = bytes[position]
        if Self.isWordByte(byte) { return unexpectedWord(at: position) }
        switch byte {
        case ASCII.plus: return error("numbers must not start with '+'", at: position)
        case ASCII.period: return error("numbers must start with a digit", at: position)
        case UInt8(ascii: "'"): return error("single-quoted strings are not allowed", at: position)
        case ASCII.slash, UInt8(ascii: "#"): return error("comments are not allowed", at: position)
        default: return error("unexpected \(describe(byteAt: position))", at: position)
        }
    }

    /// The error for a word that is not `true`, `false` or `null`, starting at `offset`.
    func unexpectedWord(at offset: Int) -> JSONParseError {
        let found = word(at: offset)
        switch found {
        case "NaN", "nan", "Infinity", "inf":
            return error("\(found) is not allowed in JSON", at: offset)
        case "":
            return error("unexpected \(describe(byteAt: offset))", at: offset)
        default:
            let shown = found.count > 20 ? String(found.prefix(20)) + "…" : found
            return error(
                "invalid literal '\(shown)' (expected true, false, null, a number, a string, "
                    + "an array or an object)", at: offset)
        }
    }

    /// The error for an unescaped control character at `position` inside a string.
    private func controlCharacter(_ byte: UInt8) -> JSONParseError {
        error("control character \(Self.scalarName(UInt32(byte))) must be escaped in a string", at: position)
    }

    private func stringTooLong(at offset: Int) -> JSONParseError {
        error("string longer than \(limits.maxStringBytes) bytes", at: offset)
    }

    /// The run of ASCII letters, digits and underscores at `offset`.
    func word(at offset: Int) -> String {
        var end = offset
        while end < bytes.count, Self.isWordByte(bytes[end]) {
            end += 1
        }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[offset..<end]), as: UTF8.self)
    }

    /// Up to `count` bytes of input from `offset`, as text for a message.
    private func text(from offset: Int, count: Int) -> String {
        let end = min(offset + count, bytes.count)
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[offset..<end]), as: UTF8.self)
    }

    /// The character at `offset` for a message: `'x'` for printable ASCII, otherwise `U+XXXX`.
    private func describe(byteAt offset: Int, prefix: String = "") -> String {
        guard offset < bytes.count else { return "end of input" }
        let byte = bytes[offset]
        if byte >= 0x21, byte < 0x7F {
            return "'\(prefix)\(Character(Unicode.Scalar(byte)))'"
        }
        var iterator = UnsafeBufferPointer(rebasing: bytes[offset...]).makeIterator()
        var decoder = UTF8()
        if case .scalarValue(let scalar) = decoder.decode(&iterator) {
            return "character \(prefix.isEmpty ? "" : "'\(prefix)' followed by ")\(Self.scalarName(scalar.value))"
        }
        return "byte 0x\(String(byte, radix: 16, uppercase: true))"
    }

    /// `U+XXXX` with at least four hex digits.
    static func scalarName(_ value: UInt32) -> String {
        let hex = String(value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    static func isWordByte(_ byte: UInt8) -> Bool {
        switch byte {
        case ASCII.zero...ASCII.nine, UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "_"):
            true
        default:
            false
        }
    }

    /// A key as a quoted JSON string for a message, shortened if long.
    static func abbreviated(_ key: String) -> String {
        guard key.count > 60 else { return JSONWriter.quoted(key) }
        return JSONWriter.quoted(String(key.prefix(60))) + "…"
    }
}
