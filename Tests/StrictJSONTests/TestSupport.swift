import StrictJSON

/// The error that parsing `text` throws, or `nil` if it parses.
func parseError(_ text: String, limits: JSONParser.Limits = .default) -> JSONParseError? {
    parseError(bytes: Array(text.utf8), limits: limits)
}

/// The error that parsing `bytes` throws, or `nil` if they parse.
func parseError(bytes: [UInt8], limits: JSONParser.Limits = .default) -> JSONParseError? {
    do {
        _ = try JSONParser.parse(bytes, limits: limits)
        return nil
    } catch {
        return error
    }
}

/// A document that must be rejected with `message` at `line`:`column`.
struct Rejection: Sendable, CustomStringConvertible {
    var input: String
    var message: String
    var line: Int = 1
    var column: Int

    var description: String {
        "\(input.debugDescription) → \(message)"
    }
}
