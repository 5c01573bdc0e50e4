import EffectKit
import Foundation
import Testing

@testable import VectorShape

/// The shape effect in process: outlines, fills, gradients and strokes read back from the pixels it draws.
@Suite("Shape effect")
struct ShapeEffectTests {
    static let canvas = 200

    static func effect(_ params: [String: JSONValue]) throws -> ShapeEffect {
        var values = JSONObject()
        for spec in ShapeEffect.descriptor.parameters { if let value = spec.defaultValue { values[spec.name] = value } }
        for (key, value) in params { values[key] = value }
        let context = EffectContext(width: Double(canvas), height: Double(canvas), fps: 30, duration: 1)
        return try ShapeEffect(parameters: EffectParameters(values), context: context)
    }

    static func draw(_ params: [String: JSONValue]) throws -> ImageSurface {
        let surface = try ImageSurface(width: canvas, height: canvas)
        let context = try DrawingContext(surface: surface)
        try effect(params).render(in: context, at: FrameTime(index: 0, time: 0, local: 0))
        try context.checkStatus("drawing a shape")
        surface.flush()
        return surface
    }

    static func rect(_ x: Double, _ y: Double, _ width: Double, _ height: Double) -> JSONValue {
        .object(["x": .number(x), "y": .number(y), "width": .number(width), "height": .number(height)])
    }

    static func stops(_ stops: [(Double, String)]) -> JSONValue {
        .array(stops.map { .array([.number($0.0), .string($0.1)]) })
    }

    static func points(_ points: [[Double]]) -> JSONValue { .array(points.map { .array($0.map { .number($0) }) }) }

    /// The straight colour of (x, y) as 8-bit r, g, b, a.
    static func rgba(_ image: ImageSurface, _ x: Int, _ y: Int) -> [Int] {
        let pixel = image.pixel(x: x, y: y)
        return [Int(pixel.r), Int(pixel.g), Int(pixel.b), Int(pixel.a)]
    }

    static func close(_ a: [Int], _ b: [Int], _ tolerance: Int) -> Bool {
        zip(a, b).allSatisfy { abs($0 - $1) <= tolerance }
    }

    static func opaque(_ image: ImageSurface, _ x: Int, _ y: Int) -> Bool { image.pixel(x: x, y: y).a == 255 }
    static func clear(_ image: ImageSurface, _ x: Int, _ y: Int) -> Bool { image.pixel(x: x, y: y).a == 0 }

    @Test("rect, roundedRect and ellipse fill their rect with a colour; nothing outside")
    func outlines() throws {
        let rect = try Self.draw(["kind": "rect", "rect": Self.rect(20, 20, 100, 60), "fill": "#FF0000"])
        #expect(Self.rgba(rect, 21, 21) == [255, 0, 0, 255])
        #expect(Self.rgba(rect, 118, 78) == [255, 0, 0, 255])
        #expect(Self.clear(rect, 19, 50) && Self.clear(rect, 121, 50) && Self.clear(rect, 60, 81))

        let rounded = try Self.draw(["kind": "roundedRect", "rect": Self.rect(20, 20, 100, 60), "radius": 20])
        // The corner arc about (40, 40): (24, 24) lies 22.6 pt from it, outside.
        #expect(Self.clear(rounded, 23, 23) && Self.clear(rounded, 116, 76))
        #expect(Self.rgba(rounded, 40, 21) == [255, 255, 255, 255])
        #expect(Self.opaque(rounded, 21, 40) && Self.opaque(rounded, 30, 30))
        // The default radius of a roundedRect is 16; a rect's is 0.
        let defaultRounded = try Self.draw(["kind": "roundedRect", "rect": Self.rect(20, 20, 100, 60)])
        #expect(Self.clear(defaultRounded, 21, 21) && Self.opaque(defaultRounded, 36, 21))

        let ellipse = try Self.draw(["kind": "ellipse", "rect": Self.rect(0, 50, 200, 100), "fill": "#00FF0080"])
        #expect(Self.close(Self.rgba(ellipse, 100, 100), [0, 255, 0, 128], 1))
        #expect(Self.opaque(ellipse, 100, 100) == false)
        // Inside: (x − 100)² / 100² + (y − 100)² / 50² < 1.
        #expect(Self.rgba(ellipse, 190, 100)[3] == 128 && Self.rgba(ellipse, 100, 52)[3] == 128)
        #expect(Self.clear(ellipse, 190, 130) && Self.clear(ellipse, 10, 70) && Self.clear(ellipse, 100, 45))
    }

