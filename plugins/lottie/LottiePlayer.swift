import CCairo
import CRlottie
import EffectKit
import Glibc
import Locking

/// rlottie animations built from one checked document, lent to one `render` at a time.
///
/// An rlottie animation keeps the state of the last frame it drew and refuses a second render while one
/// is running, so it cannot be shared between threads. The player keeps a pool: a render takes a free
/// animation (or builds one from the same bytes, with the same overrides), draws, and gives it back. Every
/// animation is built from identical input, so which one draws a frame does not change its pixels.
///
/// Why `@unchecked Sendable`: the only mutable state is the pool, inside a `Locked`; an animation pointer is
/// used by one thread at a time, between `take` and `give`.
final class LottiePlayer: @unchecked Sendable {
    /// The checked document as JSON text (NUL-terminated), exactly what rlottie parses.
    private let text: [CChar]
    private let folder: [CChar]
    private let overrides: [LottieOverride]
    private let pool = Locked<[Animation]>([])

    /// An rlottie animation pointer. `@unchecked Sendable`: it only moves between threads through the pool,
    /// and one thread at a time uses it (see the type's comment).
    private struct Animation: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    /// Builds the first animation, so that a file rlottie refuses fails in `create`.
    init(json: String, folder: String, overrides: [LottieOverride]) throws(EffectError) {
        text = Array(json.utf8CString)
        self.folder = Array(folder.utf8CString)
        self.overrides = overrides
        guard let first = build() else {
            throw EffectError(parameter: "file", "rlottie could not read the animation")
        }
        pool.withLock { $0.append(Animation(pointer: first)) }
    }

    deinit {
        pool.withLock { animations in
            for animation in animations { lottie_animation_destroy(animation.pointer) }
            animations.removeAll()
        }
    }

    /// rlottie's own count of frames and frame rate, to cross-check the document's.
    func timing() -> (frames: Int, rate: Double)? {
        guard let animation = take() else { return nil }
        defer { give(animation) }
        return (lottie_animation_get_totalframe(animation), lottie_animation_get_framerate(animation))
    }

