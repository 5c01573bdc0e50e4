import CCairo

/// Labels with cairo's "toy" text API: enough for captions on previews, not for typesetting.
extension DrawingContext {
    /// Selects a font by family name (e.g. "sans-serif", "monospace").
    public func selectFont(family: String, bold: Bool = false) {
        cairo_select_font_face(
            pointer, family, CAIRO_FONT_SLANT_NORMAL,
            bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL)
    }

    public func setFontSize(_ size: Double) { cairo_set_font_size(pointer, size) }

    /// How far `text` advances the current point, in user units.
    public func textWidth(_ text: String) -> Double {
        var extents = cairo_text_extents_t()
        cairo_text_extents(pointer, text, &extents)
        return extents.x_advance
    }

    /// Draws `text` with its baseline starting at the current point.
    public func showText(_ text: String) { cairo_show_text(pointer, text) }

    /// Dashes for the following strokes; an empty list draws solid lines again.
    public func setDash(_ lengths: [Double]) {
        cairo_set_dash(pointer, lengths, Int32(lengths.count), 0)
    }

    /// Uses a surface as the source, scaled by `scale` about its origin placed at (x, y), with
    /// cairo's good-quality filter (box-filtered when shrinking).
    public func setSource(_ surface: ImageSurface, x: Double, y: Double, scale: Double) {
        guard let pattern = cairo_pattern_create_for_surface(surface.pointer) else { return }
        // The pattern matrix maps user space to the surface: subtract the origin, then unscale.
        var matrix = cairo_matrix_t()
        cairo_matrix_init_scale(&matrix, 1 / scale, 1 / scale)
        cairo_matrix_translate(&matrix, -x, -y)
        cairo_pattern_set_matrix(pattern, &matrix)
        cairo_pattern_set_filter(pattern, CAIRO_FILTER_GOOD)
        cairo_set_source(pointer, pattern)
        cairo_pattern_destroy(pattern)
    }
}
