import CCairo

/// A cairo drawing context (`cairo_t`), owned or borrowed from the host.
///
/// Not `Sendable`: one context per frame per thread.
public final class DrawingContext {
    /// The underlying `cairo_t *`.
    public let pointer: OpaquePointer
    private let owned: Bool
    private let surface: ImageSurface?

    /// Creates a context that draws on `surface` and keeps it alive.
    public init(surface: ImageSurface) throws(CairoError) {
        guard let cr = cairo_create(surface.pointer) else {
            throw CairoError(CAIRO_STATUS_NO_MEMORY, "creating a context")
        }
        let status = cairo_status(cr)
        guard status == CAIRO_STATUS_SUCCESS else {
            cairo_destroy(cr)
            throw CairoError(status, "creating a context")
        }
        pointer = cr
        owned = true
        self.surface = surface
    }

    /// Wraps a context someone else owns (a plugin's `render` argument); never destroys it.
    public init(borrowing cr: OpaquePointer) {
        pointer = cr
        owned = false
        surface = nil
    }

    deinit {
        if owned { cairo_destroy(pointer) }
    }

    /// Throws when the context has entered an error state.
    public func checkStatus(_ operation: @autoclosure () -> String) throws(CairoError) {
        try CairoError.check(cairo_status(pointer), operation())
    }

    // MARK: State

    public func save() { cairo_save(pointer) }
    public func restore() { cairo_restore(pointer) }
    public func translate(_ x: Double, _ y: Double) { cairo_translate(pointer, x, y) }
    public func scale(_ x: Double, _ y: Double) { cairo_scale(pointer, x, y) }
    public func rotate(_ radians: Double) { cairo_rotate(pointer, radians) }

    /// Runs `body` between `save()` and `restore()`.
    public func withSavedState<T>(_ body: () throws -> T) rethrows -> T {
        save()
        defer { restore() }
        return try body()
    }

    public func setSource(_ color: Color) {
        cairo_set_source_rgba(pointer, color.red, color.green, color.blue, color.alpha)
    }

    /// Uses a surface as the source, its origin placed at (x, y).
    public func setSource(_ surface: ImageSurface, x: Double, y: Double) {
        cairo_set_source_surface(pointer, surface.pointer, x, y)
    }

    public func setLineWidth(_ width: Double) { cairo_set_line_width(pointer, width) }

    public enum LineCap { case butt, round, square }
    public enum LineJoin { case miter, round, bevel }

    public func setLineCap(_ cap: LineCap) {
        let value: cairo_line_cap_t =
            switch cap {
            case .butt: CAIRO_LINE_CAP_BUTT
            case .round: CAIRO_LINE_CAP_ROUND
            case .square: CAIRO_LINE_CAP_SQUARE
            }
        cairo_set_line_cap(pointer, value)
    }

    public func setLineJoin(_ join: LineJoin) {
        let value: cairo_line_join_t =
            switch join {
            case .miter: CAIRO_LINE_JOIN_MITER
            case .round: CAIRO_LINE_JOIN_ROUND
            case .bevel: CAIRO_LINE_JOIN_BEVEL
            }
        cairo_set_line_join(pointer, value)
    }

    /// Replaces instead of blending (for clearing to a background).
    public func setOperatorSource() { cairo_set_operator(pointer, CAIRO_OPERATOR_SOURCE) }
    public func setOperatorOver() { cairo_set_operator(pointer, CAIRO_OPERATOR_OVER) }

    /// Clears what the target holds outside the rectangle (`x`, `y`, `width`, `height`, in user space), pixels on
    /// its edges by the part of them outside it: as a clip to the rectangle would have kept it, but leaving how
    /// anything was drawn as it was. The pixels inside are not touched (cairo's CLEAR is bounded by its coverage).
    public func clearOutside(x: Double, y: Double, width: Double, height: Double) {
        cairo_save(pointer)
        cairo_new_path(pointer)
        cairo_rectangle(pointer, x, y, width, height)
        let size = targetSize
        cairo_identity_matrix(pointer)
        cairo_rectangle(pointer, 0, 0, Double(size.width), Double(size.height))
        cairo_set_fill_rule(pointer, CAIRO_FILL_RULE_EVEN_ODD)
        cairo_set_operator(pointer, CAIRO_OPERATOR_CLEAR)
        cairo_fill(pointer)
        cairo_restore(pointer)
    }