    /// Draws Lottie frame `frame` (0 = in point) fitted into `box` (points) with `opacity`, rendering
    /// at `pixelWidth` × `pixelHeight`: rlottie writes premultiplied ARGB32, cairo's own format.
    func draw(
        frame: Int, in box: Rect, pixelWidth: Int, pixelHeight: Int, opacity: Double, on context: DrawingContext
    ) throws(EffectError) {
        try withPixels(frame: frame, width: pixelWidth, height: pixelHeight) { (pixels, stride) throws(EffectError) in
            let bytes = UnsafeMutableRawPointer(pixels).assumingMemoryBound(to: UInt8.self)
            guard
                let surface = cairo_image_surface_create_for_data(
                    bytes, CAIRO_FORMAT_ARGB32, Int32(pixelWidth), Int32(pixelHeight), Int32(stride))
            else { throw EffectError("cairo could not wrap the frame") }
            defer { cairo_surface_destroy(surface) }
            guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS else {
                throw EffectError("cairo could not wrap the frame")
            }
            cairo_surface_mark_dirty(surface)
            let cr = context.pointer
            cairo_save(cr)
            cairo_translate(cr, box.x, box.y)
            cairo_scale(cr, box.width / Double(pixelWidth), box.height / Double(pixelHeight))
            cairo_set_source_surface(cr, surface, 0, 0)
            cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_BILINEAR)
            cairo_rectangle(cr, 0, 0, Double(pixelWidth), Double(pixelHeight))
            cairo_clip(cr)
            cairo_paint_with_alpha(cr, opacity)
            // Restoring drops the pattern and cairo's reference to the surface before the pixels are freed.
            cairo_restore(cr)
        }
    }

    /// Where frame `frame` draws, in buffer pixels: the bounds of its non-transparent pixels and the drawn
    /// pixel nearest to their alpha-weighted centre; nil when it draws nothing.
    func coverage(frame: Int, pixelWidth: Int, pixelHeight: Int) throws(EffectError) -> (bounds: Rect, point: Point)? {
        try withPixels(frame: frame, width: pixelWidth, height: pixelHeight) { pixels, stride in
            let row = stride / 4
            var (minX, minY, maxX, maxY) = (Int.max, Int.max, -1, -1)
            var (sumX, sumY, total) = (0.0, 0.0, 0.0)
            for y in 0..<pixelHeight {
                for x in 0..<pixelWidth {
                    let alpha = Double(pixels[y * row + x] >> 24)
                    guard alpha > 0 else { continue }
                    (minX, minY, maxX, maxY) = (min(minX, x), min(minY, y), max(maxX, x), max(maxY, y))
                    (sumX, sumY, total) = (sumX + alpha * Double(x), sumY + alpha * Double(y), total + alpha)
                }
            }
            guard total > 0 else { return nil }
            let centre = Point(sumX / total, sumY / total)
            var nearest = Point(Double(minX), Double(minY))
            var best = Double.infinity
            for y in minY...maxY {
                for x in minX...maxX where pixels[y * row + x] >> 24 > 0 {
                    let distance =
                        (Double(x) - centre.x) * (Double(x) - centre.x) + (Double(y) - centre.y)
                        * (Double(y) - centre.y)
                    if distance < best { (best, nearest) = (distance, Point(Double(x), Double(y))) }
                }
            }
            let bounds = Rect(
                x: Double(minX), y: Double(minY), width: Double(maxX - minX + 1), height: Double(maxY - minY + 1))
            return (bounds, Point(nearest.x + 0.5, nearest.y + 0.5))
        }
    }

    /// Renders `frame` into a zeroed premultiplied ARGB32 buffer and hands it (and its stride in bytes) to `body`.
    private func withPixels<T>(
        frame: Int, width: Int, height: Int, _ body: (UnsafeMutablePointer<UInt32>, Int) throws(EffectError) -> T
    ) throws(EffectError) -> T {
        guard width > 0, height > 0 else { throw EffectError("the animation has no pixels") }
        let stride = Int(cairo_format_stride_for_width(CAIRO_FORMAT_ARGB32, Int32(width)))
        guard stride >= width * 4 else { throw EffectError("cannot make a \(width)-pixel-wide buffer") }
        let words = stride / 4 * height
        let pixels = UnsafeMutablePointer<UInt32>.allocate(capacity: words)
        // memset: initialize(repeating:count:) would loop a word at a time in a debug build.
        memset(pixels, 0, words * MemoryLayout<UInt32>.stride)
        defer { pixels.deallocate() }
        guard let animation = take() else { throw EffectError("rlottie could not rebuild the animation") }
        lottie_animation_render(animation, frame, pixels, width, height, stride)
        give(animation)
        return try body(pixels, stride)
    }

    private func take() -> OpaquePointer? {
        pool.withLock { $0.popLast()?.pointer } ?? build()
    }

    private func give(_ animation: OpaquePointer) {
        pool.withLock { $0.append(Animation(pointer: animation)) }
    }

    /// A new animation with the overrides applied. The cache key is the document itself: rlottie caches
    /// parsed models by key for the whole process, so a shorter key could hand back another file's model.
    private func build() -> OpaquePointer? {
        guard let animation = lottie_animation_from_data(text, text, folder) else { return nil }
        for entry in overrides { apply(entry, to: animation) }
        return animation
    }

    private func apply(_ entry: LottieOverride, to animation: OpaquePointer) {
        entry.keypath.withCString { keypath in
            switch (entry.property, entry.value) {
            case (.fillColor, .color(let r, let g, let b)):
                rf_lottie_override_color(animation, LOTTIE_ANIMATION_PROPERTY_FILLCOLOR, keypath, r, g, b)
            case (.strokeColor, .color(let r, let g, let b)):
                rf_lottie_override_color(animation, LOTTIE_ANIMATION_PROPERTY_STROKECOLOR, keypath, r, g, b)
            case (.fillOpacity, .number(let value)):
                rf_lottie_override_number(animation, LOTTIE_ANIMATION_PROPERTY_FILLOPACITY, keypath, value)
            case (.strokeOpacity, .number(let value)):
                rf_lottie_override_number(animation, LOTTIE_ANIMATION_PROPERTY_STROKEOPACITY, keypath, value)
            case (.opacity, .number(let value)):
                rf_lottie_override_number(animation, LOTTIE_ANIMATION_PROPERTY_FILLOPACITY, keypath, value)
                rf_lottie_override_number(animation, LOTTIE_ANIMATION_PROPERTY_STROKEOPACITY, keypath, value)
            case (.strokeWidth, .number(let value)):
                rf_lottie_override_number(animation, LOTTIE_ANIMATION_PROPERTY_STROKEWIDTH, keypath, value)
            case (.rotation, .number(let value)):
                rf_lottie_override_number(animation, LOTTIE_ANIMATION_PROPERTY_TR_ROTATION, keypath, value)
            case (.position, .pair(let x, let y)):
                rf_lottie_override_pair(animation, LOTTIE_ANIMATION_PROPERTY_TR_POSITION, keypath, x, y)
            case (.scale, .pair(let x, let y)):
                rf_lottie_override_pair(animation, LOTTIE_ANIMATION_PROPERTY_TR_SCALE, keypath, x, y)
            default:
                break  // LottieOverride pairs every property with its value shape.
            }
        }
    }
}
