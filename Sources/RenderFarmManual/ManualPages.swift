import CMarkGFM
import Foundation

/// A topic written for a terminal, for `man` and for a web browser without JavaScript. Each parses the
/// article with cmark-gfm, reshapes what DocC reads specially (`<doc:Article>` links, tables, the title
/// and abstract), and lets cmark's renderer write the rest, so the three say the same words.
extension ManualTopic {
    /// The article as plain text wrapped at `width` columns: the title, the abstract, then sections
    /// under capitalised headings, tables as lists, links as their text with the address.
    package func text(width: Int) -> String {
        let tree = bodyTree(forText: true, keepingAbstract: true)
        tree.replaceArticleLinks { topic, article in
            [MarkdownTree.text(topic.map { "\($0.title) (renderfarm docs \($0.name))" } ?? article)]
        }
        tree.spellOutLinks()
        tree.indentCode(by: 4)
        let rule = String(repeating: "=", count: min(title.count, max(width, 20)))
        return "\(title)\n\(rule)\n\n" + tree.rendered(.text(width: width))
    }

    /// The article as a manual page (roff with the man macros): NAME from the title, DESCRIPTION from
    /// the abstract, the article's `##` sections as `.SH` and `###` as `.SS`; named `name` in `section`
    /// (by default its own page's).
    package func man(version: String, name: String? = nil, section: Int? = nil) -> String {
        let name = name ?? manName
        let section = section ?? manSection
        let tree = bodyTree(forText: true)
        tree.replaceArticleLinks { topic, article in
            guard let topic else { return [MarkdownTree.text(article)] }
            return [
                MarkdownTree.text("\(topic.title), "),
                MarkdownTree.node(CMARK_NODE_STRONG, [MarkdownTree.text(topic.manName)]),
                MarkdownTree.text("(\(topic.manSection))"),
            ]
        }
        tree.spellOutLinks()
        let header = [
            ".TH \(Roff.escape(name.uppercased())) \(section) \"\" \"renderfarm \(Roff.escape(version))\" "
                + "\"RenderFarm\"",
            ".SH NAME",
            "\(Roff.escape(name)) \\- \(Roff.escape(title))",
            ".SH DESCRIPTION",
            Roff.escape(abstract),
        ]
        // cmark writes characters beyond ASCII as they are: as escapes, every reader of the page sets them
        // alike, whatever encoding its locale makes groff's preconv guess.
        return header.joined(separator: "\n") + "\n" + Roff.escapingBeyondASCII(tree.rendered(.man))
    }

    /// The article as a web page of its own, readable without JavaScript: the text in HTML, links to the
    /// other topics' pages in the same folder, and a style sheet in the page.
    package func html(version: String) -> String {
        let tree = bodyTree(forText: false)
        tree.replaceArticleLinks { topic, article in
            guard let topic else { return [MarkdownTree.text(article)] }
            let link = MarkdownTree.node(CMARK_NODE_LINK, [MarkdownTree.text(topic.title)])
            cmark_node_set_url(link, topic.htmlFile)
            return [link]
        }
        tree.anchorHeadings()
        let body = """
            <h1>\(HTMLPage.escape(title))</h1>
            <p class="abstract">\(HTMLPage.escape(abstract))</p>
            \(tree.rendered(.html))
            """
        return HTMLPage.page(
            title: title, navigation: HTMLPage.escape(module), body: body,
            footer: "In a terminal: <code>renderfarm docs \(name)</code> or <code>man \(manName)</code>.",
            version: version)
    }

    /// The article without its title and, unless `keepingAbstract`, its abstract (each page writes them
    /// itself). For text (a terminal, roff) its headings go one level up (`##` the page's first, in
    /// capitals, as manual pages write sections) and its tables become lists.
    private func bodyTree(forText: Bool, keepingAbstract: Bool = false) -> MarkdownTree {
        let tree = MarkdownTree(markdown)
        let blocks = tree.blocks
        if let heading = blocks.first(where: { MarkdownTree.kind($0) == "heading" }) {
            let rest = blocks.drop { $0 != heading }.dropFirst()
            if !keepingAbstract, let abstract = rest.first(where: { MarkdownTree.kind($0) == "paragraph" }) {
                MarkdownTree.remove(abstract)
            }
            MarkdownTree.remove(heading)
        }
        if forText {
            tree.promoteHeadings(capitals: true)
            tree.tablesAsLists()
        }
        return tree
    }
}

extension Manual {
    /// The index page of the HTML manual: every topic under its catalog, with its abstract.
    package static func htmlIndex(version: String) -> String {
        var body = "<h1>RenderFarm manual</h1>\n"
        for module in Manual.modules {
            body += "<h2>\(module)</h2>\n<dl>\n"
            for topic in topics where topic.module == module {
                body += "<dt><a href=\"\(topic.htmlFile)\">\(HTMLPage.escape(topic.title))</a></dt>\n"
                body += "<dd>\(HTMLPage.escape(topic.abstract))</dd>\n"
            }
            body += "</dl>\n"
        }
        return HTMLPage.page(
            title: "RenderFarm manual", navigation: nil, body: body,
            footer: "In a terminal: <code>renderfarm docs</code> lists the topics.", version: version)
    }
}

/// The frame of every page of the HTML manual: plain HTML and CSS, no script.
enum HTMLPage {
    static func page(title: String, navigation: String?, body: String, footer: String, version: String) -> String {
        let crumbs = navigation.map { " › \($0)" } ?? ""
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(escape(title)) — RenderFarm \(escape(version))</title>
            <style>
            body { font: 16px/1.5 system-ui, sans-serif; max-width: 52rem; margin: 0 auto; padding: 1rem 1.5rem; color: #1d1d1f; }
            nav, footer { font-size: 0.9rem; color: #555; }
            pre { background: #f4f4f6; padding: 0.75rem; overflow-x: auto; line-height: 1.35; }
            code { font-family: ui-monospace, monospace; font-size: 0.92em; }
            table { border-collapse: collapse; margin: 1rem 0; }
            th, td { border: 1px solid #ccc; padding: 0.3rem 0.6rem; vertical-align: top; text-align: left; }
            .abstract { font-size: 1.15rem; color: #333; }
            dd { margin: 0 0 0.8rem 1.5rem; }
            </style>
            </head>
            <body>
            <nav><a href="index.html">RenderFarm manual</a>\(crumbs)</nav>
            <main>
            \(body)
            </main>
            <footer>\(footer) renderfarm \(escape(version)).</footer>
            </body>
            </html>

            """
    }

    static func escape(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}

/// roff's escapes for text the manual writes itself (cmark escapes what it renders).
package enum Roff {
    /// Escapes roff: backslashes, hyphens (so they stay minus signs), characters beyond ASCII
    /// (as `\[u2026]`), and control characters at the start of a line.
    package static func escape(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": escaped += "\\e"
            case "-": escaped += "\\-"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        if escaped.hasPrefix(".") || escaped.hasPrefix("'") { escaped = "\\&" + escaped }
        return escapingBeyondASCII(escaped)
    }

    /// Roff with each character beyond ASCII written as its `\[uXXXX]` escape.
    static func escapingBeyondASCII(_ roff: String) -> String {
        guard roff.utf8.contains(where: { $0 > 0x7F }) else { return roff }
        var escaped = ""
        for scalar in roff.unicodeScalars {
            guard scalar.value > 0x7F else {
                escaped.unicodeScalars.append(scalar)
                continue
            }
            let hex = String(scalar.value, radix: 16, uppercase: true)
            escaped += "\\[u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + "]"
        }
        return escaped
    }
}
