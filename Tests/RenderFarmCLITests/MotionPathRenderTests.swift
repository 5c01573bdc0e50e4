import CairoKit
import Foundation
import Testing

/// A layer's motion path (`transform.path`, RenderFarm article ComposingLayers, "Motion path"), through the real
/// binary: a bar that follows generated paths, found in the frames where the path's own geometry, measured here
/// independently, says it must be and facing the way it says.
@Suite("Motion paths, rendered")
struct MotionPathRenderTests {
    /// A generated stroke of lines, cubic and quadratic curves: its SVG data and a dense polyline along it.
    struct Stroke {
        var data = ""
        var points: [(x: Double, y: Double)] = []

        init(random: inout FuzzRandom) {
            func point() -> (Double, Double) { (random.uniform(50, 250), random.uniform(50, 250)) }
            var current = point()
            data = "M \(current.0) \(current.1)"
            points = [current]
            for _ in 0..<random.integer(1...4) {
                let end = point()
                switch random.integer(0...2) {
                case 0:
                    data += " L \(end.0) \(end.1)"
                    sample { t in (current.0 + (end.0 - current.0) * t, current.1 + (end.1 - current.1) * t) }
                case 1:
                    let (c1, c2) = (point(), point())
                    data += " C \(c1.0) \(c1.1) \(c2.0) \(c2.1) \(end.0) \(end.1)"
                    let start = current
                    sample { t in
                        let u = 1 - t
                        let (a, b, c, d) = (u * u * u, 3 * u * u * t, 3 * u * t * t, t * t * t)
                        return (
                            a * start.0 + b * c1.0 + c * c2.0 + d * end.0, a * start.1 + b * c1.1 + c * c2.1 + d * end.1
                        )
                    }
                default:
                    let c = point()
                    data += " Q \(c.0) \(c.1) \(end.0) \(end.1)"
                    let start = current
                    sample { t in
                        let u = 1 - t
                        return (
                            u * u * start.0 + 2 * u * t * c.0 + t * t * end.0,
                            u * u * start.1 + 2 * u * t * c.1 + t * t * end.1
                        )
                    }
                }
                current = end
            }
        }

        /// The cubic Bézier from `p0` to `p3` with control points `p1` and `p2`.
        init(cubic p0: (Double, Double), _ p1: (Double, Double), _ p2: (Double, Double), _ p3: (Double, Double)) {
            points = [p0]
            sample { t in
                let u = 1 - t
                let (a, b, c, d) = (u * u * u, 3 * u * u * t, 3 * u * t * t, t * t * t)
                return (a * p0.0 + b * p1.0 + c * p2.0 + d * p3.0, a * p0.1 + b * p1.1 + c * p2.1 + d * p3.1)
            }
        }

        private mutating func sample(_ curve: (Double) -> (Double, Double)) {
            for step in 1...20_000 { points.append(curve(Double(step) / 20_000)) }
        }

        /// The point `fraction` of the length along, and the direction there (radians), by the polyline.
        func place(at fraction: Double) -> (x: Double, y: Double, direction: Double) {
            var lengths = [0.0]
            for (a, b) in zip(points, points.dropFirst()) {
                lengths.append(lengths.last! + hypot(b.x - a.x, b.y - a.y))
            }
            let target = fraction * lengths.last!
            let index = max(1, lengths.firstIndex { $0 >= target } ?? lengths.count - 1)
            let (a, b) = (points[index - 1], points[index])
            let piece = lengths[index] - lengths[index - 1]
            let f = piece > 0 ? (target - lengths[index - 1]) / piece : 0
            return (a.x + (b.x - a.x) * f, a.y + (b.y - a.y) * f, atan2(b.y - a.y, b.x - a.x))
        }
    }

    /// The centroid and the long axis's direction (radians, modulo π) of the red pixels of `image`.
    static func bar(in image: ImageSurface) -> (x: Double, y: Double, axis: Double)? {
        var (count, sx, sy, sxx, syy, sxy) = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
        for y in 0..<image.height {
            for x in 0..<image.width {
                let pixel = image.pixel(x: x, y: y)
                let weight = Double(pixel.a) / 255
                guard weight > 0 else { continue }
                let (px, py) = (Double(x) + 0.5, Double(y) + 0.5)
                count += weight
                sx += weight * px
                sy += weight * py
                sxx += weight * px * px
                syy += weight * py * py
                sxy += weight * px * py
            }
        }
        guard count > 0 else { return nil }
        let (mx, my) = (sx / count, sy / count)
        let (cxx, cyy, cxy) = (sxx / count - mx * mx, syy / count - my * my, sxy / count - mx * my)
        return (mx, my, 0.5 * atan2(2 * cxy, cxx - cyy))
    }

    /// Renders 10 frames (1 s at 10 fps, 300 × 300 pixels) of a red rect `rect` about the anchor [0, 0], placed by
    /// `transform` (the JSON members after the anchor), and finds it in each: nil where nothing is drawn.
    static func placed(_ rect: String, transform: String, label: String) throws -> [(
        x: Double, y: Double, axis: Double
    )?] {
        let folder = try TemporaryFolder()
        let file = try folder.write(
            """
            { "version": 1, "name": "placed", "fps": 10, "duration": 1,
              "canvas": { "width": 300, "height": 300, "scale": 1 }, "output": { "dir": "out" },
              "layers": [ { "effect": "shape", "params": { "rect": \(rect), "fill": "#FF0000" },
                            "transform": { "anchor": [0, 0], \(transform) } } ] }
            """, to: "job.json")
        let render = CLI.run(["render", file, "--progress", "none"])
        try #require(render.status == 0, "\(label): \(render.stderr)")
        return try (0..<10).map { frame in
            let path = folder.url.appendingPathComponent(String(format: "out/frame_%05d.png", frame)).path
            return Self.bar(in: try ImageSurface(contentsOfPNG: path))
        }
    }

