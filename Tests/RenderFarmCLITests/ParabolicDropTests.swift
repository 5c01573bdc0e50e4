import CairoKit
import Foundation
import Testing

/// The parabola of EffectKit article ParabolicDropMotion ("Test vectors") as a job: start centre S = (60, 300)
/// (item 20 pt tall, so its top is 290 and the control point 140 above it is at y = 150), target centre x 250
/// (+ 3k), top edge y = 500. Items whose random deviation is 0 get exactly S, C = (117, 150), E = (250, 500).
/// 100 fps puts frames on u = 0.25, 0.5, 0.75 for all three durations (0.60, 0.64, 0.68 s).
private func parabolaJob(sampling: String, stagger: Double = 0.1, duration: Double = 2, extra: String = "") -> String {
    """
    { "seed": 3, "canvas": {"width": 375, "height": 667, "scale": 1}, "fps": 100, "duration": \(duration),
      "layers": [ { "effect": "parabolic-drop", "params": { "count": 8, "from": [60, 300], "size": 20,
        "arcHeight": 140, "target": {"x": 200, "y": 500, "width": 100, "height": 50}, "stagger": \(stagger),
        "pathSampling": "\(sampling)"\(extra) } } ] }
    """
}

/// One row of the parabola table (Motion article KeyframePaths).
private struct ParabolaVector: Sendable, CustomTestStringConvertible {
    let u: Double
    let bezier: (Double, Double)
    let paced: (Double, Double)
    var testDescription: String { "u = \(u)" }
}

private let vectors = [
    ParabolaVector(u: 0.25, bezier: (93.250, 256.250), paced: (124.119, 264.224)),
    ParabolaVector(u: 0.50, bezier: (136.000, 275.000), paced: (177.470, 335.783)),
    ParabolaVector(u: 0.75, bezier: (188.250, 356.250), paced: (216.384, 416.708)),
]

/// The physics defaults the tests rely on (EffectKit article UIKitDynamics).
private enum PhysicsDefaults {
    static let timestep = 1.0 / 240
}

/// B(u) of a quadratic Bezier.
private func quadratic(_ p: [(x: Double, y: Double)], _ u: Double) -> (x: Double, y: Double) {
    let s = 1 - u
    return (s * s * p[0].x + 2 * s * u * p[1].x + u * u * p[2].x, s * s * p[0].y + 2 * s * u * p[1].y + u * u * p[2].y)
}

@Suite("parabolic-drop traced against ParabolicDropMotion and the seed")
struct ParabolicDropTests {
    @Test("every item's plan follows the seed: S, C = (S.x + 0.3·distance, top − arc), E on the top edge")
    func plans() throws {
        let folder = try TemporaryFolder()
        let lines = try Trace.run(try folder.write(parabolaJob(sampling: "bezier"), to: "drop.json"), frames: "0")
        let items = lines[0].items()
        #expect(items.count == 8)
        var durations = Set<Double>()
        for item in items {
            let path = item.path
            try #require(path.count == 3)
            #expect(path[0] == (60, 300))
            #expect([250.0, 253, 256, 259, 262].contains(path[2].x) && path[2].y == 500)
            #expect(abs(path[1].x - (60 + 0.3 * (path[2].x - 60))) < 1e-9 && path[1].y == 150)
            #expect(abs(item.planNumber("start") - Double(item.id) * 0.1) < 1e-9)
            durations.insert((item.planNumber("duration") * 100).rounded() / 100)
        }
        #expect(durations == [0.6, 0.64, 0.68])
    }

    @Test("bezier sampling: positions are B(u), and the KeyframePaths bezier vectors to 1e-3", arguments: vectors)
    fileprivate func bezier(_ vector: ParabolaVector) throws {
        try checkVector(sampling: "bezier", vector.u, expected: vector.bezier)
    }

    @Test("paced sampling: the KeyframePaths paced vectors to 0.01 pt", arguments: vectors)
    fileprivate func paced(_ vector: ParabolaVector) throws {
        try checkVector(sampling: "paced", vector.u, expected: vector.paced, tolerance: 0.01)
    }

