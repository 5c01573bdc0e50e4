extension JSONValue {
    /// Serializes the value as JSON text without a trailing newline.
    ///
    /// - Parameters:
    ///   - pretty: `false` gives compact one-line text (`{"a":[1,2]}`); `true` puts every array element and object
    ///     member on its own line, indented by 2 spaces per level, with one space after each colon. Empty
    ///     containers are written as `[]` and `{}` in both modes.
    ///   - sortedKeys: `true` orders object members by key in Unicode scalar order (byte order of the UTF-8);
    ///     `false` keeps document order.
    ///
    /// Strings are escaped as JSON requires (`"`, `\`, control characters); other characters, including
    /// non-ASCII and `/`, are written as they are. Integral numbers below 2^53 in magnitude are written without a
    /// fraction (`30`), others in Swift's shortest round-trip form (`0.5`, `1e-07`), so the parser reads back the
    /// same `Double`. NaN and infinities, which JSON cannot represent, are written as `null`.
    public func serialized(pretty: Bool = false, sortedKeys: Bool = false) -> String {
        var writer = JSONWriter(pretty: pretty, sortedKeys: sortedKeys)
        writer.write(self, depth: 0)
        return String(decoding: writer.output, as: UTF8.self)
    }
}

/// Builds JSON text as UTF-8 bytes.
struct JSONWriter {
    let pretty: Bool
    let sortedKeys: Bool
    var output: [UInt8] = []

    init(pretty: Bool, sortedKeys: Bool) {
        self.pretty = pretty
        self.sortedKeys = sortedKeys
    }

    mutating func write(_ value: JSONValue, depth: Int) {
        switch value {
        case .null:
            output.append(contentsOf: "null".utf8)
        case .bool(let bool):
            output.append(contentsOf: (bool ? "true" : "false").utf8)
        case .number(let number):
            output.append(contentsOf: Self.format(number).utf8)
        case .string(let string):
            writeString(string)
        case .array(let elements):
            guard !elements.isEmpty else {
                output.append(contentsOf: "[]".utf8)
                return
            }
            output.append(ASCII.openBracket)
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(ASCII.comma) }
                newline(depth: depth + 1)
                write(element, depth: depth + 1)
            }
            newline(depth: depth)
            output.append(ASCII.closeBracket)
        case .object(let object):
            guard object.count > 0 else {
                output.append(contentsOf: "{}".utf8)
                return
            }
            var members = Array(object)
            if sortedKeys {
                members.sort { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            }
            output.append(ASCII.openBrace)
            for (index, member) in members.enumerated() {
                if index > 0 { output.append(ASCII.comma) }
                newline(depth: depth + 1)
                writeString(member.key)
                output.append(ASCII.colon)
                if pretty { output.append(ASCII.space) }
                write(member.value, depth: depth + 1)
            }
            newline(depth: depth)
            output.append(ASCII.closeBrace)
        }
    }

    /// In pretty mode, starts a new line indented for `depth`.
    private mutating func newline(depth: Int) {
        guard pretty else { return }
        output.append(ASCII.lineFeed)
        output.append(contentsOf: repeatElement(ASCII.space, count: depth * 2))
    }

    /// Writes `string` as a quoted, escaped JSON string.
    mutating func writeString(_ string: String) {
        output.append(ASCII.quote)
        for byte in string.utf8 {
            switch byte {
            case ASCII.quote, ASCII.backslash:
                output.append(ASCII.backslash)
                output.append(byte)
            case ASCII.lineFeed: output.append(contentsOf: #"\n"#.utf8)
            case ASCII.carriageReturn: output.append(contentsOf: #"\r"#.utf8)
            case ASCII.tab: output.append(contentsOf: #"\t"#.utf8)
            case 0x08: output.append(contentsOf: #"\b"#.utf8)
            case 0x0C: output.append(contentsOf: #"\f"#.utf8)
            case ..<0x20:
                output.append(contentsOf: #"\u00"#.utf8)
                output.append(ASCII.hexDigit(byte >> 4))
                output.append(ASCII.hexDigit(byte & 0x0F))
            default:
                output.append(byte)
            }
        }
        output.append(ASCII.quote)
    }

    /// The JSON text of a number: integral values below 2^53 without a fraction, others in shortest round-trip
    /// form, non-finite values as `null`.
    static func format(_ number: Double) -> String {
        guard number.isFinite else { return "null" }
        if number.magnitude < 9_007_199_254_740_992, number == number.rounded(.towardZero) {
            return String(Int64(number))
        }
        return number.description
    }

    /// `string` as a JSON string literal, for messages.
    static func quoted(_ string: String) -> String {
        var writer = JSONWriter(pretty: false, sortedKeys: false)
        writer.writeString(string)
        return String(decoding: writer.output, as: UTF8.self)
    }
}
