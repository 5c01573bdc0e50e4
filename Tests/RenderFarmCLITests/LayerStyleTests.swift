import CairoKit
import Foundation
import Testing

/// Layer styles (the RenderFarm article ComposingLayers, "Layer styles"), measured in the PNGs: the test plugin
/// `test-probe` fills a pixel-aligned square, and each style's geometry and colour is checked against its
/// formula for random values.
@Suite("Layer styles: shadows, glows, strokes, blur and colour adjustments measured")
struct LayerStyleTests {
    typealias Compose = LayerCompositionTests
    static let transparent = "#00000000"

    /// Renders `layers` on a transparent 100×100 canvas and returns frame `index`.
    static func render(_ layers: [String], frame index: Int = 0, duration: Double = 0.1) throws -> ImageSurface {
        let folder = try TemporaryFolder()
        let out = try Compose.render(layers, background: transparent, duration: duration, in: folder)
        return try Compose.frame(out, index)
    }

    /// A red square from (30, 30) to (50, 50) with `style`.
    static func square(style: String, rect: [Double] = [30, 30, 20, 20]) -> String {
        Compose.probe(rect, [1, 0, 0, 1], ##""style": \##(style)"##)
    }

    /// The standard normal distribution function.
    static func phi(_ z: Double) -> Double { 0.5 * erfc(-z / 2.squareRoot()) }

    /// How much of the pixel column [x, x + 1) lies in [from, to).
    static func overlap(_ x: Int, _ from: Double, _ to: Double) -> Double {
        max(0, min(Double(x + 1), to) - max(Double(x), from))
    }

    @Test("a drop shadow lies distance away from the light's angle, pixel for pixel (16 random shadows)")
    func shadowOffset() throws {
        var random = FuzzRandom(seed: 4_901)
        for _ in 0..<16 {
            let angle = (random.number(-180...360) * 10).rounded() / 10
            let distance = (random.number(0...14) * 10).rounded() / 10
            let image = try Self.render([
                Self.square(
                    style:
                        ##"{"dropShadow": {"color": "#0000FF", "opacity": 1, "angle": \##(angle), "distance": \##(distance), "blur": 0}}"##
                )
            ])
            let (dx, dy) = (-distance * cos(angle * .pi / 180), distance * sin(angle * .pi / 180))
            var worst = 0.0
            for y in 0..<100 {
                for x in 0..<100 {
                    let pixel = Compose.rgba(image, x, y)
                    if (30..<50).contains(x) && (30..<50).contains(y) {
                        #expect(pixel == [255, 0, 0, 255], "the square at \(x), \(y)")
                        continue
                    }
                    let expected = Self.overlap(x, 30 + dx, 50 + dx) * Self.overlap(y, 30 + dy, 50 + dy)
                    worst = max(worst, abs(Double(pixel[3]) / 255 - expected))
                    if pixel[3] > 0 {
                        #expect(pixel[0] == 0 && pixel[1] == 0 && pixel[2] == 255, "\(x), \(y): \(pixel)")
                    }
                }
            }
            // pixman interpolates with 7-bit weights: within 4 of 255.
            #expect(worst <= 4.0 / 255, "angle \(angle), distance \(distance): alpha off by \(worst * 255)")
        }
    }

    @Test("a shadow's blur is a Gaussian of standard deviation blur / 2 (8 random sizes, 2 scales)")
    func shadowBlur() throws {
        var random = FuzzRandom(seed: 4_902)
        for index in 0..<8 {
            let blur = (random.number(2...16) * 10).rounded() / 10
            let scale = index % 2 == 0 ? 1.0 : 2.0
            // The right half of the canvas, so the left edge at x = 50 points is a straight step.
            let layer = Compose.probe(
                [50, -50, 100, 200], [1, 0, 0, 1],
                ##""style": {"dropShadow": {"color": "#0000FF", "opacity": 1, "distance": 0, "blur": \##(blur)}}"##)
            let folder = try TemporaryFolder()
            let out = try Compose.render(
                [layer], background: Self.transparent, extra: ["--scale", "\(scale)"], in: folder)
            let image = try Compose.frame(out)
            let sigma = blur / 2 * scale
            let edge = 50 * scale
            var worst = 0.0
            let y = image.height / 2
            for x in 0..<Int(edge) {
                let expected = Self.phi((Double(x) + 0.5 - edge) / sigma)
                worst = max(worst, abs(Double(Compose.rgba(image, x, y)[3]) / 255 - expected))
            }
            // The three-box approximation stays within 3 % of the Gaussian (Filter Effects Module, feGaussianBlur).
            #expect(worst <= 0.03, "blur \(blur) at scale \(scale) (σ \(sigma) pixels): \(worst)")
        }
    }

    @Test("a stroke is width points wide outside, inside or across the edge (24 random strokes)")
    func strokeWidth() throws {
        var random = FuzzRandom(seed: 4_903)
        for _ in 0..<24 {
            let width = (random.number(0.5...10) * 10).rounded() / 10
            let position = random.pick(["outside", "inside", "center"])
            let image = try Self.render([
                Self.square(
                    style: ##"{"stroke": {"color": "#0000FF", "width": \##(width), "position": "\##(position)"}}"##,
                    rect: [30, 30, 40, 40])
            ])
            // Along the middle row: the blue outside the square (its alpha) and inside it (blue over red).
            var outside = 0.0
            var inside = 0.0
            for x in 0..<100 {
                let pixel = Compose.rgba(image, x, 50)
                if (30..<70).contains(x) {
                    inside += Double(pixel[2]) / 255
                } else {
                    outside += Double(pixel[3]) / 255
                    if pixel[3] > 0 { #expect(pixel[2] == 255 && pixel[0] == 0, "\(x): \(pixel)") }
                }
            }
            let (out, into) =
                switch position {
                case "outside": (width, 0.0)
                case "inside": (0.0, width)
                default: (width / 2, width / 2)
                }
            #expect(
                abs(outside - 2 * out) <= 0.02 && abs(inside - 2 * into) <= 0.02,
                "\(position) \(width): \(outside), \(inside)")
        }
    }

    @Test("a layer's blur spreads its edge as a Gaussian of standard deviation blur / 2 (6 random sizes)")
    func layerBlur() throws {
        var random = FuzzRandom(seed: 4_904)
        for _ in 0..<6 {
            let blur = (random.number(2...16) * 10).rounded() / 10
            let image = try Self.render([
                Compose.probe([50, -50, 100, 200], [1, 0, 0, 1], ##""style": {"blur": \##(blur)}"##)
            ])
            let sigma = blur / 2
            var worst = 0.0
            for x in 0..<100 {
                let expected = Self.phi((Double(x) + 0.5 - 50) / sigma)
                let pixel = Compose.rgba(image, x, 50)
                worst = max(worst, abs(Double(pixel[3]) / 255 - expected))
                if pixel[3] > 8 { #expect(pixel[0] == 255 && pixel[1] == 0, "\(x): \(pixel)") }
            }
            #expect(worst <= 0.03, "blur \(blur): \(worst)")
        }
    }

    @Test("colour adjustments follow their formulas (24 random colours and settings)")
    func adjustments() throws {
        var random = FuzzRandom(seed: 4_905)
        let weights = (0.2125, 0.7154, 0.0721)
        for _ in 0..<24 {
            let colour = (0..<3).map { _ in (random.unit() * 255).rounded() / 255 }
            let (b, c, s, amount) = (
                (random.number(-1...1) * 100).rounded() / 100, (random.number(-1...1) * 100).rounded() / 100,
                (random.number(-1...1) * 100).rounded() / 100, (random.unit() * 100).rounded() / 100
            )
            let tint = (0..<3).map { _ in Double(random.integer(0...255)) }
            let hex = "#" + tint.map { String(format: "%02X", Int($0)) }.joined()
            let image = try Self.render([
                Compose.probe(
                    [0, 0, 100, 100], colour + [1],
                    ##""style": {"adjust": {"brightness": \##(b), "contrast": \##(c), "saturation": \##(s), "tint": "\##(hex)", "tintAmount": \##(amount)}}"##
                )
            ])
            var v = colour.map { ($0 + b - 0.5) * (1 + c) + 0.5 }
            var luminance = weights.0 * v[0] + weights.1 * v[1] + weights.2 * v[2]
            v = v.map { luminance + ($0 - luminance) * (1 + s) }
            luminance = min(max(weights.0 * v[0] + weights.1 * v[1] + weights.2 * v[2], 0), 1)
            let expected = (0..<3).map { min(max(v[$0] + amount * (luminance * tint[$0] / 255 - v[$0]), 0), 1) * 255 }
            #expect(
                Compose.pixel(image, 50, 50, is: expected + [255]),
                "\(colour) b \(b) c \(c) s \(s) tint \(hex) × \(amount): \(Compose.rgba(image, 50, 50)) against \(expected)"
            )
        }
    }

    @Test("glows: the outer one around the layer, the inner one inside its edge only")
    func glows() throws {
        let image = try Self.render([
            Self.square(
                style:
                    ##"{"outerGlow": {"color": "#00FF00", "opacity": 1, "blur": 6, "spread": 2}, "innerGlow": {"color": "#0000FF", "opacity": 1, "blur": 4}}"##,
                rect: [30, 30, 40, 40])
        ])
        // Outside: green, strongest at the edge, fading out within the blur's reach.
        let edge = Compose.rgba(image, 29, 50)
        let far = Compose.rgba(image, 15, 50)
        #expect(edge[1] == 255 && edge[0] == 0 && edge[3] > 150, "\(edge)")
        #expect(far[3] < edge[3] && Compose.rgba(image, 2, 50)[3] == 0, "\(far)")
        // Inside: blue at the edge, the square's own red in the middle.
        let inner = Compose.rgba(image, 30, 50)
        #expect(inner[2] > 100 && inner[3] == 255, "\(inner)")
        #expect(Compose.rgba(image, 50, 50) == [255, 0, 0, 255])
    }

    @Test("keyframed style values move between their keyframes")
    func keyframed() throws {
        let style =
            ##"{"dropShadow": {"color": "#0000FF", "opacity": 1, "angle": 0, "blur": 0, "distance": {"keyframes": [{"t": 0, "value": 0}, {"t": 0.1, "value": 10}]}}}"##
        let folder = try TemporaryFolder()
        let out = try Compose.render(
            [Self.square(style: style)], background: Self.transparent, duration: 0.2, in: folder)
        // Angle 0: the light comes from the right, the shadow falls to the left; at frame 1 (t = 0.1) 10 points.
        let first = try Compose.frame(out, 0)
        let second = try Compose.frame(out, 1)
        #expect(Compose.rgba(first, 25, 40)[3] == 0)
        #expect(Compose.rgba(second, 20, 40) == [0, 0, 255, 255] && Compose.rgba(second, 19, 40)[3] == 0)
    }

    @Test(
        "a bad style is refused with where it is and what is allowed",
        arguments: [
            (##"{"dropShaddow": {}}"##, "layers[0].style.dropShaddow: unknown key"),
            (##"{"dropShadow": {"opacity": 2}}"##, "layers[0].style.dropShadow.opacity: expected a number in 0…1"),
            (##"{"outerGlow": {"color": "green"}}"##, "layers[0].style.outerGlow.color: expected a colour"),
            (##"{"stroke": {"position": "middle"}}"##, "layers[0].style.stroke.position: unknown position \"middle\""),
            (##"{"blur": -1}"##, "layers[0].style.blur: expected a number in 0…500 points"),
            (
                ##"{"adjust": {"tintAmount": {"keyframes": [{"t": 0, "value": 3}]}}}"##,
                "layers[0].style.adjust.tintAmount.keyframes[0].value"
            ),
            (##""shadow""##, "layers[0].style: expected an object"),
        ])
    func refused(style: String, message: String) throws {
        let folder = try TemporaryFolder()
        let job = try folder.write(
            ##"{"name": "s", "canvas": {"width": 50, "height": 50}, "fps": 10, "duration": 0.1, "layers": [\##(Self.square(style: style))]}"##,
            to: "job.json")
        let result = CLI.run(["validate", job] + Compose.plugins)
        #expect(result.status == 65)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }
}