    @Test("an empty rect or ellipse draws nothing and leaves the context usable")
    func empty() throws {
        let image = try Self.draw([
            "kind": "ellipse", "rect": Self.rect(10, 10, 0, 50), "stroke": .object(["width": 4]),
        ])
        #expect(Self.clear(image, 10, 30))
    }

    @Test("a linear gradient: each pixel the interpolation of the stops at its projection on the line")
    func linear() throws {
        let image = try Self.draw([
            "rect": Self.rect(0, 0, 200, 100),
            "fill": .object([
                "linear": Self.points([[20, 0], [180, 0]]),
                "stops": Self.stops([(0, "#FF0000"), (0.25, "#00FF00"), (1, "#0000FF")]),
            ]),
        ])
        func expected(_ x: Int) -> [Int] {
            let t = min(max((Double(x) + 0.5 - 20) / 160, 0), 1)
            let (r, g, b): (Double, Double, Double) =
                t < 0.25 ? (1 - t / 0.25, t / 0.25, 0) : (0, 1 - (t - 0.25) / 0.75, (t - 0.25) / 0.75)
            return [r, g, b].map { Int(($0 * 255).rounded()) } + [255]
        }
        for x in [0, 10, 20, 40, 59, 60, 100, 140, 179, 190, 199] {
            for y in [0, 50, 99] {
                let got = Self.rgba(image, x, y)
                #expect(Self.close(got, expected(x), 2), "x \(x): \(got), expected \(expected(x))")
            }
        }
    }

    @Test("a linear gradient's alpha runs from transparent to opaque; extend none leaves the outside transparent")
    func linearAlpha() throws {
        let image = try Self.draw([
            "rect": Self.rect(0, 0, 200, 100),
            "fill": .object([
                "linear": Self.points([[0, 0], [100, 0]]),
                "stops": Self.stops([(0, "#FF000000"), (1, "#FF0000FF")]), "extend": "none",
            ]),
        ])
        #expect(Self.rgba(image, 0, 10)[3] <= 2)
        #expect(abs(Self.rgba(image, 49, 10)[3] - 126) <= 2)
        #expect(Self.close(Self.rgba(image, 99, 10), [255, 0, 0, 254], 2))
        #expect(Self.clear(image, 150, 10))
    }

    @Test("a radial gradient: each pixel the interpolation at its distance from the centre, padded beyond")
    func radial() throws {
        let image = try Self.draw([
            "fill": .object([
                "radial": Self.points([[100, 100, 10], [100, 100, 90]]),
                "stops": Self.stops([(0, "#FFFFFF"), (1, "#000080")]),
            ])
        ])
        for (x, y) in [(100, 100), (105, 100), (120, 100), (100, 150), (150, 150), (160, 100), (190, 100), (5, 5)] {
            let distance =
                ((Double(x) + 0.5 - 100) * (Double(x) + 0.5 - 100) + (Double(y) + 0.5 - 100) * (Double(y) + 0.5 - 100))
                .squareRoot()
            let t = min(max((distance - 10) / 80, 0), 1)
            let want = [255 * (1 - t), 255 * (1 - t), 255 * (1 - t) + 128 * t].map { Int($0.rounded()) } + [255]
            let got = Self.rgba(image, x, y)
            #expect(Self.close(got, want, 2), "(\(x), \(y)) at \(distance) pt: \(got), expected \(want)")
        }
    }