    // MARK: Paths

    public func newPath() { cairo_new_path(pointer) }
    public func move(to x: Double, _ y: Double) { cairo_move_to(pointer, x, y) }
    public func line(to x: Double, _ y: Double) { cairo_line_to(pointer, x, y) }
    public func curve(
        to x: Double, _ y: Double, control1 c1x: Double, _ c1y: Double, control2 c2x: Double, _ c2y: Double
    ) {
        cairo_curve_to(pointer, c1x, c1y, c2x, c2y, x, y)
    }

    /// A quadratic Bezier from the current point, elevated to the cubic cairo draws.
    public func quadCurve(to x: Double, _ y: Double, control cx: Double, _ cy: Double) {
        var x0 = 0.0
        var y0 = 0.0
        cairo_get_current_point(pointer, &x0, &y0)
        cairo_curve_to(
            pointer,
            x0 + 2.0 / 3.0 * (cx - x0), y0 + 2.0 / 3.0 * (cy - y0),
            x + 2.0 / 3.0 * (cx - x), y + 2.0 / 3.0 * (cy - y),
            x, y
        )
    }

    /// An arc with angles increasing clockwise on screen (y down), like `cairo_arc`.
    public func arc(centerX: Double, centerY: Double, radius: Double, from start: Double, to end: Double) {
        cairo_arc(pointer, centerX, centerY, radius, start, end)
    }

    public func rectangle(x: Double, y: Double, width: Double, height: Double) {
        cairo_rectangle(pointer, x, y, width, height)
    }

    public func closePath() { cairo_close_path(pointer) }

    // MARK: Painting

    public func fill() { cairo_fill(pointer) }
    public func fillPreserve() { cairo_fill_preserve(pointer) }
    public func stroke() { cairo_stroke(pointer) }
    public func strokePreserve() { cairo_stroke_preserve(pointer) }
    public func clip() { cairo_clip(pointer) }
    public func paint() { cairo_paint(pointer) }
    public func paint(alpha: Double) { cairo_paint_with_alpha(pointer, alpha) }

    /// Draws into an offscreen group; `popGroup(alpha:)` composites it with one opacity, the way a
    /// Core Animation layer's opacity applies to the whole layer, stroke and fill together.
    public func pushGroup() { cairo_push_group(pointer) }

    /// Clips to the whole device pixels under the user-space rectangle (x, y, width, height), `margin` pixels
    /// more on each side. A group pushed after it is only that large (cairo sizes it to the clip), and,
    /// the clip being whole pixels, everything drawn inside the rectangle gets exactly the pixels it gets
    /// without the clip; only a gradient source, which pixman steps from the group's own first pixel, may
    /// land one level apart. The current path is discarded.
    public func clipToPixels(x: Double, y: Double, width: Double, height: Double, margin: Int) {
        var left = Double.infinity
        var top = Double.infinity
        var right = -Double.infinity
        var bottom = -Double.infinity
        for (cornerX, cornerY) in [(x, y), (x + width, y), (x, y + height), (x + width, y + height)] {
            var (deviceX, deviceY) = (cornerX, cornerY)
            cairo_user_to_device(pointer, &deviceX, &deviceY)
            (left, right) = (min(left, deviceX), max(right, deviceX))
            (top, bottom) = (min(top, deviceY), max(bottom, deviceY))
        }
        guard left.isFinite, top.isFinite, right.isFinite, bottom.isFinite else { return }
        let grown = Double(margin)
        var matrix = cairo_matrix_t()
        cairo_get_matrix(pointer, &matrix)
        cairo_identity_matrix(pointer)
        cairo_new_path(pointer)
        let (minX, minY) = ((left - grown).rounded(.down), (top - grown).rounded(.down))
        cairo_rectangle(
            pointer, minX, minY, (right + grown).rounded(.up) - minX, (bottom + grown).rounded(.up) - minY)
        cairo_clip(pointer)
        cairo_set_matrix(pointer, &matrix)
    }

    public func popGroup(alpha: Double) {
        cairo_pop_group_to_source(pointer)
        cairo_paint_with_alpha(pointer, alpha)
    }
}
