import CCairo
import Foundation

/// A PNG decoded once into immutable premultiplied ARGB32 pixels that any number of threads may draw from.
///
/// Why this is `@unchecked Sendable`: the pixels are written once, in `init`, and never again; drawing
/// wraps them in a fresh cairo surface per call (`cairo_image_surface_create_for_data`, no copy), so no
/// cairo object is shared between threads. (Sharing one `cairo_surface_t` as a source is not enough:
/// cairo may take non-atomic pixman references to it while compositing.)
public final class SharedImage: @unchecked Sendable {
    public let width: Int
    public let height: Int
    private let stride: Int
    private let pixels: UnsafeMutableRawPointer

    /// Loads a PNG file with cairo.
    public init(contentsOfPNG path: String) throws(CairoError) {
        let surface = try ImageSurface(contentsOfPNG: path)
        surface.flush()
        width = surface.width
        height = surface.height
        stride = surface.stride
        let count = max(1, stride * height)
        pixels = UnsafeMutableRawPointer.allocate(byteCount: count, alignment: 16)
        pixels.copyMemory(from: surface.bytes, byteCount: stride * height)
    }

    deinit { pixels.deallocate() }

    /// Draws the image scaled into the rectangle (x, y, width, height) of the current user space, with
    /// bilinear filtering; the context's state is restored afterwards.
    public func draw(in context: DrawingContext, x: Double, y: Double, width boxWidth: Double, height boxHeight: Double)
    {
        guard width > 0, height > 0, boxWidth > 0, boxHeight > 0,
            let surface = cairo_image_surface_create_for_data(
                pixels.assumingMemoryBound(to: UInt8.self), CAIRO_FORMAT_ARGB32, Int32(width), Int32(height),
                Int32(stride))
        else { return }
        defer { cairo_surface_destroy(surface) }
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS else { return }
        let cr = context.pointer
        cairo_save(cr)
        cairo_translate(cr, x, y)
        cairo_scale(cr, boxWidth / Double(width), boxHeight / Double(height))
        cairo_set_source_surface(cr, surface, 0, 0)
        cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_BILINEAR)
        cairo_rectangle(cr, 0, 0, Double(width), Double(height))
        cairo_fill(cr)
        // Restoring drops the pattern, and with it cairo's reference to the wrapper surface.
        cairo_restore(cr)
    }
}
