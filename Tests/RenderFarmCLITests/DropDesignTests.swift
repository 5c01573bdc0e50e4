import CairoKit
import Foundation
import Testing

/// `parabolic-drop`'s designer controls (EffectKit article ParabolicDropMotion, "Beyond the seed"): the flight's
/// timing, spin, scale-in, the landing squash and the bounce's elasticity, against their formulas on generated
/// settings (timing curves evaluated independently of Motion, `KeyframePresetTests.ease`), read back from
/// `renderfarm trace` and from the pixels.
@Suite("parabolic-drop: timing, spin, scale-in, squash, elasticity")
struct DropDesignTests {
    static let timings: [(json: String, points: [Double])] = [
        ("\"easeIn\"", [0.42, 0, 1, 1]), ("\"easeOut\"", [0, 0, 0.58, 1]), ("\"easeInEaseOut\"", [0.42, 0, 0.58, 1]),
        ("\"easeInQuad\"", [0.11, 0, 0.5, 0]), ("\"easeOutCubic\"", [0.33, 1, 0.68, 1]),
        ("\"ease-in-out\"", [0.42, 0, 0.58, 1]), ("[0.2, 0.7, 0.4, 1]", [0.2, 0.7, 0.4, 1]),
        ("\"linear\"", [0, 0, 1, 1]),
    ]

    static func job(_ params: String, duration: Double = 2) -> String {
        """
        { "version": 1, "name": "drop-design", "seed": 11, "fps": 30, "duration": \(duration),
          "canvas": { "width": 375, "height": 667 },
          "layers": [ { "effect": "parabolic-drop", "params": { "count": 3, "stagger": 0.25, "shape": "box",
            "color": "#3366FF", "from": [320, 120], "target": { "x": 60, "y": 560, "width": 200, "height": 60 },
            \(params) } } ] }
        """
    }

