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

    /// Draws the image scaled into the rectangle (x, y, width, height) of the current user space, with
    /// bilinear filtering; the context's state is restored afterwards. With `padEdges` the filter samples the
    /// edge pixels beyond the edges, so an enlarged image keeps hard edges; without it (item pictures) its
    /// outermost half pixel fades to transparent.
    public func draw(
        in context: DrawingContext, x: Double, y: Double, width boxWidth: Double, height boxHeight: Double,
        padEdges: Bool = false
    ) {
        guard boxWidth > 0, boxHeight > 0 else { return }
        try? withSurface { surface in
            let cr = context.pointer
            cairo_save(cr)
            cairo_translate(cr, x, y)
            cairo_scale(cr, boxWidth / Double(width), boxHeight / Double(height))
            cairo_set_source_surface(cr, surface, 0, 0)
            cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_BILINEAR)
            if padEdges { cairo_pattern_set_extend(cairo_get_source(cr), CAIRO_EXTEND_PAD) }
            cairo_rectangle(cr, 0, 0, Double(width), Double(height))
            cairo_fill(cr)
            // Restoring drops the pattern, and with it cairo's reference to the wrapper surface.
            cairo_restore(cr)
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
