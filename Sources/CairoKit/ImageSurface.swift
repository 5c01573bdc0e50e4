import CCairo
import Glibc

/// An owned cairo ARGB32 image surface (premultiplied, native-endian 32-bit pixels).
///
/// Not `Sendable`: a surface belongs to the thread that draws on it.
public final class ImageSurface {
    /// The underlying `cairo_surface_t *`.
    public let pointer: OpaquePointer
    public let width: Int
    public let height: Int
    /// Bytes per row.
    public let stride: Int

    /// Creates a transparent surface of `width` × `height` pixels.
    public init(width: Int, height: Int) throws(CairoError) {
        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(width), Int32(height)) else {
            throw CairoError(CAIRO_STATUS_NO_MEMORY, "creating a \(width)×\(height) surface")
        }
        let status = cairo_surface_status(surface)
        guard status == CAIRO_STATUS_SUCCESS else {
            cairo_surface_destroy(surface)
            throw CairoError(status, "creating a \(width)×\(height) surface")
        }
        pointer = surface
        self.width = width
        self.height = height
        stride = Int(cairo_image_surface_get_stride(surface))
        // The pixels are zero already (fresh pages of the allocator). Writing them now maps each page for writing
        // at once: a page first read by a drawing is mapped to the kernel's shared zero page, and its first write
        // then replaces that mapping, which with two threads or more flushes every core's TLB (an interrupt to
        // each, per page: about 4 % of the CPU time of 120 720p frames at -j 2; the Performance article).
        writeZeros()
    }

    /// Sets every byte of the pixels to 0 with memset: one way to clear them, for `init` and `zero()`.
    func writeZeros() { memset(bytes, 0, stride * height) }

    /// Takes ownership of a surface cairo created, destroying it when its status is an error.
    init(adopting surface: OpaquePointer, operation: @autoclosure () -> String) throws(CairoError) {
        let status = cairo_surface_status(surface)
        guard status == CAIRO_STATUS_SUCCESS else {
            cairo_surface_destroy(surface)
            throw CairoError(status, operation())
        }
        pointer = surface
        width = Int(cairo_image_surface_get_width(surface))
        height = Int(cairo_image_surface_get_height(surface))
        stride = Int(cairo_image_surface_get_stride(surface))
    }

    deinit { cairo_surface_destroy(pointer) }

    /// The pixel bytes; call `flush()` before reading what a context drew.
    public var bytes: UnsafeMutablePointer<UInt8> {
        // A successfully created image surface always has data.
        cairo_image_surface_get_data(pointer)
    }

    /// Finishes pending drawing so `bytes` is up to date.
    public func flush() { cairo_surface_flush(pointer) }

    /// Replaces every pixel with those of `other`, which must have the same size and stride:
    /// how a frame starts from pixels drawn once (static layers).
    public func copyPixels(from other: ImageSurface) {
        precondition(other.width == width && other.height == height && other.stride == stride, "surface sizes differ")
        flush()
        other.flush()
        // Both buffers are cairo's own, stride × height bytes each (checked above), and distinct.
        bytes.update(from: other.bytes, count: stride * height)
        markDirty()
    }

    /// Tells cairo that `bytes` were changed directly.
    public func markDirty() { cairo_surface_mark_dirty(pointer) }

    /// The straight-alpha colour of one pixel, as 8-bit components (r, g, b, a).
    public func pixel(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        flush()
        let word = bytes.advanced(by: y * stride + x * 4).withMemoryRebound(to: UInt32.self, capacity: 1) { $0.pointee }
        let alpha = UInt8(word >> 24)
        func straight(_ component: UInt32) -> UInt8 {
            guard alpha > 0 else { return 0 }
            let opacity = Int(alpha)
            let value: Int = (Int(component & 0xFF) * 255 + opacity / 2) / opacity
            return UInt8(min(255, value))
        }
        return (straight(word >> 16), straight(word >> 8), straight(word), alpha)
    }

    /// Writes the surface with cairo's own PNG writer (slow; for previews and baselines).
    public func writePNG(to path: String) throws(CairoError) {
        try CairoError.check(cairo_surface_write_to_png(pointer, path), "writing \(path)")
    }
}
