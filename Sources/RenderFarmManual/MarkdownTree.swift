import CMarkGFM
import Foundation

/// One Markdown document parsed by cmark-gfm (CommonMark with GitHub's tables), to be reshaped for one
/// output and written by cmark's own renderers. A tree is changed in place, so each output parses its own.
final class MarkdownTree {
    private let parser: OpaquePointer
    let root: OpaquePointer

    init(_ markdown: String) {
        cmark_gfm_core_extensions_ensure_registered()
        let parser = cmark_parser_new(CMARK_OPT_DEFAULT)!
        if let table = cmark_find_syntax_extension("table") { cmark_parser_attach_syntax_extension(parser, table) }
        var text = markdown
        text.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { cmark_parser_feed(parser, $0.baseAddress, $0.count) }
        }
        self.parser = parser
        root = cmark_parser_finish(parser)!
    }

    deinit {
        cmark_node_free(root)
        cmark_parser_free(parser)
    }

    // MARK: Reading

    /// The root's children, in order.
    var blocks: [OpaquePointer] { Self.children(of: root) }

    static func children(of node: OpaquePointer) -> [OpaquePointer] {
        var children: [OpaquePointer] = []
        var child = cmark_node_first_child(node)
        while let current = child {
            children.append(current)
            child = cmark_node_next(current)
        }
        return children
    }

    /// Every node under `node` (itself included), in document order, collected before any is changed.
    static func descendants(of node: OpaquePointer) -> [OpaquePointer] {
        var nodes: [OpaquePointer] = []
        let iterator = cmark_iter_new(node)
        defer { cmark_iter_free(iterator) }
        while cmark_iter_next(iterator) != CMARK_EVENT_DONE {
            if cmark_iter_get_event_type(iterator) == CMARK_EVENT_ENTER, let current = cmark_iter_get_node(iterator) {
                nodes.append(current)
            }
        }
        return nodes
    }

    /// cmark's name of a node's type: "heading", "link", "table", "table_row", ….
    static func kind(_ node: OpaquePointer) -> String {
        cmark_node_get_type_string(node).map { String(cString: $0) } ?? ""
    }

    /// The words a reader sees in `node`: its text and code, a break as a space.
    static func plainText(_ node: OpaquePointer) -> String {
        descendants(of: node).map { part -> String in
            switch kind(part) {
            case "text", "code": literal(part)
            case "softbreak", "linebreak": " "
            default: ""
            }
        }.joined()
    }

    static func literal(_ node: OpaquePointer) -> String {
        cmark_node_get_literal(node).map { String(cString: $0) } ?? ""
    }

    static func url(_ node: OpaquePointer) -> String {
        cmark_node_get_url(node).map { String(cString: $0) } ?? ""
    }

    // MARK: Changing

    /// A new text node reading `text` (not yet in any tree).
    static func text(_ text: String) -> OpaquePointer {
        let node = cmark_node_new(CMARK_NODE_TEXT)!
        cmark_node_set_literal(node, text)
        return node
    }

    /// A new node of `type` holding `children` (moved from wherever they were).
    static func node(_ type: cmark_node_type, _ children: [OpaquePointer]) -> OpaquePointer {
        let node = cmark_node_new(type)!
        for child in children { cmark_node_append_child(node, child) }
        return node
    }

    /// Puts `replacements` where `node` was, and frees `node` with what is left in it.
    static func replace(_ node: OpaquePointer, with replacements: [OpaquePointer]) {
        for replacement in replacements { cmark_node_insert_before(node, replacement) }
        cmark_node_free(node)
    }

    /// Removes `node` from its tree and frees it.
    static func remove(_ node: OpaquePointer) { cmark_node_free(node) }

    // MARK: Writing

    enum Format {
        /// Plain text wrapped at a width (0: unwrapped).
        case text(width: Int)
        /// roff with the man macros, the page's body only.
        case man
        /// HTML, the page's body only.
        case html
    }

    /// The document written by cmark's renderer for `format`.
    func rendered(_ format: Format) -> String {
        // Raw HTML only reaches the page when the manual put it there itself (heading anchors).
        let written: UnsafeMutablePointer<CChar>? =
            switch format {
            case .text(let width): cmark_render_plaintext(root, CMARK_OPT_DEFAULT, Int32(clamping: width))
            case .man: cmark_render_man(root, CMARK_OPT_DEFAULT, 0)
            case .html: cmark_render_html(root, CMARK_OPT_UNSAFE, cmark_parser_get_syntax_extensions(parser))
            }
        guard let written else { return "" }
        defer { free(written) }
        return String(cString: written)
    }
}