    @Test("12 generated paths and progress keyframes: the bar's centre within 0.5 px, its direction within 2°")
    func barFollowsPath() throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["RENDERFARM_PATH_SEED"] ?? "") ?? 0x7061_7468
        for run in 0..<12 {
            var random = FuzzRandom(seed: seed &+ UInt64(run))
            let label = "RENDERFARM_PATH_SEED=\(seed &+ UInt64(run))"
            let stroke = Stroke(random: &random)
            let (from, to) = (random.uniform(0, 1), random.uniform(0, 1))
            let rotation = random.uniform(-90, 90)
            let found = try Self.placed(
                #"{ "x": -20, "y": -3, "width": 40, "height": 6 }"#,
                transform: """
                    "rotation": \(rotation), "path": { "d": "\(stroke.data)", "autoOrient": true,
                      "progress": { "keyframes": [ { "t": 0, "value": \(from) }, { "t": 0.9, "value": \(to) } ] } }
                    """, label: label)
            for (frame, got) in found.enumerated() {
                let progress = from + (to - from) * min(1, Double(frame) / 10 / 0.9)
                let want = stroke.place(at: progress)
                guard let got else {
                    Issue.record("\(label): frame \(frame) has no bar")
                    continue
                }
                #expect(
                    hypot(got.x - want.x, got.y - want.y) < 0.5,
                    "\(label): frame \(frame) bar at (\(got.x), \(got.y)), path at (\(want.x), \(want.y)) \(stroke.data)"
                )
                // The axis is a direction modulo a half turn.
                var turn = (got.axis - want.direction - rotation * .pi / 180).truncatingRemainder(dividingBy: .pi)
                if turn > .pi / 2 { turn -= .pi }
                if turn < -.pi / 2 { turn += .pi }
                #expect(
                    abs(turn) < 2 * .pi / 180,
                    "\(label): frame \(frame) bar turned \(got.axis * 180 / .pi)°, path \(want.direction * 180 / .pi)°")
            }
        }
    }

    @Test("8 generated position keyframes with spatial tangents: a square's centre on the curve by length, 0.5 px")
    func spatialTangents() throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["RENDERFARM_PATH_SEED"] ?? "") ?? 0x7061_7468
        for run in 0..<8 {
            var random = FuzzRandom(seed: seed &+ UInt64(run) &+ 100)
            let label = "RENDERFARM_PATH_SEED=\(seed &+ UInt64(run)) (tangents)"
            func point() -> (Double, Double) { (random.uniform(60, 240), random.uniform(60, 240)) }
            let (from, to) = (point(), point())
            let (out, into) = (
                (random.uniform(-120, 120), random.uniform(-120, 120)),
                (random.uniform(-120, 120), random.uniform(-120, 120))
            )
            let stroke = Stroke(
                cubic: from, (from.0 + out.0, from.1 + out.1), (to.0 + into.0, to.1 + into.1), to)
            let found = try Self.placed(
                #"{ "x": -4, "y": -4, "width": 8, "height": 8 }"#,
                transform: """
                    "position": { "keyframes": [
                      { "t": 0, "value": [\(from.0), \(from.1)], "outTangent": [\(out.0), \(out.1)] },
                      { "t": 0.9, "value": [\(to.0), \(to.1)], "inTangent": [\(into.0), \(into.1)] } ] }
                    """, label: label)
            for (frame, got) in found.enumerated() {
                let want = stroke.place(at: min(1, Double(frame) / 10 / 0.9))
                guard let got else {
                    Issue.record("\(label): frame \(frame) has no square")
                    continue
                }
                #expect(
                    hypot(got.x - want.x, got.y - want.y) < 0.5,
                    "\(label): frame \(frame) square at (\(got.x), \(got.y)), curve at (\(want.x), \(want.y))")
            }
        }
    }

    @Test(
        "a bad motion path is refused by validate at its place (exit 65)",
        arguments: [
            (
                #""path": {"d": "M 0 0 L 10 0 M 20 20 L 30 30", "progress": 0}"#,
                "transform.path.d: a motion path is one stroke"
            ),
            (#""path": {"d": "M 10 10", "progress": 0}"#, "transform.path.d: the path has no length"),
            (#""path": {"d": "M 0 0 L", "progress": 0}"#, "transform.path.d: path data at character"),
            (
                #""path": {"d": "M 0 0 L 9 9", "progress": 1.5}"#,
                "transform.path.progress: expected a fraction of the path 0…1"
            ),
            (#""path": {"d": "M 0 0 L 9 9"}"#, "transform.path.progress: missing"),
            (#""path": {"progress": 0}"#, "transform.path.d: missing"),
            (
                #""path": {"d": "M 0 0 L 9 9", "progress": 0, "autoOrient": "yes"}"#,
                "transform.path.autoOrient: expected true or false"
            ),
            (
                #""path": {"d": "M 0 0 L 9 9", "progress": 0}, "position": [1, 1]"#,
                "transform.path: give position or path, not both"
            ),
        ])
    func refused(_ transform: String, _ message: String) throws {
        let folder = try TemporaryFolder()
        let file = try folder.write(
            """
            { "version": 1, "name": "path", "fps": 10, "duration": 1, "canvas": { "width": 300, "height": 300 },
              "layers": [ { "effect": "shape", "params": { "fill": "#FF0000" },
                "transform": { \(transform) } } ] }
            """, to: "job.json")
        let validate = CLI.run(["validate", file])
        #expect(validate.status == 65, "\(validate.stderr)")
        #expect(validate.stderr.contains(message), "\(validate.stderr)")
    }
}
