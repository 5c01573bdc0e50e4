import StrictJSON

/// The rule for names that become folder names: a job's `name` (`out/<name>`, or `DIR/<name>` under
/// `--out` with several jobs) and a variant's name (`<output.dir>/<variant>`). Each must name one new
/// folder inside its parent, never the parent itself or a folder elsewhere (<doc:JobFileReference>).
package enum FolderName {
    /// What is wrong with `name` as a folder name, or nil when it is fine: empty, `.` or `..`, a `/`,
    /// a control character (NUL and line breaks included), or longer than `maxBytes`.
    package static func problem(_ name: String, maxBytes: Int = 255) -> String? {
        if name.isEmpty { return "is empty" }
        if name == "." || name == ".." { return "names the folder itself or its parent, not a folder of its own" }
        if name.contains("/") { return "contains '/'" }
        if let control = name.unicodeScalars.first(where: { $0.properties.generalCategory == .control }) {
            let code = String(control.value, radix: 16, uppercase: true)
            return "contains a control character (U+\(String(repeating: "0", count: 4 - code.count) + code))"
        }
        if name.utf8.count > maxBytes { return "is longer than \(maxBytes) bytes" }
        return nil
    }

    /// `name` as messages show it: a JSON string, so control characters and quotes are escaped.
    package static func shown(_ name: String) -> String { JSONValue.string(name).serialized() }

    /// What a message adds after the problem: the characters a name should use.
    package static let advice = "use letters, digits, spaces, '-', '_' and '.'"
}
