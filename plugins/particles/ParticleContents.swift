import CCairo
import EffectKit
import Foundation
import Synchronization

/// What a cell's particles look like (`CAEmitterCell.contents`): a built-in shape or a PNG, drawn at `size`
/// points times the particle's scale and multiplied by its colour.
enum ParticleContents: Sendable {
    case shape(ParticleShape, Size)
    case image(TintedImage, Size)

    /// A cell's `contents`, `image` and `size` (EffectKit article ParticlesEffect, "Contents"); `loader` reads the
    /// image.
    static func read(_ cell: NestedObject, loader: ItemLookLoader) throws(EffectError) -> ParticleContents {
        let size = try cell["size"].map { value throws(EffectError) in
            try EffectParameters.size(value, parameter: cell.parameter + ".size")
        }
        if let path = try cell.string("image") {
            if cell["contents"] != nil {
                throw EffectError(
                    parameter: cell.parameter + ".contents", "give contents (a shape) or image (a PNG), not both")
            }
            let look = try loader.look(
                shape: "image", image: path, color: nil, size: size, prefix: cell.parameter + ".")
            guard let image = look.image else {
                throw EffectError(parameter: cell.parameter + ".image", "\(path) cannot be read")
            }
            // Without a size, one pixel of the image is one point, as Core Animation draws contents.
            let drawn = size ?? Size(width: Double(image.width), height: Double(image.height))
            return .image(TintedImage(image, look: look), drawn)
        }
        let shape: ParticleShape = try cell.choice("contents") ?? .circle
        return .shape(shape, size ?? Size(width: 10, height: 10))
    }
}

/// The built-in particle shapes, each filling a `size` box centred on the particle, in the particle's colour.
enum ParticleShape: String, CaseIterable, Sendable {
    case circle, rectangle, triangle, star, spark, snowflake, heart

    /// The spark's look, drawn once: white, opaque in the middle and fading to nothing at the edge of its box
    /// (a radial gradient per particle would cost several times more).
    static let sparkSprite: SharedImage? = {
        let side = 64
        guard let surface = try? ImageSurface(width: side, height: side),
            let context = try? DrawingContext(surface: surface)
        else { return nil }
        let cr = context.pointer
        let middle = Double(side) / 2
        let glow = cairo_pattern_create_radial(middle, middle, 0, middle, middle, middle)
        cairo_pattern_add_color_stop_rgba(glow, 0, 1, 1, 1, 1)
        cairo_pattern_add_color_stop_rgba(glow, 0.35, 1, 1, 1, 0.6)
        cairo_pattern_add_color_stop_rgba(glow, 1, 1, 1, 1, 0)
        cairo_set_source(cr, glow)
        cairo_paint(cr)
        cairo_pattern_destroy(glow)
        return withExtendedLifetime(context) { SharedImage(surface) }
    }()

    /// Draws the shape centred on the origin of the current user space.
    func draw(_ size: Size, color: SIMD4<Double>, in context: DrawingContext) {
        let cr = context.pointer
        let (w, h) = (size.width, size.height)
        cairo_set_source_rgba(cr, color[0], color[1], color[2], color[3])
        switch self {
        case .circle:
            cairo_save(cr)
            cairo_scale(cr, w / 2, h / 2)
            cairo_arc(cr, 0, 0, 1, 0, 2 * .pi)
            cairo_restore(cr)
        case .rectangle:
            cairo_rectangle(cr, -w / 2, -h / 2, w, h)
        case .triangle:
            cairo_move_to(cr, 0, -h / 2)
            cairo_line_to(cr, w / 2, h / 2)
            cairo_line_to(cr, -w / 2, h / 2)
            cairo_close_path(cr)
        case .star:
            for point in 0..<10 {
                let angle = -Double.pi / 2 + Double(point) * .pi / 5
                let reach = point % 2 == 0 ? 0.5 : 0.2
                cairo_line_to(cr, cos(angle) * w * reach, sin(angle) * h * reach)
            }
            cairo_close_path(cr)
        case .spark:
            // A soft dot: the sprite's alpha in the particle's colour.
            if let sprite = Self.sparkSprite {
                sprite.mask(in: context, x: -w / 2, y: -h / 2, width: w, height: h)
            }
            return
        case .snowflake:
            // Six arms with a pair of twigs each, stroked a tenth of the box wide.
            cairo_save(cr)
            cairo_scale(cr, w, h)
            for arm in 0..<6 {
                let angle = Double(arm) * .pi / 3
                let (dx, dy) = (cos(angle), sin(angle))
                cairo_move_to(cr, 0, 0)
                cairo_line_to(cr, dx * 0.5, dy * 0.5)
                for side in [-1.0, 1.0] {
                    let twig = angle + side * .pi / 4
                    cairo_move_to(cr, dx * 0.3, dy * 0.3)
                    cairo_line_to(cr, dx * 0.3 + cos(twig) * 0.14, dy * 0.3 + sin(twig) * 0.14)
                }
            }
            cairo_restore(cr)
            cairo_set_line_width(cr, min(w, h) * 0.1)
            cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND)
            cairo_stroke(cr)
            return
        case .heart:
            context.heartPath(size)
        }
        cairo_fill(cr)
    }
}

/// A particle image and its copies multiplied by a colour, as Core Animation multiplies contents by a
/// particle's colour. A copy is made once per colour (quantised to what an 8-bit channel can show) and kept
/// while the layer lives, up to a bound.
///
/// Why `@unchecked Sendable`: the copies are only touched inside `tints`' lock; images never change.
final class TintedImage: @unchecked Sendable {
    let image: SharedImage
    /// The look it was loaded as: its file is one of the effect's input files (``ItemLook/imageFiles(of:)``).
    let look: ItemLook
    private let tints = Mutex<[UInt32: SharedImage]>([:])
    private static let maxTints = 4096

    init(_ image: SharedImage, look: ItemLook) {
        self.image = image
        self.look = look
    }

    /// The image multiplied by `red`, `green` and `blue` (0…1 each, quantised to 1/255).
    func tinted(red: Double, green: Double, blue: Double) -> SharedImage {
        let levels = [red, green, blue].map { UInt32((min(max($0, 0), 1) * 255).rounded()) }
        if levels == [255, 255, 255] { return image }
        let key = levels[0] << 16 | levels[1] << 8 | levels[2]
        if let copy = tints.withLock({ $0[key] }) { return copy }
        guard let copy = try? image.multiplied(red: levels[0], green: levels[1], blue: levels[2]) else { return image }
        tints.withLock { cache in
            if cache.count >= Self.maxTints { cache.removeAll() }
            cache[key] = copy
        }
        return copy
    }
}
