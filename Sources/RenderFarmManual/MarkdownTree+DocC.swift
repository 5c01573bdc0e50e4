import CMarkGFM

/// What DocC reads specially in an article, reshaped into plain CommonMark for cmark's renderers.
extension MarkdownTree {
    /// The document's nodes of one kind, collected before any of them is changed or freed.
    func nodes(_ kind: String) -> [OpaquePointer] { Self.descendants(of: root).filter { Self.kind($0) == kind } }

    /// Each `<doc:Article>` link (CommonMark reads it as a link to `doc:Article`) becomes the nodes
    /// `replacement` gives for the article's topic (nil when no topic has that article) and its name.
    func replaceArticleLinks(_ replacement: (ManualTopic?, String) -> [OpaquePointer]) {
        for node in nodes("link") {
            let url = Self.url(node)
            guard url.hasPrefix("doc:") else { continue }
            let article = String(url.dropFirst(4).prefix { $0 != "#" })
            Self.replace(node, with: replacement(Manual.topic(article: article), article))
        }
    }

    /// Every other link as its text followed by its address in brackets, for outputs that cannot
    /// follow a link (the address alone when it is the text).
    func spellOutLinks() {
        for node in nodes("link") {
            let url = Self.url(node)
            let label = Self.plainText(node)
            let children = Self.children(of: node)
            Self.replace(node, with: label == url ? children : children + [Self.text(" (\(url))")])
        }
    }

    /// Code blocks indented, so that they stand apart from the text around them in plain text.
    func indentCode(by spaces: Int) {
        let indent = String(repeating: " ", count: spaces)
        for node in nodes("code_block") {
            let lines = Self.literal(node).split(separator: "\n", omittingEmptySubsequences: false)
            let indented = lines.map { $0.isEmpty ? "" : indent + $0 }.joined(separator: "\n")
            cmark_node_set_literal(node, indented)
        }
    }

    /// Headings one level up (the article's `##` becomes the page's first level), the first level in
    /// capitals when `capitals` (as manual pages write section names).
    func promoteHeadings(capitals: Bool) {
        for node in nodes("heading") {
            let level = max(1, Int(cmark_node_get_heading_level(node)) - 1)
            cmark_node_set_heading_level(node, Int32(level))
            guard capitals, level == 1 else { continue }
            for part in Self.descendants(of: node) where ["text", "code"].contains(Self.kind(part)) {
                cmark_node_set_literal(part, Self.literal(part).uppercased())
            }
        }
    }

    /// Each heading given an anchor (`id`) made of its words, for links to a section of a page.
    func anchorHeadings() {
        for node in nodes("heading") {
            let words = Self.plainText(node).lowercased().split { !$0.isLetter && !$0.isNumber }
            let anchor = cmark_node_new(CMARK_NODE_HTML_INLINE)!
            cmark_node_set_literal(anchor, "<a id=\"\(words.joined(separator: "-"))\"></a>")
            cmark_node_prepend_child(node, anchor)
        }
    }

    /// A block's inline children, ready to move out of it: cmark's text nodes read their characters from
    /// their block's buffer, so each is given a copy of its own before the block is freed.
    static func movedChildren(of block: OpaquePointer) -> [OpaquePointer] {
        let children = Self.children(of: block)
        for child in children {
            for part in descendants(of: child) where ["text", "code", "html_inline"].contains(kind(part)) {
                cmark_node_set_literal(part, literal(part))
            }
        }
        return children
    }

    /// Each table as a list for outputs without tables (a terminal, roff): an item per row, its first
    /// cell in bold after its column's header, then every other cell that says something, after its own
    /// ("parameter **size** — type: number; default: 36").
    func tablesAsLists() {
        for table in nodes("table") {
            let rows = Self.children(of: table)
            guard let header = rows.first else { continue }
            let headings = Self.children(of: header).map(Self.plainText)
            let items = rows.dropFirst().map { row -> OpaquePointer in
                let cells = Self.children(of: row)
                var parts: [OpaquePointer] = []
                if let first = cells.first {
                    if let heading = headings.first, !heading.isEmpty { parts.append(Self.text("\(heading) ")) }
                    parts.append(Self.node(CMARK_NODE_STRONG, Self.movedChildren(of: first)))
                }
                let said = zip(headings.dropFirst(), cells.dropFirst()).filter { !Self.plainText($1).isEmpty }
                for (index, (heading, cell)) in said.enumerated() {
                    parts.append(Self.text(index == 0 ? " — \(heading): " : "; \(heading): "))
                    parts += Self.movedChildren(of: cell)
                }
                return Self.node(CMARK_NODE_ITEM, [Self.node(CMARK_NODE_PARAGRAPH, parts)])
            }
            let list = Self.node(CMARK_NODE_LIST, items)
            cmark_node_set_list_type(list, CMARK_BULLET_LIST)
            cmark_node_set_list_tight(list, 1)
            Self.replace(table, with: [list])
        }
    }
}
