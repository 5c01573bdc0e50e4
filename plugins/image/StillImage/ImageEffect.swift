import CairoKit
import EffectKit

/// A PNG, JPEG or SVG file placed in a rect: fitted (contain, cover, fill), with rounded corners or cut to a circle.
///
/// The file is decoded once in `create`, and resampled once to the size it is drawn at when that is smaller (an
/// SVG is drawn once at that size);
/// every frame draws the same pixels, so the host draws the layer once per worker when it is at the bottom
/// (``EffectDescriptor/frameInvariant``), and the frame key, the same at every frame, is a digest of the
/// parameters (``EffectDescriptor/keysCoverParameters``; the host hashes the file's content itself).
package struct ImageEffect: Effect {
    package static let descriptor = EffectDescriptor(
        id: "image",
        identifier: "org.renderfarm.image",
        version: "1.0.0",
        summary: "A PNG, JPEG or SVG image in a rect: contain, cover or fill, rounded corners or a circle (avatars)",
        threadSafety: .full,
        frameInvariant: true,
        keysCoverParameters: true,
        parameters: [
            ParameterSpec(
                "file", .string, default: nil,
                doc: "the image, a PNG, JPEG or SVG file relative to the job file's folder (inside it); at most "
                    + "\(ImageLimits.assets.maxSide) pixels a side and \(ImageLimits.assets.maxPixels) pixels; required"
            ),
            ParameterSpec(
                "rect", .rect, default: nil,
                doc: "where the image goes, {\"x\", \"y\", \"width\", \"height\"} in points (default: the canvas)"),
            ParameterSpec(
                "fit", .choice(ImagePlacement.Fit.allCases.map(\.rawValue)), default: "contain",
                doc: "contain: the whole image, centred, the rest of the rect empty; cover: the rect filled, the "
                    + "image centred and cut; fill: stretched to the rect"),
            ParameterSpec(
                "radius", .number, default: 0, range: 0...EffectParameters.sizeLimit,
                doc: "rounds the corners of what shows (the image, or the rect with cover), in points"),
            ParameterSpec(
                "circle", .bool, default: false,
                doc: "cut to the largest circle in what shows, centred (avatars); overrides radius"),
        ]
    )

    /// Drawn at more than this many points per image pixel (times the canvas scale), the image is warned
    /// about as blurry.
    static let blurryMagnification = 2.0

    let image: SharedImage
    let placement: ImagePlacement
    package let inputFiles: [String]
    package let warnings: [EffectError]
    /// Every parameter: with the file's content, all the drawing follows from.
    let parametersKey: FrameKey

    package init(parameters: EffectParameters, context: EffectContext) throws(EffectError) {
        parametersKey = parameters.digest()
        guard parameters.contains("file") else {
            throw EffectError(parameter: "file", "missing: the PNG, JPEG or SVG file to draw")
        }
        let name = try parameters.string("file")
        let rect =
            parameters.contains("rect")
            ? try parameters.rect("rect") : Rect(x: 0, y: 0, width: context.width, height: context.height)
        let fit: ImagePlacement.Fit = try parameters.choice("fit")
        let radius = try parameters.number("radius")
        let circle = try parameters.bool("circle")
        let path = try AssetPath.resolve(name, in: context.jobDirectory, parameter: "file")
        let decoded: ImageDecoder.Decoded
        do {
            decoded = try ImageDecoder.load(path)
        } catch {
            throw EffectError(parameter: "file", error.message(naming: name))
        }
        switch decoded {
        case .pixels(let original):
            guard original.width > 0, original.height > 0 else {
                throw EffectError(parameter: "file", "\(name) is empty")
            }
            placement = ImagePlacement(
                width: Double(original.width), height: Double(original.height), in: rect, fit: fit, radius: radius,
                circle: circle)
            (image, warnings) = try Self.resampled(original, to: Self.pixels(of: placement, context), name: name)
        case .vector(let document):
            placement = ImagePlacement(
                width: document.width, height: document.height, in: rect, fit: fit, radius: radius, circle: circle)
            let pixels = Self.pixels(of: placement, context)
            if let excess = ImageLimits.assets.excess(width: pixels.width, height: pixels.height) {
                throw EffectError(
                    parameter: "file",
                    "\(name) would be drawn at \(pixels.width) × \(pixels.height) pixels, too large (\(excess)): "
                        + "give it a smaller rect")
            }
            do {
                image = try document.rasterize(width: pixels.width, height: pixels.height, path: path)
            } catch {
                throw EffectError(parameter: "file", error.message(naming: name))
            }
            warnings =
                document.hasText
                ? [
                    EffectError(
                        parameter: "file",
                        "\(name) has text, drawn with this machine's fonts, which the frames' fingerprint does not "
                            + "cover: convert the text to paths for the same pixels everywhere")
                ] : []
        }
        inputFiles = [path]
    }

    /// The pixels the placed image covers at the canvas scale.
    private static func pixels(of placement: ImagePlacement, _ context: EffectContext) -> (width: Int, height: Int) {
        (
            ItemLookLoader.pixels(placement.image.width * context.scale),
            ItemLookLoader.pixels(placement.image.height * context.scale)
        )
    }

    /// `original` shrunk once to `pixels` with cairo's box filter when it is larger (not per frame with the
    /// bilinear one, which skips pixels), and a warning when it is drawn so much larger that it looks blurry.
    private static func resampled(_ original: SharedImage, to pixels: (width: Int, height: Int), name: String)
        throws(EffectError) -> (SharedImage, [EffectError])
    {
        var image = original
        if pixels.width < original.width || pixels.height < original.height {
            do {
                image = try original.scaled(width: pixels.width, height: pixels.height)
            } catch {
                throw EffectError(parameter: "file", "\(name) cannot be resized: \(error)")
            }
        }
        let magnification = max(
            Double(pixels.width) / Double(original.width), Double(pixels.height) / Double(original.height))
        guard magnification > blurryMagnification else { return (image, []) }
        return (
            image,
            [
                EffectError(
                    parameter: "file",
                    "\(name) is \(original.width) × \(original.height) pixels but drawn at \(pixels.width) × "
                        + "\(pixels.height): it will look blurry")
            ]
        )
    }

    package func render(in context: DrawingContext, at frame: FrameTime) throws(EffectError) {
        let target = placement.image
        guard target.width > 0, target.height > 0 else { return }
        context.withSavedState {
            switch placement.clip {
            case .none: break
            case .rectangle(let rect):
                context.rectangle(x: rect.x, y: rect.y, width: rect.width, height: rect.height)
                context.clip()
            case .roundedRectangle(let rect, let radius):
                context.roundedRectangle(rect, radius: radius)
                context.clip()
            case .circle(let center, let radius):
                context.newPath()
                context.arc(centerX: center.x, centerY: center.y, radius: radius, from: 0, to: 2 * .pi)
                context.clip()
            }
            image.draw(
                in: context, x: target.x, y: target.y, width: target.width, height: target.height, padEdges: true)
        }
    }

    /// The same drawing at every frame, decided by the parameters and the file.
    package func frameKey(at frame: FrameTime) -> FrameKey? { parametersKey }
}
