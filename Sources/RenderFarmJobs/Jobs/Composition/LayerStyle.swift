import CairoKit
import Foundation

/// The layer styles of a layer or group (the RenderFarm article ComposingLayers, "Layer styles"), drawn by the
/// host from the layer's pixels as After Effects and Photoshop draw theirs: a drop shadow and an outer glow
/// behind it, an inner glow and a stroke on its edge, and before those a Gaussian blur and colour adjustments
/// of the layer itself. Lengths are in job points, in the canvas's directions: a style is not turned or
/// scaled with the layer's transform (the light that casts a shadow is the scene's, not the layer's).
package struct LayerStyle: Sendable, Equatable, Encodable {
    package var dropShadow: Shadow?
    package var outerGlow: Glow?
    package var innerGlow: Glow?
    package var stroke: Stroke?
    /// The layer's own blur: a Gaussian of standard deviation `blur / 2` (CSS's blur radius).
    package var blur: Animated<Double>?
    package var adjust: Adjustment?

    package init() {}

    /// A shadow of the layer's alpha, `distance` away from the light that shines from `angle` degrees
    /// (counter-clockwise from the right, as Photoshop's: 120 lights from the upper left and casts down right),
    /// grown by `spread` and blurred by `blur`.
    package struct Shadow: Sendable, Equatable, Encodable {
        package var color = Color.black
        package var opacity = Animated.constant(0.75)
        package var angle = Animated.constant(120.0)
        package var distance = Animated.constant(5.0)
        package var blur = Animated.constant(5.0)
        package var spread = Animated.constant(0.0)

        /// The offset of the shadow at `angle` and `distance`, in points (y grows downwards).
        package static func offset(angle: Double, distance: Double) -> (x: Double, y: Double) {
            let radians = angle * .pi / 180
            return (-distance * cos(radians), distance * sin(radians))
        }
    }

    /// A glow around the layer's edge (outer: the alpha grown by `spread`, then blurred) or inside it (inner: the
    /// outside grown `spread` into the layer, then blurred, inside the layer's alpha).
    package struct Glow: Sendable, Equatable, Encodable {
        package var color = Color(red: 1, green: 1, blue: 190.0 / 255)
        package var opacity = Animated.constant(0.75)
        package var blur = Animated.constant(5.0)
        package var spread = Animated.constant(0.0)
    }

    /// A line `width` points wide along the edge of the layer's alpha, outside, inside or across it.
    package struct Stroke: Sendable, Equatable, Encodable {
        package enum Position: String, Sendable, CaseIterable, Encodable {
            case outside, inside, center
        }
        package var color = Color(red: 1, green: 0, blue: 0)
        package var opacity = Animated.constant(1.0)
        package var width = Animated.constant(3.0)
        package var position = Position.outside
    }

    /// Colour adjustments, each −1…1 and 0 for none: `brightness` added, `contrast` about mid-grey,
    /// `saturation` away from or towards grey; then `tintAmount` of the pixel's luminance in `tint`.
    package struct Adjustment: Sendable, Equatable, Encodable {
        package var brightness = Animated.constant(0.0)
        package var contrast = Animated.constant(0.0)
        package var saturation = Animated.constant(0.0)
        package var tint = Color.white
        package var tintAmount = Animated.constant(0.0)

        var isAnimated: Bool {
            [brightness, contrast, saturation, tintAmount].contains(where: \.isAnimated)
        }
    }

    /// Whether it changes with time.
    package var isAnimated: Bool {
        let shadow = dropShadow.map { [$0.opacity, $0.angle, $0.distance, $0.blur, $0.spread] } ?? []
        let glows = [outerGlow, innerGlow].compactMap { $0 }.flatMap { [$0.opacity, $0.blur, $0.spread] }
        let stroke = stroke.map { [$0.opacity, $0.width] } ?? []
        return (shadow + glows + stroke + [blur].compactMap { $0 }).contains(where: \.isAnimated)
            || (adjust?.isAnimated ?? false)
    }

    /// Whether it draws anything beyond the layer itself, so the layer needs a surface of its own.
    package var isEmpty: Bool {
        dropShadow == nil && outerGlow == nil && innerGlow == nil && stroke == nil && blur == nil && adjust == nil
    }
}
