import CCairo
import CPango
import EffectKit

/// How text is set, apart from the string: everything a Pango layout is built from.
struct TextStyle: Equatable, Sendable {
    enum Align: String, Sendable { case start, center, end }
    enum VerticalAlign: String, Sendable { case top, middle, bottom }
    enum Direction: String, Sendable { case auto, ltr, rtl }
    enum Slant: String, Sendable { case normal, italic, oblique }
    enum Fit: String, Sendable { case none, shrink }

    /// Comma-separated families, the first the job's (Pango font description syntax).
    var families: String
    var language: String
    var markup: Bool
    var size: Double
    var minSize: Double
    var weight: Int
    var slant: Slant
    var box: Rect
    var align: Align
    var verticalAlign: VerticalAlign
    var wrap: Bool
    var maxLines: Int
    var fit: Fit
    var lineHeight: Double
    var letterSpacing: Double
    var direction: Direction
    /// Points kept free inside the box on each side (half the stroke width), so an outline stays inside too.
    var inset: Double
    /// Whether layouts find their clusters (``TextLayout/clusters``): only text that animators or a path draw
    /// cluster by cluster needs them.
    var clusters = false
}

/// One string set in a box by Pango: built once, measured, and drawn at every frame that shows it.
///
/// `@unchecked Sendable`: the layout pointer is only used while ``PangoWorld/shared`` is locked.
final class TextLayout: @unchecked Sendable {
    private let layout: OpaquePointer
    /// The font size chosen (`fit: shrink` may choose less than the style's size), in points.
    let size: Double
    /// Where the layout's origin goes, in points.
    let origin: Point
    /// The layout's logical and ink rectangles, placed (in points).
    let logical: Rect
    let ink: Rect
    let lineCount: Int
    let ellipsized: Bool
    /// The characters no face of the setup has (drawn as boxes), in order, each once.
    let missingCharacters: [Unicode.Scalar]
    /// The files of every face the layout draws with, sorted.
    let fontFiles: [String]
    /// Whether the lines overflow the box even at `minSize` (`fit: shrink`; Pango then ellipsizes the last line
    /// that fits the box's height, and the drawing is clipped to the box).
    let overflows: Bool
    let box: Rect
    /// The grapheme clusters as set, in drawing order, placed (text animators and paths draw them one by one);
    /// none unless the style asks for them.
    let clusters: [TextCluster]
    /// Each cluster's glyphs, as Pango's walk gave them: pointers into the layout, valid while it lives.
    let clusterGlyphs: [rf_text_cluster]

    /// Sets `text`; call with ``PangoWorld/shared`` locked.
    init(text: String, style: TextStyle, fonts: FontSetup) throws(EffectError) {
        let inner = Rect(
            x: style.box.x + style.inset, y: style.box.y + style.inset,
            width: max(0, style.box.width - 2 * style.inset), height: max(0, style.box.height - 2 * style.inset))
        box = style.box
        var chosen = try Self.make(text: text, style: style, size: style.size, inner: inner, fonts: fonts)
        var squeezed = false
        if style.fit == .shrink, !chosen.fits {
            // The largest size on a quarter-point grid that fits, by bisection. Wrapped text is not always
            // smaller at a smaller size, so a size in between may fit that is not found; the one kept always fits.
            let quarters = { (size: Double) in Int((size * 4).rounded(.down)) }
            var (low, high) = (quarters(style.minSize), quarters(style.size))
            var best: Candidate?
            while low <= high {
                let middle = (low + high) / 2
                let candidate = try Self.make(
                    text: text, style: style, size: Double(middle) / 4, inner: inner, fonts: fonts)
                if candidate.fits {
                    best.map { rf_text_unref(UnsafeMutableRawPointer($0.layout)) }
                    best = candidate
                    low = middle + 1
                } else {
                    rf_text_unref(UnsafeMutableRawPointer(candidate.layout))
                    high = middle - 1
                }
            }
            rf_text_unref(UnsafeMutableRawPointer(chosen.layout))
            if let best {
                chosen = best
            } else {
                // Even minSize overflows: the box's height bounds the lines (Pango ellipsizes the last).
                chosen = try Self.make(
                    text: text, style: style, size: style.minSize, inner: inner, fonts: fonts, limitHeight: true)
                squeezed = !chosen.fits
            }
        }
        layout = chosen.layout
        size = chosen.size
        origin = chosen.origin
        logical = chosen.logical
        ink = chosen.ink
        overflows = squeezed
        lineCount = Int(pango_layout_get_line_count(chosen.layout))
        ellipsized = pango_layout_is_ellipsized(chosen.layout) != 0
        var missing: [Unicode.Scalar] = []
        withUnsafeMutablePointer(to: &missing) { pointer in
            _ = rf_text_layout_unknown_glyphs(chosen.layout, pointer) { user, codePoint in
                guard let user, let scalar = Unicode.Scalar(codePoint) else { return }
                let seen = user.assumingMemoryBound(to: [Unicode.Scalar].self)
                if !seen.pointee.contains(scalar) { seen.pointee.append(scalar) }
            }
        }
        missingCharacters = missing
        var files = Set<String>()
        withUnsafeMutablePointer(to: &files) { pointer in
            rf_text_layout_font_files(chosen.layout, pointer) { user, file in
                guard let user, let file else { return }
                user.assumingMemoryBound(to: Set<String>.self).pointee.insert(String(cString: file))
            }
        }
        fontFiles = files.map(fonts.original).sorted()
        (clusters, clusterGlyphs) = style.clusters ? Self.clusters(of: chosen.layout, origin: chosen.origin) : ([], [])
    }

