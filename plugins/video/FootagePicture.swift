import CCairo
import EffectKit
import Locking

/// One converted source frame: premultiplied ARGB32 rows as cairo reads them, never written after conversion.
///
/// Why `@unchecked Sendable`: the pixels are written once by the decoder that converts them, before the
/// picture is shared; afterwards every thread only reads them (as the source of a cairo paint).
final class FootagePicture: @unchecked Sendable {
    let width: Int
    let height: Int
    let stride: Int
    let pixels: UnsafeMutablePointer<UInt8>
    /// Whether every pixel is opaque: cairo then reads the rows as RGB24 and copies instead of blending.
    var opaque = false

    /// Where the pixels came from and go back to when the picture is released.
    private let pool: Pool

    init(width: Int, height: Int, pool: Pool) throws(EffectError) {
        let stride = Int(cairo_format_stride_for_width(CAIRO_FORMAT_ARGB32, Int32(width)))
        guard stride >= width * 4 else { throw EffectError("cannot make a \(width)-pixel-wide frame") }
        self.width = width
        self.height = height
        self.stride = stride
        self.pool = pool
        pixels = pool.take(stride * height)
    }

    deinit { pool.give(pixels, stride * height) }

    /// Pixel buffers of released pictures, reused by the next ones: fresh memory for every frame (8 MB at 1080p)
    /// costs page faults and pages the kernel clears. Keeps at most `spares` buffers, all of one size.
    final class Pool: Sendable {
        private struct Spare: @unchecked Sendable {
            let pixels: UnsafeMutablePointer<UInt8>
            let bytes: Int
        }

        private let spares = Locked<[Spare]>([])

        /// Enough for the steady state, where each frame converted replaces one released.
        static let spares = 2

        init() {}

        deinit {
            spares.withLock { spares in
                for spare in spares { spare.pixels.deallocate() }
                spares = []
            }
        }

        /// A buffer of `bytes` bytes, reused or new; its old pixels are overwritten by the conversion.
        func take(_ bytes: Int) -> UnsafeMutablePointer<UInt8> {
            let spare = spares.withLock { spares -> Spare? in
                guard let index = spares.lastIndex(where: { $0.bytes == bytes }) else { return nil }
                return spares.remove(at: index)
            }
            return spare?.pixels ?? .allocate(capacity: bytes)
        }

        func give(_ pixels: UnsafeMutablePointer<UInt8>, _ bytes: Int) {
            let kept = spares.withLock { spares -> Bool in
                // A clip whose size changes keeps buffers of its new size.
                spares.removeAll { spare in
                    guard spare.bytes != bytes else { return false }
                    spare.pixels.deallocate()
                    return true
                }
                guard spares.count < Self.spares else { return false }
                spares.append(Spare(pixels: pixels, bytes: bytes))
                return true
            }
            if !kept { pixels.deallocate() }
        }
    }

    /// Paints the picture, turned by `orientation`, so that its pixels fill `box` (points), clipped to `clip`.
    func draw(into box: Rect, clip: Rect, turned orientation: FootageOrientation, on context: DrawingContext)
        throws(EffectError)
    {
        guard
            let surface = cairo_image_surface_create_for_data(
                pixels, opaque ? CAIRO_FORMAT_RGB24 : CAIRO_FORMAT_ARGB32, Int32(width), Int32(height), Int32(stride))
        else { throw EffectError("cairo could not wrap the frame") }
        defer { cairo_surface_destroy(surface) }
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS else {
            throw EffectError("cairo could not wrap the frame")
        }
        let cr = context.pointer
        cairo_save(cr)
        cairo_rectangle(cr, clip.x, clip.y, clip.width, clip.height)
        cairo_clip(cr)
        cairo_translate(cr, box.x, box.y)
        let shown = orientation.displayed(Size(width: Double(width), height: Double(height)))
        cairo_scale(cr, box.width / shown.width, box.height / shown.height)
        var turn = orientation.matrix(width: width, height: height)
        cairo_transform(cr, &turn)
        cairo_set_source_surface(cr, surface, 0, 0)
        cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_BILINEAR)
        // Pixels beyond the edge stay transparent rather than smearing the border.
        cairo_pattern_set_extend(cairo_get_source(cr), CAIRO_EXTEND_NONE)
        cairo_rectangle(cr, 0, 0, Double(width), Double(height))
        cairo_fill(cr)
        // Restoring drops the pattern and cairo's reference to the surface before the pixels may be freed.
        cairo_restore(cr)
    }
}
