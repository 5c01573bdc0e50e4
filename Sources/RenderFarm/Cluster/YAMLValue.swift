import RenderFarmOutput
/// The YAML that generated job descriptions are written in (`OpenJDBundle`, `KubernetesManifests`): block
/// mappings and sequences of integers, booleans and strings. Every string is written double-quoted with every
/// character outside YAML's printable set escaped, so no value (a path, a job name) can end its line, start
/// a key, or be read as a number, a boolean or null; keys are the writer's own names.
package indirect enum YAMLValue: Sendable {
    case string(String)
    case integer(Int)
    case bool(Bool)
    case list([YAMLValue])
    /// Entries in the order written.
    case map([(key: String, value: YAMLValue)])

    /// The document: one line per scalar, two spaces of indentation per level, ending in a line break.
    package var document: String { lines.map { $0 + "\n" }.joined() }

    /// A mapping from `entries`, leaving out the nil ones (optional fields).
    package static func map(_ entries: KeyValuePairs<String, YAMLValue?>) -> YAMLValue {
        .map(entries.compactMap { key, value in value.map { (key, $0) } })
    }

    private var lines: [String] {
        switch self {
        case .string, .integer, .bool: [scalar]
        case .list(let items) where items.isEmpty: ["[]"]
        case .map(let entries) where entries.isEmpty: ["{}"]
        case .list(let items):
            items.flatMap { item in
                item.lines.enumerated().map { index, line in (index == 0 ? "- " : "  ") + line }
            }
        case .map(let entries):
            entries.flatMap { key, value -> [String] in
                let name = Self.key(key)
                switch value {
                case .string, .integer, .bool: return ["\(name): \(value.scalar)"]
                case .list(let items) where items.isEmpty: return ["\(name): []"]
                case .map(let entries) where entries.isEmpty: return ["\(name): {}"]
                case .list, .map: return ["\(name):"] + value.lines.map { "  " + $0 }
                }
            }
        }
    }

    private var scalar: String {
        switch self {
        case .string(let text): Self.quoted(text)
        case .integer(let number): String(number)
        case .bool(let flag): flag ? "true" : "false"
        case .list, .map: ""
        }
    }

    /// A key as written: plain when it holds only letters, digits and `_.-/` and starts with a letter, else quoted.
    static func key(_ key: String) -> String {
        let plain =
            key.first.map { $0.isASCII && $0.isLetter } == true
            && key.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "_.-/".contains($0)) }
        return plain ? key : quoted(key)
    }

    /// `text` as a YAML double-quoted scalar: `\` and `"` escaped, line breaks and tabs as `\n` and `\t`, and every
    /// other character outside YAML's printable set as an escape: control characters as `ShellWord.escape`
    /// writes them (`\r`, `\x1B`, `\u0085`, which YAML reads alike), U+FEFF, U+FFFE and U+FFFF as `\uFEFF` ….
    package static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": result += "\\\\"
            case "\"": result += "\\\""
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case _ where ShellWord.isControl(scalar): result += ShellWord.escape(scalar)
            case "\u{FEFF}", "\u{FFFE}", "\u{FFFF}": result += "\\u" + String(scalar.value, radix: 16, uppercase: true)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