    @Test("a stroke of width 10 covers 5 pt on each side of the outline; without a fill the inside stays empty")
    func strokeWidth() throws {
        let image = try Self.draw([
            "rect": Self.rect(50, 50, 100, 100), "stroke": .object(["color": "#0000FF", "width": 10]),
        ])
        for x in [45, 49, 50, 54, 145, 154] { #expect(Self.rgba(image, x, 100) == [0, 0, 255, 255], "x \(x)") }
        for x in [43, 56, 100, 143, 156] { #expect(Self.clear(image, x, 100), "x \(x)") }
    }

    @Test("a fill under a stroke: the stroke's colour on the outline, the fill's inside")
    func fillAndStroke() throws {
        let image = try Self.draw([
            "kind": "ellipse", "rect": Self.rect(50, 50, 100, 100), "fill": "#FFFF00",
            "stroke": .object(["color": "#000000", "width": 6]),
        ])
        #expect(Self.rgba(image, 100, 100) == [255, 255, 0, 255])
        #expect(Self.rgba(image, 100, 50) == [0, 0, 0, 255])
        #expect(Self.rgba(image, 100, 55) == [255, 255, 0, 255])
    }

    @Test("dash [10, 10] with butt caps: 10 pt drawn, 10 pt skipped along the line")
    func dash() throws {
        let image = try Self.draw([
            "kind": "path", "d": "M 0 100 H 200",
            "stroke": .object(["color": "#FFFFFF", "width": 4, "dash": .array([10, 10])]),
        ])
        for x in [1, 5, 8, 21, 25, 28, 41, 48] { #expect(Self.opaque(image, x, 100), "x \(x) should be drawn") }
        for x in [11, 15, 18, 31, 35, 38] { #expect(Self.clear(image, x, 100), "x \(x) should be a gap") }
        #expect(Self.clear(image, 5, 103) && Self.opaque(image, 5, 98))
        // Round caps reach 2 pt (half the width) into each gap.
        let round = try Self.draw([
            "kind": "path", "d": "M 0 100 H 200",
            "stroke": .object(["width": 4, "dash": .array([10, 10]), "cap": "round"]),
        ])
        #expect(Self.opaque(round, 10, 100) && Self.clear(round, 15, 100))
    }

    @Test("an SVG path with relative commands and arcs: a circle of two half arcs, filled")
    func pathWithArcs() throws {
        let image = try Self.draw([
            "kind": "path", "d": "M 50 100 a 50 50 0 1 0 100 0 a 50 50 0 1 0 -100 0 Z", "fill": "#FF00FF",
        ])
        #expect(Self.rgba(image, 100, 100) == [255, 0, 255, 255])
        #expect(Self.opaque(image, 100, 52) && Self.opaque(image, 52, 100) && Self.opaque(image, 130, 130))
        #expect(Self.clear(image, 100, 47) && Self.clear(image, 140, 140) && Self.clear(image, 153, 100))
    }

    @Test("fillRule evenodd cuts a hole where two subpaths overlap; nonzero fills it")
    func fillRule() throws {
        let rings = "M 20 20 h 160 v 160 h -160 Z M 60 60 h 80 v 80 h -80 Z"
        let nonzero = try Self.draw(["kind": "path", "d": .string(rings)])
        let evenodd = try Self.draw(["kind": "path", "d": .string(rings), "fillRule": "evenodd"])
        #expect(Self.opaque(nonzero, 100, 100) && Self.clear(evenodd, 100, 100))
        #expect(Self.opaque(nonzero, 30, 30) && Self.opaque(evenodd, 30, 30))
    }

    @Test("static: the same frame key at every frame, declared frame-invariant")
    func frameInvariant() throws {
        let effect = try Self.effect(["kind": "ellipse"])
        #expect(ShapeEffect.descriptor.frameInvariant)
        #expect(
            effect.frameKey(at: FrameTime(index: 0, time: 0, local: 0))
                == effect.frameKey(at: FrameTime(index: 99, time: 3.3, local: 3.3)))
    }

    @Test("parameters a kind does not use are warned about, not drawn with")
    func unusedParameters() throws {
        let effect = try Self.effect(["kind": "ellipse", "radius": 4, "d": "M 0 0 L 1 1"])
        #expect(
            effect.warnings.map(\.description) == [
                "radius: kind ellipse does not use it; it is ignored", "d: kind ellipse does not use it; it is ignored",
            ])
        let path = try Self.effect(["kind": "path", "d": "M 0 0 L 1 1", "rect": Self.rect(0, 0, 1, 1)])
        #expect(path.warnings.map(\.description) == ["rect: kind path does not use it; it is ignored"])
    }

    @Test(
        "bad fills, strokes and path data are refused, naming the parameter inside the object",
        arguments: [
            ("{\"kind\": \"path\"}", "d: missing"),
            (
                "{\"kind\": \"path\", \"d\": \"M 0 0 L 5\"}",
                "d: at character 10 (near \"M 0 0 L 5\"): expected a number (y of L)"
            ),
            ("{\"fill\": \"red\"}", "fill: expected a colour \"#RRGGBB\" or \"#RRGGBBAA\", got \"red\""),
            ("{\"fill\": 3}", "fill: expected a colour \"#RRGGBB[AA]\" or a gradient"),
            (
                "{\"fill\": {\"stops\": [[0, \"#000000\"]]}}",
                "fill: a gradient needs exactly one of \"linear\" and \"radial\""
            ),
            ("{\"fill\": {\"linear\": [[0, 0], [1, 1]]}}", "fill.stops: missing"),
            (
                "{\"fill\": {\"linear\": [[0, 0], [0, 0]], \"stops\": [[0, \"#000000\"]]}}",
                "fill.linear: the two points must differ"
            ),
            (
                "{\"fill\": {\"linear\": [[0, 0]], \"stops\": [[0, \"#000000\"]]}}",
                "fill.linear: expected [[x0, y0], [x1, y1]]"
            ),
            (
                "{\"fill\": {\"radial\": [[0, 0, -1], [0, 0, 5]], \"stops\": [[0, \"#000000\"]]}}",
                "fill.radial[0]: expected a circle"
            ),
            (
                "{\"fill\": {\"linear\": [[0, 0], [1, 1]], \"stops\": [[1, \"#000000\"], [0.5, \"#FFFFFF\"]]}}",
                "fill.stops[1]: offsets must not decrease"
            ),
            (
                "{\"fill\": {\"linear\": [[0, 0], [1, 1]], \"stops\": [[0, \"#000000\"], [2, \"#FFFFFF\"]]}}",
                "fill.stops[1]: expected [offset 0…1"
            ),
            (
                "{\"fill\": {\"linear\": [[0, 0], [1, 1]], \"stops\": [[0, \"#00000\"]]}}",
                "fill.stops[0][1]: expected a colour"
            ),
            (
                "{\"fill\": {\"linear\": [[0, 0], [1, 1]], \"stops\": [[0, \"#000000\"]], \"extend\": \"mirror\"}}",
                "fill.extend: unknown value \"mirror\""
            ),
            (
                "{\"fill\": {\"linear\": [[0, 0], [1, 1]], \"stops\": [[0, \"#000000\"]], \"spread\": \"pad\"}}",
                "fill.spread: unknown key"
            ),
            ("{\"stroke\": {\"width\": -1}}", "stroke.width"),
            ("{\"stroke\": {\"dash\": [0, 0]}}", "stroke.dash: expected up to 64 lengths"),
            ("{\"stroke\": {\"cap\": \"flat\"}}", "stroke.cap: unknown value \"flat\"; allowed: butt, round, square"),
            ("{\"stroke\": {\"colour\": \"#000000\"}}", "stroke.colour: unknown key"),
        ])
    func refused(params: String, message: String) throws {
        var values: [String: JSONValue] = [:]
        for (key, value) in try EffectParameters(json: params).values { values[key] = value }
        do {
            _ = try Self.effect(values)
            Issue.record("accepted: \(params)")
        } catch let error as EffectError {
            #expect(error.description.hasPrefix(message), "\(error.description)")
        }
    }
}
