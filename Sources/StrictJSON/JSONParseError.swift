/// Why a JSON document was rejected, and where.
public struct JSONParseError: Error, Equatable, CustomStringConvertible {
    /// The 1-based line of the offending byte. Lines are separated by "\n".
    public var line: Int
    /// The 1-based column of the offending byte, counted in bytes from the start of the line.
    public var column: Int
    /// What is wrong, for example `duplicate key "rate"` or `unexpected end of input`.
    public var message: String
    /// The likely fix, where the parser can tell, for example `missing ',' after line 3?`.
    public var hint: String?

    /// The location, the message and the hint, for example
    /// `line 4, column 3: expected ',' or '}' after an object member (missing ',' after line 3?)`.
    public var description: String {
        "line \(line), column \(column): \(message)" + (hint.map { " (\($0))" } ?? "")
    }

    init(line: Int, column: Int, message: String, hint: String? = nil) {
        self.line = line
        self.column = column
        self.message = message
        self.hint = hint
    }

    /// The offending line of `document` with a caret under the column, for messages:
    ///
    ///         4 |   "layers": []
    ///           |   ^
    ///
    /// Empty when the line is not in `document` (e.g. it was not the parsed text).
    public func excerpt(of document: some Collection<UInt8>) -> String {
        let lines = document.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        guard line >= 1, line <= lines.count else { return "" }
        var text = String(decoding: lines[lines.index(lines.startIndex, offsetBy: line - 1)], as: UTF8.self)
        if text.hasSuffix("\r") { text.removeLast() }
        // Long lines are cut around the column so the caret stays in view.
        let limit = 100
        var caretColumn = String(decoding: Array(text.utf8).prefix(max(0, column - 1)), as: UTF8.self).count
        if text.count > limit {
            let first = max(0, min(caretColumn - limit / 2, text.count - limit))
            text = String(text.dropFirst(first).prefix(limit))
            caretColumn -= first
        }
        let number = String(line)
        let gutter = String(repeating: " ", count: number.count)
        let indent = String(text.prefix(caretColumn).map { $0 == "\t" ? "\t" : " " })
        return "    \(number) | \(text)\n    \(gutter) | \(indent)^"
    }
}
