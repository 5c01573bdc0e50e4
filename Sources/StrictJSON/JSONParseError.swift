/// Why a JSON document was rejected, and where.
public struct JSONParseError: Error, Equatable, CustomStringConvertible {
    /// The 1-based line of the offending byte. Lines are separated by "\n".
    public var line: Int
    /// The 1-based column of the offending byte, counted in bytes from the start of the line.
    public var column: Int
    /// What is wrong, for example `duplicate key "rate"` or `unexpected end of input`.
    public var message: String

    /// The location and the message, for example `line 3, column 14: duplicate key "rate"`.
    public var description: String {
        "line \(line), column \(column): \(message)"
    }

    init(line: Int, column: Int, message: String) {
        self.line = line
        self.column = column
        self.message = message
    }
}