    deinit { PangoWorld.releasing { rf_text_unref(UnsafeMutableRawPointer(layout)) } }

    /// The layout's outline as the current path of `cr` (for strokes and shadows). Takes ``PangoWorld/shared``
    /// for Pango's call: call without it.
    func appendPath(to cr: OpaquePointer, offset: Point = Point(0, 0)) {
        cairo_move_to(cr, origin.x + offset.x, origin.y + offset.y)
        PangoWorld.shared.withLock { _ in pango_cairo_layout_path(cr, layout) }
    }

    /// Draws the glyphs (colour glyphs in their own colours) with the current source. Takes
    /// ``PangoWorld/shared`` for Pango's call: call without it.
    func show(on cr: OpaquePointer) {
        cairo_move_to(cr, origin.x, origin.y)
        PangoWorld.shared.withLock { _ in pango_cairo_show_layout(cr, layout) }
    }

    /// Where the character at `byteIndex` (UTF-8) of the text is set, placed, in points (Pango's
    /// `index_to_pos`); call with ``PangoWorld/shared`` locked, or on a layout no other thread draws.
    func characterBox(byteIndex: Int) -> Rect {
        var rect = PangoRectangle()
        pango_layout_index_to_pos(layout, Int32(byteIndex), &rect)
        let box = Rect(pango: rect)
        // A right-to-left character's rectangle has a negative width.
        return Rect(
            x: origin.x + min(box.x, box.x + box.width), y: origin.y + box.y, width: abs(box.width),
            height: box.height)
    }

    private struct Candidate {
        let layout: OpaquePointer
        let size: Double
        let origin: Point
        let logical: Rect
        let ink: Rect
        let fits: Bool
    }

    private static func make(
        text: String, style: TextStyle, size: Double, inner: Rect, fonts: FontSetup, limitHeight: Bool = false
    ) throws(EffectError) -> Candidate {
        let context = try fonts.context(language: style.language, rightToLeft: style.direction == .rtl)
        let language = pango_context_get_language(context)
        guard let layout = pango_layout_new(context) else { throw EffectError("Pango could not create a layout") }
        var keep = false
        defer { if !keep { rf_text_unref(UnsafeMutableRawPointer(layout)) } }
        pango_layout_set_auto_dir(layout, style.direction == .auto ? 1 : 0)

        let description = pango_font_description_new()
        defer { pango_font_description_free(description) }
        pango_font_description_set_family(description, style.families)
        pango_font_description_set_size(description, Int32((size * Double(PANGO_SCALE)).rounded()))
        pango_font_description_set_weight(description, PangoWeight(rawValue: UInt32(style.weight)))
        pango_font_description_set_style(description, style.slant.pango)
        pango_layout_set_font_description(layout, description)

        if style.markup {
            var error: UnsafeMutablePointer<GError>?
            var attributes: OpaquePointer?
            var plain: UnsafeMutablePointer<CChar>?
            guard pango_parse_markup(text, -1, 0, &attributes, &plain, nil, &error) != 0 else {
                let message = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
                error.map { g_error_free($0) }
                throw EffectError(parameter: "text", "is not valid Pango markup: \(message)")
            }
            pango_layout_set_text(layout, plain, -1)
            g_free(plain)
            Self.addCommonAttributes(to: attributes, style: style, language: language)
            pango_layout_set_attributes(layout, attributes)
            pango_attr_list_unref(attributes)
        } else {
            pango_layout_set_text(layout, text, -1)
            let attributes = pango_attr_list_new()
            Self.addCommonAttributes(to: attributes, style: style, language: language)
            pango_layout_set_attributes(layout, attributes)
            pango_attr_list_unref(attributes)
        }
        if style.lineHeight > 0 { pango_layout_set_line_spacing(layout, Float(style.lineHeight)) }

        let width = Int32(min(Double(Int32.max / 2), (inner.width * Double(PANGO_SCALE)).rounded(.down)))
        if style.wrap {
            pango_layout_set_width(layout, width)
            pango_layout_set_wrap(layout, PANGO_WRAP_WORD_CHAR)
        }
        if style.maxLines > 0 || limitHeight {
            pango_layout_set_width(layout, width)
            pango_layout_set_ellipsize(layout, PANGO_ELLIPSIZE_END)
            if limitHeight {
                let height = Int32(min(Double(Int32.max / 2), (inner.height * Double(PANGO_SCALE)).rounded(.down)))
                pango_layout_set_height(layout, max(height, 1))
            } else if style.wrap {
                pango_layout_set_height(layout, Int32(-style.maxLines))
            }
        }
        let widthSet = pango_layout_get_width(layout) >= 0
        pango_layout_set_alignment(layout, style.pangoAlignment)

        var inkRect = PangoRectangle()
        var logicalRect = PangoRectangle()
        pango_layout_get_extents(layout, &inkRect, &logicalRect)
        let logical = Rect(pango: logicalRect)
        let ink = Rect(pango: inkRect)
        // With a width, Pango aligns the lines inside it; without one, the box's alignment is applied here.
        var x = inner.x
        if !widthSet {
            let free = inner.width - logical.width
            let start = style.direction == .rtl ? 1.0 : 0.0
            let share: Double =
                switch style.align {
                case .start: start
                case .center: 0.5
                case .end: 1 - start
                }
            x = inner.x + free * share - logical.x
        }
        let factor: Double =
            switch style.verticalAlign {
            case .top: 0
            case .middle: 0.5
            case .bottom: 1
            }
        var y = inner.y + (inner.height - logical.height) * factor - logical.y
        if style.fit == .shrink {
            // A glyph's ink may stand out of its line (the hook of a "j", an italic's overhang): moved in by what
            // stands out, when the ink is narrower than the box, it fits instead of shrinking to the least size.
            (x, y) = (
                x + Self.inward(ink.x + x, ink.width, inner.x, inner.width),
                y + Self.inward(ink.y + y, ink.height, inner.y, inner.height)
            )
        }
        let placedLogical = logical.offset(x, y)
        let placedInk = ink.offset(x, y)
        let fits = inner.contains(placedLogical) && (ink.width == 0 || inner.contains(placedInk))
        keep = true
        return Candidate(
            layout: layout, size: size, origin: Point(x, y), logical: placedLogical, ink: placedInk,
            fits: fits)
    }

