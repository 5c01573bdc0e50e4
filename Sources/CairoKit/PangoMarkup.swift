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
}
