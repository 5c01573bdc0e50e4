/// Text that a Pango markup template (`<b>…</b>`, `<span …>`) shows as written.
public enum PangoMarkup {
    /// `text` with markup's special characters written as entities (`&amp;`, `&lt;`, `&gt;`, `&quot;`,
    /// `&apos;`): what the text effect does to an event's field, and the host to a variants value, that
    /// fills a markup template.
    public static func escaped(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            default: result.append(character)
            }
        }
        return result
    }

    /// The text `markup` shows: its tags left out and its entities (`&amp;`, `&lt;`, `&gt;`, `&quot;`, `&apos;`,
    /// `&#NN;`, `&#xNN;`) decoded. For measuring where a piece of markup's text lands, not for checking it.
    public static func plain(_ markup: String) -> String {
        var result = ""
        var rest = Substring(markup)
        while let next = rest.firstIndex(where: { $0 == "<" || $0 == "&" }) {
            result += rest[..<next]
            rest = rest[next...]
            if rest.first == "<" {
                guard let close = rest.firstIndex(of: ">") else { break }
                rest = rest[rest.index(after: close)...]
                continue
            }
            guard let end = rest.firstIndex(of: ";") else { break }
            let name = rest[rest.index(after: rest.startIndex)..<end]
            let named = ["amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'"]
            if let text = named[String(name)] {
                result += text
            } else if name.hasPrefix("#x") || name.hasPrefix("#X"), let code = UInt32(name.dropFirst(2), radix: 16),
                let scalar = Unicode.Scalar(code)
            {
                result.unicodeScalars.append(scalar)
            } else if name.hasPrefix("#"), let code = UInt32(name.dropFirst()), let scalar = Unicode.Scalar(code) {
                result.unicodeScalars.append(scalar)
            } else {
                result += rest[...end]
            }
            rest = rest[rest.index(after: end)...]
        }
        return result + rest
    }
}