    /// How far to move ink from `start` of `length` to lie within the box side from `low` of `size`: 0 when it
    /// does, or when it is longer than the side.
    private static func inward(_ start: Double, _ length: Double, _ low: Double, _ size: Double) -> Double {
        guard length > 0, length <= size else { return 0 }
        if start < low { return low - start }
        if start + length > low + size { return low + size - (start + length) }
        return 0
    }

    /// The job's language and letter spacing over the whole text (markup spans may override them).
    private static func addCommonAttributes(
        to list: OpaquePointer?, style: TextStyle, language: OpaquePointer?
    ) {
        pango_attr_list_insert_before(list, pango_attr_language_new(language))
        if style.letterSpacing != 0 {
            let spacing = Int32((style.letterSpacing * Double(PANGO_SCALE)).rounded())
            pango_attr_list_insert_before(list, pango_attr_letter_spacing_new(spacing))
        }
        // Font fallback is always on; Pango's default, made explicit so no environment can change it.
        pango_attr_list_insert_before(list, pango_attr_fallback_new(1))
    }
}

extension TextStyle {
    /// Pango's alignment for `align`: with `direction: auto` Pango itself swaps left and right in
    /// right-to-left paragraphs; with a fixed direction the swap is done here.
    var pangoAlignment: PangoAlignment {
        switch (align, direction) {
        case (.center, _): PANGO_ALIGN_CENTER
        case (.start, .rtl): PANGO_ALIGN_RIGHT
        case (.end, .rtl): PANGO_ALIGN_LEFT
        case (.start, _): PANGO_ALIGN_LEFT
        case (.end, _): PANGO_ALIGN_RIGHT
        }
    }
}

extension TextStyle.Slant {
    var pango: PangoStyle {
        switch self {
        case .normal: PANGO_STYLE_NORMAL
        case .italic: PANGO_STYLE_ITALIC
        case .oblique: PANGO_STYLE_OBLIQUE
        }
    }
}

extension Rect {
    /// A Pango rectangle (in Pango units) in points.
    init(pango rect: PangoRectangle) {
        let scale = Double(PANGO_SCALE)
        self.init(
            x: Double(rect.x) / scale, y: Double(rect.y) / scale, width: Double(rect.width) / scale,
            height: Double(rect.height) / scale)
    }

    func offset(_ dx: Double, _ dy: Double) -> Rect { Rect(x: x + dx, y: y + dy, width: width, height: height) }

    /// The rectangle grown by `amount` on every side.
    func grown(by amount: Double) -> Rect {
        Rect(x: x - amount, y: y - amount, width: width + 2 * amount, height: height + 2 * amount)
    }

    /// Whether `other` lies inside (a thousandth of a point of rounding allowed).
    func contains(_ other: Rect) -> Bool {
        let slack = 0.001
        return other.x >= x - slack && other.y >= y - slack && other.x + other.width <= x + width + slack
            && other.y + other.height <= y + height + slack
    }
}
