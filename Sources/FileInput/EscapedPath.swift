/// How a message writes a path or a file name: every control character — line feed and tab included — as
/// an escape (`\n`, `\t`, `\r`, `\x1B`, `\u0085`), so a name always stays one piece of one line. The
/// terminal escapes the other control characters of a message too (`Terminal.escaped`), but keeps its
/// line breaks, which lay out lists and excerpts: a line break inside a name must be escaped where the
/// name goes into the message. Escaping twice changes nothing.
public enum EscapedPath {
    public static func of(_ path: String) -> String {
        guard path.unicodeScalars.contains(where: isControl) else { return path }
        var escaped = String.UnicodeScalarView()
        for scalar in path.unicodeScalars {
            guard isControl(scalar) else {
                escaped.append(scalar)
                continue
            }
            escaped.append(contentsOf: escape(scalar).unicodeScalars)
        }
        return String(escaped)
    }

    /// A control character as `Terminal.escaped` and bash's `$'…'` write it: `\n`, `\t`, `\r`, `\x1B`
    /// (C0 and DEL), `\u0085` (C1).
    public static func escape(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case "\n": return "\\n"
        case "\t": return "\\t"
        case "\r": return "\\r"
        default:
            let hex = String(scalar.value, radix: 16, uppercase: true)
            return scalar.value < 0x80
                ? "\\x" + String(repeating: "0", count: max(0, 2 - hex.count)) + hex : "\\u00" + hex
        }
    }

    /// A C0 or C1 control character or DEL (Unicode category Cc).
    static func isControl(_ scalar: Unicode.Scalar) -> Bool { scalar.properties.generalCategory == .control }
}
