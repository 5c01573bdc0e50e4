import Foundation
import Testing

/// Named easing presets on keyframes (the RenderFarm article ComposingLayers, "Keyframes"), measured in the PNGs:
/// a square moved 100 points by each preset is where an independent cubic Bézier solver puts it, at every frame.
@Suite("Keyframe presets: CSS keywords and Penner curves as cubic Béziers")
struct KeyframePresetTests {
    /// The control points as CSS Easing Functions Level 1 and easings.net give them.
    static let presets: [(String, [Double])] = [
        ("ease", [0.25, 0.1, 0.25, 1]), ("ease-in", [0.42, 0, 1, 1]), ("ease-out", [0, 0, 0.58, 1]),
        ("ease-in-out", [0.42, 0, 0.58, 1]), ("easeInSine", [0.12, 0, 0.39, 0]), ("easeOutSine", [0.61, 1, 0.88, 1]),
        ("easeInOutSine", [0.37, 0, 0.63, 1]), ("easeInQuad", [0.11, 0, 0.5, 0]), ("easeOutQuad", [0.5, 1, 0.89, 1]),
        ("easeInOutQuad", [0.45, 0, 0.55, 1]), ("easeInCubic", [0.32, 0, 0.67, 0]),
        ("easeOutCubic", [0.33, 1, 0.68, 1]), ("easeInOutCubic", [0.65, 0, 0.35, 1]),
        ("easeInQuart", [0.5, 0, 0.75, 0]), ("easeOutQuart", [0.25, 1, 0.5, 1]),
        ("easeInOutQuart", [0.76, 0, 0.24, 1]), ("easeInQuint", [0.64, 0, 0.78, 0]),
        ("easeOutQuint", [0.22, 1, 0.36, 1]), ("easeInOutQuint", [0.83, 0, 0.17, 1]),
        ("easeInExpo", [0.7, 0, 0.84, 0]), ("easeOutExpo", [0.16, 1, 0.3, 1]), ("easeInOutExpo", [0.87, 0, 0.13, 1]),
        ("easeInCirc", [0.55, 0, 1, 0.45]), ("easeOutCirc", [0, 0.55, 0.45, 1]), ("easeInOutCirc", [0.85, 0, 0.15, 1]),
        ("easeInBack", [0.36, 0, 0.66, -0.56]), ("easeOutBack", [0.34, 1.56, 0.64, 1]),
        ("easeInOutBack", [0.68, -0.6, 0.32, 1.6]),
    ]

    /// y at x of the cubic Bézier from (0, 0) to (1, 1) through (x1, y1), (x2, y2): x's parameter by bisection.
    static func ease(_ points: [Double], _ x: Double) -> Double {
        func bezier(_ a: Double, _ b: Double, _ s: Double) -> Double {
            3 * (1 - s) * (1 - s) * s * a + 3 * (1 - s) * s * s * b + s * s * s
        }
        var (low, high) = (0.0, 1.0)
        for _ in 0..<60 {
            let middle = (low + high) / 2
            if bezier(points[0], points[2], middle) < x { low = middle } else { high = middle }
        }
        return bezier(points[1], points[3], (low + high) / 2)
    }

    @Test("every preset moves a square as its curve says (28 presets × 11 frames)")
    func presetsMove() throws {
        // Each preset moves its own 10-point square from x = 20 to x = 120 over one second, one row each.
        let layers = Self.presets.enumerated().map { index, preset in
            LayerCompositionTests.probe(
                [0, Double(index * 4), 10, 3], [0, 0, 1, 1],
                #""transform": {"anchor": [0, 0], "position": {"keyframes": [{"t": 0, "value": [20, 0]}, {"t": 1, "value": [120, 0], "timing": "\#(preset.0)"}]}}"#
            )
        }
        let folder = try TemporaryFolder()
        let job = try folder.write(
            """
            {"name": "presets", "canvas": {"width": 160, "height": \(Self.presets.count * 4), "scale": 1, "background": "#00000000"},
             "fps": 10, "duration": 1.1, "output": {"dir": "out"}, "layers": [\(layers.joined(separator: ", "))]}
            """, to: "job.json")
        let result = CLI.run(["render", job, "--progress", "none"] + LayerCompositionTests.plugins)
        try #require(result.status == 0, "\(result.stderr)")
        for frame in 0...10 {
            let image = try LayerCompositionTests.frame(folder.url.appendingPathComponent("out"), frame)
            for (index, preset) in Self.presets.enumerated() {
                // The square's left edge: its first column with ink, less that column's coverage.
                let y = index * 4 + 1
                guard let first = (0..<160).first(where: { LayerCompositionTests.rgba(image, $0, y)[3] > 0 }) else {
                    Issue.record("\(preset.0): nothing drawn at frame \(frame)")
                    continue
                }
                let edge = Double(first) + 1 - Double(LayerCompositionTests.rgba(image, first, y)[3]) / 255
                let expected = 20 + 100 * Self.ease(preset.1, Double(frame) / 10)
                #expect(abs(edge - expected) <= 0.02, "\(preset.0) at frame \(frame): \(edge), expected \(expected)")
            }
        }
    }

    @Test("a misspelt preset is refused with a suggestion")
    func misspelt() throws {
        let folder = try TemporaryFolder()
        let layer = LayerCompositionTests.probe(
            [0, 0, 10, 10], [1, 0, 0, 1],
            #""opacity": {"keyframes": [{"t": 0, "value": 0}, {"t": 1, "value": 1, "timing": "easeOutBak"}]}"#)
        let job = try folder.write(
            #"{"name": "p", "canvas": {"width": 20, "height": 20}, "fps": 10, "duration": 1, "layers": [\#(layer)]}"#,
            to: "job.json")
        let result = CLI.run(["validate", job] + LayerCompositionTests.plugins)
        #expect(result.status == 65)
        #expect(
            result.stderr.contains(
                "layers[0].opacity.keyframes[1].timing: unknown timing \"easeOutBak\" (did you mean \"easeOutBack\"?)"),
            "\(result.stderr)")
    }
}
