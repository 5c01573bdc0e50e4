import CairoKit
import EffectKit

/// A PNG or JPEG file placed in a rect: fitted (contain, cover, fill), with rounded corners or cut to a circle.
///
/// The file is decoded once in `create`, and resampled once to the size it is drawn at when that is smaller;
/// every frame draws the same pixels, so the host draws the layer once per worker when it is at the bottom
/// (``EffectDescriptor/frameInvariant``), and the frame key, the same at every frame, is a digest of the
/// parameters (``EffectDescriptor/keysCoverParameters``; the host hashes the file's content itself).
package struct ImageEffect: Effect {
    package static let descriptor = EffectDescriptor(
        id: "image",
        identifier: "org.renderfarm.image",
        version: "1.0.0",
        summary: "A PNG or JPEG image in a rect: contain, cover or fill, rounded corners or a circle (avatars)",
        threadSafety: .full,
        frameInvariant: true,
        keysCoverParameters: true,
        parameters: [
            ParameterSpec(
                "file", .string, default: nil,
                doc: "the image, a PNG or JPEG file relative to the job file's folder (inside it); at most "
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
            throw EffectError(parameter: "file", "missing: the PNG or JPEG file to draw")
        }
        let name = try parameters.string("file")
        let rect =
            parameters.contains("rect")
            ? try parameters.rect("rect") : Rect(x: 0, y: 0, width: context.width, height: context.height)
        let fit: ImagePlacement.Fit = try parameters.choice("fit")
        let radius = try parameters.number("radius")
        let circle = try parameters.bool("circle")
        let path = try AssetPath.resolve(name, in: context.jobDirectory, parameter: "file")
        let original: SharedImage
        do {
            original = try ImageDecoder.load(path)
        } catch {
            throw EffectError(parameter: "file", error.message(naming: name))
        }
        guard original.width > 0, original.height > 0 else { throw EffectError(parameter: "file", "\(name) is empty") }
        placement = ImagePlacement(
            imageWidth: original.width, imageHeight: original.height, in: rect, fit: fit, radius: radius,
            circle: circle)
        // Shrunk once here with cairo's box filter, not per frame with the bilinear one (which skips pixels).
        let pixels = (
            width: ItemLookLoader.pixels(placement.image.width * context.scale),
            height: ItemLookLoader.pixels(placement.image.height * context.scale)
        )
        if pixels.width < original.width || pixels.height < original.height {
            do {
                image = try original.scaled(width: pixels.width, height: pixels.height)
            } catch {
                throw EffectError(parameter: "file", "\(name) cannot be resized: \(error)")
            }
        } else {
            image = original
        }
        let magnification = max(
            Double(pixels.width) / Double(original.width), Double(pixels.height) / Double(original.height))
        warnings =
            magnification > Self.blurryMagnification
            ? [
                EffectError(
                    parameter: "file",
                    "\(name) is \(original.width) × \(original.height) pixels but drawn at \(pixels.width) × "
                        + "\(pixels.height): it will look blurry")
            ] : []
        inputFiles = [path]
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