    @Test("8 generated settings: position, angle and scale follow the timing, spin and scaleFrom; squash after landing")
    func generated() throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["RENDERFARM_DROP_SEED"] ?? "") ?? 0x64_726F_70
        for run in 0..<8 {
            var random = FuzzRandom(seed: seed &+ UInt64(run))
            let label = "RENDERFARM_DROP_SEED=\(seed &+ UInt64(run))"
            let timing = random.pick(Self.timings)
            let spin = random.uniform(-3, 3)
            let scaleFrom = random.uniform(0, 2)
            let squash = random.chance(0.7) ? random.uniform(0.05, 0.9) : 0
            let squashDuration = random.uniform(0.05, 0.6)
            let folder = try TemporaryFolder()
            let file = try folder.write(
                Self.job(
                    "\"timing\": \(timing.json), \"spin\": \(spin), \"scaleFrom\": \(scaleFrom), \"squash\": \(squash), "
                        + "\"squashDuration\": \(squashDuration)"), to: "job.json")
            var checked = (flight: 0, squashed: 0)
            for line in try Trace.run(file) {
                for item in line.items() where item.visible {
                    let start = item.planNumber("start")
                    let duration = item.planNumber("duration")
                    let path = item.path
                    let elapsed = (line.time - start) / duration
                    let end = path[2]
                    if elapsed < 1 {
                        let u = min(max(KeyframePresetTests.ease(timing.points, max(0, elapsed)), 0), 1)
                        let x = (1 - u) * (1 - u) * path[0].x + 2 * (1 - u) * u * path[1].x + u * u * path[2].x
                        let y = (1 - u) * (1 - u) * path[0].y + 2 * (1 - u) * u * path[1].y + u * u * path[2].y
                        #expect(
                            abs(item.x - x) < 1e-4 && abs(item.y - y) < 1e-4, "\(label) t \(line.time): \(item.object)")
                        #expect(abs(item.number("angle") - 2 * Double.pi * spin * u) < 1e-4, "\(label) angle")
                        let scale = scaleFrom + (1 - scaleFrom) * u
                        #expect(abs(item.number("scaleX") - scale) < 1e-4 && abs(item.number("scaleY") - scale) < 1e-4)
                        checked.flight += 1
                    } else {
                        #expect(item.x == end.x && item.y == end.y, "\(label): held at the end")
                        #expect(abs(item.number("angle") - 2 * Double.pi * spin) < 1e-9)
                        let since = line.time - (start + duration)
                        let pulse = since < squashDuration ? squash * sin(Double.pi * since / squashDuration) : 0
                        #expect(abs(item.number("scaleY") - (1 - pulse)) < 1e-4, "\(label) t \(line.time) squash")
                        #expect(abs(item.number("scaleX") - (1 + pulse)) < 1e-4)
                        if pulse > 0 { checked.squashed += 1 }
                    }
                }
            }
            #expect(checked.flight > 20, "\(label): \(checked)")
            #expect(squash == 0 || squashDuration < 1.0 / 30 || checked.squashed > 0, "\(label): \(checked)")
        }
    }

    @Test("a squashed item keeps its bottom edge: the painted box is lower and wider, its bottom where it was")
    func squashPixels() throws {
        let folder = try TemporaryFolder()
        // One item, landing at 0.6 s (+ 0, 0.04 or 0.08: its random duration); at 0.3 s of a 0.6 s squash it is
        // flattened most.
        let plain = try folder.write(
            Self.job("\"count\": 1, \"squash\": 0", duration: 1.5).replacingOccurrences(
                of: "\"count\": 3, \"stagger\": 0.25,", with: ""), to: "plain.json")
        let squashed = try folder.write(
            Self.job("\"count\": 1, \"squash\": 0.5, \"squashDuration\": 0.6", duration: 1.5)
                .replacingOccurrences(of: "\"count\": 3, \"stagger\": 0.25,", with: ""), to: "squashed.json")
        let landing = try #require(Trace.run(plain, frames: "0").first?.items().first?.planNumber("duration"))
        let frame = Int(((landing + 0.3) * 30).rounded())
        var boxes: [(minX: Int, maxX: Int, minY: Int, maxY: Int)] = []
        for job in [plain, squashed] {
            let out = folder.url.appendingPathComponent(UUID().uuidString)
            let render = CLI.run(["render", job, "--frames", "\(frame)", "--out", out.path, "--progress", "none"])
            try #require(render.status == 0, "\(render.stderr)")
            let png = try #require(
                try FileManager.default.contentsOfDirectory(atPath: out.path).first { $0.hasSuffix(".png") })
            let image = try ImageSurface(contentsOfPNG: out.appendingPathComponent(png).path)
            let box = try #require(DebugOverlayTests.box(image) { pixel, _, _ in pixel.a > 128 })
            boxes.append((minX: box.0, maxX: box.2, minY: box.1, maxY: box.3))
        }
        let (before, after) = (boxes[0], boxes[1])
        let pulse = 0.5 * sin(Double.pi * (Double(frame) / 30 - landing) / 0.6)
        let height = Double(before.maxY - before.minY + 1)
        #expect(abs(after.maxY - before.maxY) <= 1, "bottom edge \(before) → \(after)")
        #expect(abs(Double(after.maxY - after.minY + 1) - height * (1 - pulse)) <= 2, "\(before) → \(after)")
        #expect(abs(Double(after.maxX - after.minX + 1) - Double(before.maxX - before.minX + 1) * (1 + pulse)) <= 2)
    }

    @Test("onLand bounce: the rebound rises with elasticity, none at 0")
    func elasticity() throws {
        var rebounds: [Double] = []
        for elasticity in [0.0, 0.3, 0.6, 0.9] {
            let folder = try TemporaryFolder()
            let file = try folder.write(
                Self.job("\"onLand\": \"bounce\", \"elasticity\": \(elasticity)", duration: 2.5)
                    .replacingOccurrences(of: "\"count\": 3, \"stagger\": 0.25,", with: "\"count\": 1,"),
                to: "job.json")
            let lines = try Trace.run(file)
            let item = try #require(lines.first?.items().first)
            let landed = item.planNumber("start") + item.planNumber("duration")
            // How far above where it lands (its centre half its height above the edge) the item climbs after.
            let size = (item.plan["size"] as? [NSNumber])?.last?.doubleValue ?? 0
            let landing = try #require(item.path.last).y - size / 2
            let after = lines.filter { $0.time > landed + 0.02 }.compactMap { $0.items().first(where: \.visible)?.y }
            rebounds.append(landing - (after.min() ?? landing))
        }
        #expect(rebounds[0] < 1, "\(rebounds)")
        #expect(rebounds[1] > rebounds[0] + 5 && rebounds[2] > rebounds[1] && rebounds[3] > rebounds[2], "\(rebounds)")
    }

    @Test("bad settings are refused at their parameter, with a suggestion")
    func refusals() throws {
        let folder = try TemporaryFolder()
        for (params, message) in [
            (
                "\"timing\": \"easeInOutQuadd\"",
                "unknown timing function \"easeInOutQuadd\" (did you mean \"easeInOutQuad\"?)"
            ),
            ("\"timing\": [0.5, 0, 1.5, 1]", "x1 and x2 in 0…1"),
            ("\"timing\": 3", "expected a timing function's name or a cubic Bézier"),
            ("\"squash\": 0.95", "squash"),
        ] {
            try folder.expectRefused(Self.job(params), saying: message, label: params)
        }
    }
}
