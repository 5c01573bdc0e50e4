import CCairo

/// A decoded image: immutable premultiplied ARGB32 pixels that any number of threads may draw from.
///
/// Why this is `@unchecked Sendable`: the pixels belong to an `ImageSurface` that nothing draws on after
/// `init`; drawing wraps them in a fresh cairo surface per call (`cairo_image_surface_create_for_data`, no
/// copy), so no cairo object is shared between threads. (Sharing one `cairo_surface_t` as a source is not
/// enough: cairo may take non-atomic pixman references to it while compositing.)
public final class SharedImage: @unchecked Sendable {
    public let width: Int
    public let height: Int
    private let stride: Int
    /// Owns the pixels; only read after `init`.
    private let surface: ImageSurface
    private let pixels: UnsafeMutablePointer<UInt8>

    /// Takes `surface` over: nothing may draw on it afterwards.
    public init(_ surface: ImageSurface) {
        surface.flush()
        self.surface = surface
        width = surface.width
        height = surface.height
        stride = surface.stride
        pixels = surface.bytes
    }

    /// Loads a PNG file (see `ImageSurface.init(contentsOfPNG:limits:followLastLink:)`).
    public convenience init(contentsOfPNG path: String, limits: ImageLimits = .surface, followLastLink: Bool = true)
        throws(ImageFileError)
    {
        self.init(try ImageSurface(contentsOfPNG: path, limits: limits, followLastLink: followLastLink))
    }

    /// Bytes of pixel memory the image holds.
    public var byteCount: Int { stride * height }

    /// The image resampled once to `width` × `height` pixels (cairo's GOOD filter: box-filtered when
    /// shrinking), for drawing at that size without touching the larger original again.
    public func scaled(width newWidth: Int, height newHeight: Int) throws(CairoError) -> SharedImage {
        let target = try ImageSurface(width: newWidth, height: newHeight)
        let context = try DrawingContext(surface: target)
        try withExtendedLifetime(context) { () throws(CairoError) in
            let cr = context.pointer
            cairo_scale(cr, Double(newWidth) / Double(width), Double(newHeight) / Double(height))
            try withSurface { source in
                cairo_set_source_surface(cr, source, 0, 0)
                cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_GOOD)
                cairo_pattern_set_extend(cairo_get_source(cr), CAIRO_EXTEND_PAD)
                cairo_paint(cr)
                cairo_set_source_rgba(cr, 0, 0, 0, 0)
            }
            try context.checkStatus("scaling a \(width)×\(height) image to \(newWidth)×\(newHeight)")
        }
        return SharedImage(target)
    }

    /// A copy with each colour channel multiplied by `red`, `green` and `blue` out of 255 (alpha kept): the
    /// picture tinted as Core Animation tints a particle's contents by its colour. Premultiplied channels stay
    /// at most the alpha, so the copy is valid cairo data.
    public func multiplied(red: UInt32, green: UInt32, blue: UInt32) throws(CairoError) -> SharedImage {
        let target = try ImageSurface(width: width, height: height)
        target.flush()
        let factors = (min(red, 255), min(green, 255), min(blue, 255))
        for row in 0..<height {
            let from = UnsafeRawPointer(pixels + row * stride).assumingMemoryBound(to: UInt32.self)
            let to = UnsafeMutableRawPointer(target.bytes + row * target.stride).assumingMemoryBound(to: UInt32.self)
            for column in 0..<width {
                let pixel = from[column]
                // (c × f + 127) / 255, rounded: the product of two 8-bit fractions as an 8-bit fraction.
                func scaled(_ shift: UInt32, _ factor: UInt32) -> UInt32 {
                    ((((pixel >> shift) & 0xFF) * factor + 127) / 255) << shift
                }
                to[column] = pixel & 0xFF00_0000 | scaled(16, factors.0) | scaled(8, factors.1) | scaled(0, factors.2)
            }
        }
        target.markDirty()
        return SharedImage(target)
    }

    /// Draws the image scaled into the rectangle (x, y, width, height) of the current user space, with
    /// bilinear filtering, at `alpha` opacity; the context's state is restored afterwards. With `padEdges` the filter samples the
    /// edge pixels beyond the edges, so an enlarged image keeps hard edges; without it (item pictures) its
    /// outermost half pixel fades to transparent.
    public func draw(
        in context: DrawingContext, x: Double, y: Double, width boxWidth: Double, height boxHeight: Double,
        padEdges: Bool = false, alpha: Double = 1
    ) {
        guard boxWidth > 0, boxHeight > 0, alpha > 0 else { return }
        try? withSurface { surface in
            let cr = context.pointer
            cairo_save(cr)
            cairo_translate(cr, x, y)
            cairo_scale(cr, boxWidth / Double(width), boxHeight / Double(height))
            cairo_set_source_surface(cr, surface, 0, 0)
            cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_BILINEAR)
            if padEdges { cairo_pattern_set_extend(cairo_get_source(cr), CAIRO_EXTEND_PAD) }
            cairo_rectangle(cr, 0, 0, Double(width), Double(height))
            if alpha < 1 {
                cairo_clip(cr)
                cairo_paint_with_alpha(cr, alpha)
            } else {
                cairo_fill(cr)
            }
            // Restoring drops the pattern, and with it cairo's reference to the wrapper surface.
            cairo_restore(cr)
        }
    }

    /// Paints the context's current source through the image's alpha, scaled into the rectangle (x, y, width,
    /// height) of the current user space with bilinear filtering: a white sprite drawn in any colour.
    public func mask(in context: DrawingContext, x: Double, y: Double, width boxWidth: Double, height boxHeight: Double)
    {
        guard boxWidth > 0, boxHeight > 0 else { return }
        try? withSurface { surface in
            let cr = context.pointer
            let pattern = cairo_pattern_create_for_surface(surface)
            var matrix = cairo_matrix_t()
            // The pattern's matrix maps user space to the image's pixels.
            cairo_matrix_init_scale(&matrix, Double(width) / boxWidth, Double(height) / boxHeight)
            cairo_matrix_translate(&matrix, -x, -y)
            cairo_pattern_set_matrix(pattern, &matrix)
            cairo_pattern_set_filter(pattern, CAIRO_FILTER_BILINEAR)
            cairo_mask(cr, pattern)
            cairo_pattern_destroy(pattern)
        }
    }

    /// Calls `body` with a fresh cairo surface over the shared pixels, destroyed afterwards; `body` must
    /// drop every reference cairo holds to it (reset the source) before returning.
    private func withSurface(_ body: (OpaquePointer) -> Void) throws(CairoError) {
        guard width > 0, height > 0,
            let wrapper = cairo_image_surface_create_for_data(
                pixels, CAIRO_FORMAT_ARGB32, Int32(width), Int32(height), Int32(stride))
        else { throw CairoError(CAIRO_STATUS_NO_MEMORY, "wrapping a \(width)×\(height) image") }
        defer { cairo_surface_destroy(wrapper) }
        try CairoError.check(cairo_surface_status(wrapper), "wrapping a \(width)×\(height) image")
        body(wrapper)
    }
}
