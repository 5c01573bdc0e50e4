/// The recursive-descent reader behind `JSONParser`, working on a buffer of already validated UTF-8.
///
/// Recursion happens only for nested arrays and objects and is bounded by `Limits.maxDepth`.
struct JSONReader {
    let bytes: UnsafeBufferPointer<UInt8>
    /// Where the document starts (after a byte order mark, if any); columns on line 1 count from here.
    let start: Int
    let limits: JSONParser.Limits
    /// The offset of the next byte to read.
    var position: Int

    init(bytes: UnsafeBufferPointer<UInt8>, start: Int, limits: JSONParser.Limits) {
        self.bytes = bytes
        self.start = start
        self.limits = limits
        self.position = start
    }

    /// An error at byte `offset`, with its line and column.
    func error(_ message: String, at offset: Int) -> JSONParseError {
        var line = 1
        var lineStart = start
        var index = start
        let stop = min(offset, bytes.count)
        while index < stop {
            if bytes[index] == ASCII.lineFeed {
                line += 1
                lineStart = index + 1
            }
            index += 1
        }
        return JSONParseError(line: line, column: max(offset - lineStart, 0) + 1, message: message)
    }

    /// Reads the single value that makes up the document.
    mutating func readDocument() throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        guard position < bytes.count else { throw error("empty input", at: position) }
        let value = try readValue(depth: 0)
        skipWhitespace()
        guard position == bytes.count else { throw misplaced("trailing content after the JSON value") }
        return value
    }

    /// Reads a value that starts at `position`, inside `depth` enclosing arrays and objects.
    private mutating func readValue(depth: Int) throws(JSONParseError) -> JSONValue {
        guard position < bytes.count else { throw error("unexpected end of input", at: position) }
        switch bytes[position] {
        case ASCII.openBrace:
            return try readObject(depth: depth + 1)
        case ASCII.openBracket:
            return try readArray(depth: depth + 1)
        case ASCII.quote:
            return .string(try readString())
        case UInt8(ascii: "t"):
            try readLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try readLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try readLiteral("null")
            return .null
        case ASCII.minus, ASCII.zero...ASCII.nine:
            return .number(try readNumber())
        default:
            throw unexpectedCharacter()
        }
    }

    /// Reads an object; `position` is at its `{`.
    private mutating func readObject(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth <= limits.maxDepth else {
            throw error("nesting deeper than \(limits.maxDepth) levels", at: position)
        }
        position += 1
        skipWhitespace()
        var object = JSONObject()
        if position < bytes.count, bytes[position] == ASCII.closeBrace {
            position += 1
            return .object(object)
        }
        var lastComma: Int?
        while true {
            guard position < bytes.count else { throw error("unexpected end of input", at: position) }
            let keyStart = position
            guard bytes[position] == ASCII.quote else {
                if let lastComma, bytes[position] == ASCII.closeBrace {
                    throw error("trailing comma before '}'", at: lastComma)
                }
                if bytes[position] == UInt8(ascii: "'") {
                    throw error("single-quoted strings are not allowed", at: position)
                }
                throw error("expected a double-quoted string as object key", at: position)
            }
            guard object.count < limits.maxContainerCount else {
                throw error("object with more than \(limits.maxContainerCount) members", at: keyStart)
            }
            let key = try readString()
            guard object[key] == nil else {
                throw error("duplicate key \(Self.abbreviated(key))", at: keyStart)
            }
            skipWhitespace()
            guard position < bytes.count else { throw error("unexpected end of input", at: position) }
            guard bytes[position] == ASCII.colon else { throw error("expected ':' after an object key", at: position) }
            position += 1
            skipWhitespace()
            object[key] = try readValue(depth: depth)
            if try closes(ASCII.closeBrace, lastComma: &lastComma, else: "expected ',' or '}' after an object member") {
                return .object(object)
            }
        }
    }

    /// Reads an array; `position` is at its `[`.
    private mutating func readArray(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth <= limits.maxDepth else {
            throw error("nesting deeper than \(limits.maxDepth) levels", at: position)
        }
        position += 1
        skipWhitespace()
        var elements: [JSONValue] = []
        if position < bytes.count, bytes[position] == ASCII.closeBracket {
            position += 1
            return .array(elements)
        }
        var lastComma: Int?
        while true {
            if let lastComma, position < bytes.count, bytes[position] == ASCII.closeBracket {
                throw error("trailing comma before ']'", at: lastComma)
            }
            guard elements.count < limits.maxContainerCount else {
                throw error("array with more than \(limits.maxContainerCount) elements", at: position)
            }
            elements.append(try readValue(depth: depth))
            if try closes(ASCII.closeBracket, lastComma: &lastComma, else: "expected ',' or ']' after an array element") {
                return .array(elements)
            }
        }
    }

    /// After an object member or array element: consumes a comma (recording where it was in
    /// `lastComma`) and returns false, or consumes `close` and returns true; anything else is
    /// the error `message`.
    private mutating func closes(_ close: UInt8, lastComma: inout Int?, else message: String)
        throws(JSONParseError) -> Bool
    {
        skipWhitespace()
        guard position < bytes.count else { throw error("unexpected end of input", at: position) }
        switch bytes[position] {
        case ASCII.comma:
            lastComma = position
            position += 1
            skipWhitespace()
            return false
        case close:
            position += 1
            return true
        default:
            throw misplaced(message)
        }
    }

    /// Reads `true`, `false` or `null`; `position` is at its first letter.
    private mutating func readLiteral(_ literal: StaticString) throws(JSONParseError) {
        let literalStart = position
        let length = literal.utf8CodeUnitCount
        var matches = literalStart + length <= bytes.count
        if matches {
            let expected = UnsafeBufferPointer(start: literal.utf8Start, count: length)
            for index in 0..<length where bytes[literalStart + index] != expected[index] {
                matches = false
                break
            }
        }
        // A letter or digit straight after the literal (as in "nullx") makes it a different word.
        if matches, literalStart + length < bytes.count, Self.isWordByte(bytes[literalStart + length]) {
            matches = false
        }
        guard matches else { throw unexpectedWord(at: literalStart) }
        position += length
    }

    /// The error for an unexpected byte at `position` after a value: `message`, unless the byte starts a comment.
    private func misplaced(_ message: String) -> JSONParseError {
        switch bytes[position] {
        case ASCII.slash, UInt8(ascii: "#"): return error("comments are not allowed", at: position)
        default:
            var failure = error(message, at: position)
            if message.hasPrefix("expected ','"), let line = lineOfPreviousToken(), line < failure.line {
                // The value before ended a line and the next one starts a new line: a forgotten comma.
                failure.hint = "missing ',' after line \(line)?"
            }
            return failure
        }
    }

    /// The line of the last non-whitespace byte before `position`, or nil at the start.
    private func lineOfPreviousToken() -> Int? {
        var index = position - 1
        while index >= start, [ASCII.space, ASCII.tab, ASCII.lineFeed, ASCII.carriageReturn].contains(bytes[index]) {
            index -= 1
        }
        return index >= start ? error("", at: index).line : nil
    }

    /// Skips JSON whitespace: space, tab, line feed and carriage return.
    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case ASCII.space, ASCII.tab, ASCII.lineFeed, ASCII.carriageReturn:
                position += 1
            default:
                return
            }
        }
    }
}