    /// Checks every item whose path is the test-vector one at the frame where its progress is `u`.
    private func checkVector(
        sampling: String, _ u: Double, expected: (Double, Double), tolerance: Double = 1e-3
    ) throws {
        let folder = try TemporaryFolder()
        let lines = try Trace.run(try folder.write(parabolaJob(sampling: sampling), to: "drop.json"))
        let exact = lines[0].items().filter { $0.path.count == 3 && $0.path[2].x == 250 }
        try #require(exact.count >= 2, "seed 3 gives two items with deviation 0")
        for plan in exact {
            let time = plan.planNumber("start") + u * plan.planNumber("duration")
            let frame = Int((time * 100).rounded())
            let item = try #require(lines[frame].items().first { $0.id == plan.id })
            #expect(item.visible)
            #expect(
                abs(item.x - expected.0) < tolerance && abs(item.y - expected.1) < tolerance,
                "item \(plan.id) at frame \(frame): (\(item.x), \(item.y))")
        }
        guard sampling == "bezier" else { return }
        // Every item, every frame of its flight: the centre is B((t − start) / duration).
        for line in lines {
            for item in line.items() where item.visible {
                let progress = (line.time - item.planNumber("start")) / item.planNumber("duration")
                guard progress < 1 else { continue }
                let point = quadratic(item.path, progress)
                #expect(abs(item.x - point.x) < 1e-6 && abs(item.y - point.y) < 1e-6)
            }
        }
    }

    @Test("hidden before launch, held at the end afterwards (onLand stop), arriving with B'(1)/duration")
    func timeline() throws {
        let folder = try TemporaryFolder()
        let lines = try Trace.run(try folder.write(parabolaJob(sampling: "bezier"), to: "drop.json"))
        for item in lines[0].items() { #expect(item.visible == (item.id == 0)) }
        for item in lines[199].items() {
            #expect(item.visible && item.x == item.path[2].x && item.y == 500 && item.vx == 0 && item.vy == 0)
        }
        // Just before landing the velocity is the tangent 2(E − C) / duration.
        let first = try #require(lines[0].items().first)
        let frame = Int(((first.planNumber("start") + first.planNumber("duration")) * 100).rounded(.down)) - 1
        let late = try #require(lines[frame].items().first)
        let path = late.path
        let u = (lines[frame].time - late.planNumber("start")) / late.planNumber("duration")
        let duration = late.planNumber("duration")
        let vy = (2 * (1 - u) * (path[1].y - path[0].y) + 2 * u * (path[2].y - path[1].y)) / duration
        #expect(abs(late.vy - vy) < 1e-6)
    }

    @Test("a rendered frame shows the item where the trace says")
    func pixelsMatchTrace() throws {
        let folder = try TemporaryFolder()
        let job = try folder.write(
            """
            { "seed": 1, "canvas": {"width": 200, "height": 200, "scale": 2}, "fps": 10, "duration": 1, "frames": "4",
              "layers": [ { "effect": "parabolic-drop", "params": { "count": 1, "from": [20, 180], "size": 24,
                "shape": "circle", "color": "#00FF00", "target": {"x": 120, "y": 150, "width": 60, "height": 20} } } ] }
            """, to: "pixel.json")
        let item = try #require(try Trace.run(job).first?.items().first)
        #expect(item.visible)
        let out = folder.url.appendingPathComponent("out")
        let render = CLI.run(["render", job, "--out", out.path, "--progress", "none"])
        try #require(render.status == 0, "\(render.stderr)")
        let image = try ImageSurface(contentsOfPNG: out.appendingPathComponent("frame_00004.png").path)
        let centre = image.pixel(x: Int(item.x * 2), y: Int(item.y * 2))
        #expect(centre.g == 255 && centre.r == 0 && centre.a == 255)
        // 16 pt from the centre is outside the 12 pt radius.
        #expect(image.pixel(x: Int((item.x + 16) * 2), y: Int(item.y * 2)).a == 0)
        #expect(image.pixel(x: Int(item.x * 2), y: Int((item.y - 16) * 2)).a == 0)
    }

    @Test("onLand bounce: items rest on, never in, the target's edge and do not overlap")
    func landsAndBounces() throws {
        let folder = try TemporaryFolder()
        let job = try folder.write(
            parabolaJob(sampling: "bezier", stagger: 0.2, duration: 4, extra: #", "onLand": "bounce""#),
            to: "bounce.json")
        let lines = try Trace.run(job)
        var handedOver = Set<Int>()
        for line in lines {
            let items = line.items().filter(\.visible)
            for item in items where item.resting != nil {
                handedOver.insert(item.id)
                #expect(
                    item.y + 10 <= 500.5, "item \(item.id) is \(item.y + 10 - 500) pt inside the edge at \(line.time)")
            }
            // Colliding items overlap at most by what one step at their closing speed (≤ 1200 pt/s) allows,
            // like any Chipmunk (or Box2D) contact between moving bodies; at rest by almost nothing.
            let allowed = line.frame == lines.count - 1 ? 0.25 : 1200 * PhysicsDefaults.timestep
            for a in items where a.resting != nil {
                for b in items where b.id > a.id && b.resting != nil {
                    let overlap = min(20 - abs(a.x - b.x), 20 - abs(a.y - b.y))
                    #expect(overlap < allowed, "items \(a.id), \(b.id) overlap \(overlap) pt at \(line.time)")
                }
            }
        }
        #expect(handedOver.count == 8)
        let first = CLI.run(["trace", job])
        let second = CLI.run(["trace", job])
        #expect(first.status == 0 && !first.stdout.isEmpty && first.stdout == second.stdout)
    }
}
