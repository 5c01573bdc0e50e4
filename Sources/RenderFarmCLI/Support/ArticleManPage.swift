/// A DocC article (Markdown) as a manual page in roff, so that `renderfarm-job(5)` and
/// `renderfarm-plugin(7)` are the articles themselves and cannot drift from them.
///
/// The Markdown DocC articles use: `#` title and the abstract under it (NAME), `##`/`###`
/// headings, paragraphs, `-` lists, fenced code, tables (each row a tagged paragraph: the first
/// cell, then every other cell after its column's header), inline code, ``Symbol`` links,
/// `<doc:Article>` links, `[text](url)` and `**bold**`.
enum ArticleManPage {
    static func render(_ markdown: String, name: String, section: Int, version: String) -> String {
        var lines = markdown.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var title = name
        if let first = lines.first, first.hasPrefix("# ") {
            title = String(first.dropFirst(2))
            lines.removeFirst()
        }
        // The abstract: the first paragraph after the title.
        while lines.first?.trimmingCharacters(in: .whitespaces).isEmpty == true { lines.removeFirst() }
        var abstract: [String] = []
        while let line = lines.first, !line.trimmingCharacters(in: .whitespaces).isEmpty {
            abstract.append(line)
            lines.removeFirst()
        }
        var out = [
            ".TH \(ManPage.escape(name.uppercased())) \(section) \"\" \"renderfarm \(ManPage.escape(version))\" "
                + "\"RenderFarm\"",
            ".SH NAME",
            "\(ManPage.escape(name)) \\- \(inline(title))",
            ".SH DESCRIPTION",
            inline(abstract.joined(separator: " ")),
        ]
        var inCode = false
        var header: [String] = []
        for line in lines {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            // A heading or a code block starts its own paragraph: no empty one before it.
            if !inCode, trimmed.hasPrefix("#") || trimmed.hasPrefix("```"), out.last == ".PP" { out.removeLast() }
            if trimmed.hasPrefix("```") {
                out += inCode ? [".fi", ".RE"] : [".PP", ".RS 4", ".nf"]
                inCode.toggle()
            } else if inCode {
                out.append(ManPage.escape(line).isEmpty ? "\\&" : "\\&" + ManPage.escape(line))
            } else if trimmed.isEmpty {
                header = []
                if out.last != ".PP" { out.append(".PP") }
            } else if line.hasPrefix("### ") {
                out.append(".SS \"\(inline(String(line.dropFirst(4))))\"")
            } else if line.hasPrefix("## ") {
                out.append(".SH \"\(inline(String(line.dropFirst(3))).uppercased())\"")
            } else if trimmed.hasPrefix("|") {
                let cells = trimmed.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                    .map { $0.trimmingCharacters(in: .whitespaces) }
                if cells.allSatisfy({ $0.allSatisfy { "-:".contains($0) } }) { continue }
                if header.isEmpty {
                    header = cells
                    continue
                }
                out += [".TP", "\\fB\(inline(cells.first ?? ""))\\fR"]
                let rest = zip(header.dropFirst(), cells.dropFirst()).filter { !$1.isEmpty }
                out.append(rest.map { "\(inline($0)): \(inline($1))" }.joined(separator: "; "))
            } else if trimmed.hasPrefix("- ") {
                out += [".IP \\(bu 2", inline(String(trimmed.dropFirst(2))).leadingDotSafe]
            } else {
                out.append(inline(trimmed).leadingDotSafe)
            }
        }
        if inCode { out += [".fi", ".RE"] }
        while out.last == ".PP" { out.removeLast() }
        return out.joined(separator: "\n") + "\n"
    }

    /// Inline Markdown: links to their text, code and bold to bold roff.
    static func inline(_ text: String) -> String {
        var text = text
        // <doc:Article> and <doc:Article#Section>: the article's name.
        while let start = text.range(of: "<doc:"), let end = text[start.upperBound...].firstIndex(of: ">") {
            text.replaceSubrange(start.lowerBound...end, with: String(text[start.upperBound..<end]))
        }
        // [text](url): text (url).
        while let open = text.firstIndex(of: "["), let close = text[open...].range(of: "]("),
            let end = text[close.upperBound...].firstIndex(of: ")")
        {
            let label = text[text.index(after: open)..<close.lowerBound]
            let url = text[close.upperBound..<end]
            text.replaceSubrange(open...end, with: "\(label) (\(url))")
        }
        text = text.replacingOccurrences(of: "``", with: "`")
        var escaped = ""
        var bold = false
        var rest = Substring(ManPage.escape(text))
        while let index = rest.firstIndex(where: { $0 == "`" || $0 == "*" }) {
            escaped += rest[..<index]
            if rest[index] == "*", rest[index...].hasPrefix("**") {
                escaped += bold ? "\\fR" : "\\fB"
                bold.toggle()
                rest = rest[rest.index(index, offsetBy: 2)...]
            } else if rest[index] == "`", let close = rest[rest.index(after: index)...].firstIndex(of: "`") {
                escaped += "\\fB" + rest[rest.index(after: index)..<close] + "\\fR"
                rest = rest[rest.index(after: close)...]
            } else {
                escaped.append(rest[index])
                rest = rest[rest.index(after: index)...]
            }
        }
        return escaped + rest + (bold ? "\\fR" : "")
    }
}

extension String {
    /// A text line roff would read as a request (starting with `.` or `'`) made literal.
    fileprivate var leadingDotSafe: String { hasPrefix(".") || hasPrefix("'") ? "\\&" + self : self }
}
