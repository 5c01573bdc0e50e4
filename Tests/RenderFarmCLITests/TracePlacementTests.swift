import CairoKit
import Foundation
import Testing

/// Issue 43: `trace` reports each item where it is drawn, through the transforms of its layer and
/// groups at their own times (the RenderFarm article ComposingLayers, "Trace and the debug overlay").
@Suite("trace through layer and group transforms")
struct TracePlacementTests {
    /// Each run draws a new seed; RENDERFARM_TRACE_SEED replays one (failures print it).
    static let seed =
        ProcessInfo.processInfo.environment["RENDERFARM_TRACE_SEED"].flatMap { UInt64($0) }
        ?? UInt64.random(in: 1...999_999_999)
    /// Generated jobs: `batches` tests (run side by side) of `casesPerBatch` jobs each.
    static let batches = 4
    static let casesPerBatch = 12
    /// Items fainter or smaller than this (alpha, scale as traced) need not leave a pixel.
    static let alphaFloor = 0.2
    static let scaleFloor = 0.3

    /// A parabolic-drop of one red box that lands at about (90, 130) by 0.7 s, with `fields` (host
    /// fields of its layer) or inside `group` (a group's fields, the layer inside it).
    static func dropJob(fields: String = "", group: String? = nil) -> String {
        let drop =
            #"{"effect": "parabolic-drop", "params": {"count": 1, "from": [30, 40], "size": 20, "shape": "box", "#
            + ##""color": "#FF0000", "target": {"x": 80, "y": 130, "width": 20, "height": 10}}"##
            + (fields.isEmpty ? "" : ", " + fields) + "}"
        let layer = group.map { #"{"group": [\#(drop)], \#($0)}"# } ?? drop
        return #"""
            {"name": "placed", "seed": 7, "canvas": {"width": 200, "height": 200, "scale": 2}, "fps": 10,
             "duration": 2, "output": {"dir": "out"}, "layers": [\#(layer)]}
            """#
    }

    @Test("a drop translated by +50 pt reports x + 50 and its path + 50, drawn there; the rest unchanged")
    func translated() throws {
        let folder = try TemporaryFolder()
        let plain = try Trace.run(try folder.write(Self.dropJob(), to: "plain.json"))
        let moved = try folder.write(Self.dropJob(fields: #""transform": {"position": [150, 100]}"#), to: "moved.json")
        let placed = try Trace.run(moved)
        try #require(plain.count == 20 && placed.count == 20)
        for (a, b) in zip(plain, placed) {
            try #require(a.items().count == 1 && b.items().count == 1, "frame \(a.frame)")
            let (before, after) = (a.items()[0], b.items()[0])
            #expect(abs(after.x - (before.x + 50)) < 1e-9 && after.y == before.y, "frame \(a.frame)")
            #expect(zip(before.path, after.path).allSatisfy { abs($1.x - ($0.x + 50)) < 1e-9 && $1.y == $0.y })
            #expect(after.vx == before.vx && after.vy == before.vy && after.scale == before.scale)
            #expect(after.alpha == before.alpha && after.visible == before.visible)
            #expect(b.matrices[0] == [1, 0, 0, 1, 50, 0])
            #expect(a.matrices[0] == nil, "a layer without transform has no matrix")
        }
        // Landed: the box is drawn at the reported x, not at the plugin's own.
        let result = CLI.run(["render", moved, "--frames", "15", "--progress", "none"])
        try #require(result.status == 0, "\(result.stderr)")
        let image = try ImageSurface(contentsOfPNG: folder.url.appendingPathComponent("out/frame_00015.png").path)
        let item = placed[15].items()[0]
        #expect(image.pixel(x: Int(item.x * 2), y: Int(item.y * 2)).a == 255)
        #expect(image.pixel(x: Int((item.x - 50) * 2), y: Int(item.y * 2)).a == 0)
    }

    @Test("in a group scaled 2× about (100, 100), from 0.5 s at speed 2: position, path, scale, velocity follow")
    func grouped() throws {
        let folder = try TemporaryFolder()
        let plain = try Trace.run(try folder.write(Self.dropJob(), to: "plain.json"))
        let group = #""start": 0.5, "speed": 2, "transform": {"anchor": [100, 100], "scale": 2}"#
        let placed = try Trace.run(try folder.write(Self.dropJob(group: group), to: "group.json"))
        #expect(placed.filter { $0.frame < 5 }.allSatisfy { $0.layers.isEmpty }, "a group is drawn from its start")
        for line in placed where line.frame >= 5 && 2 * line.frame - 10 < plain.count {
            // Job time t is the group's (and the layer's) time (t − 0.5) × 2: frame 2t·10 − 10 of the plain job.
            let own = plain[2 * line.frame - 10].items()[0]
            let item = try #require(line.items().first)
            let map = { (x: Double, y: Double) in (100 + 2 * (x - 100), 100 + 2 * (y - 100)) }
            let expected = map(own.x, own.y)
            #expect(abs(item.x - expected.0) < 1e-6 && abs(item.y - expected.1) < 1e-6, "frame \(line.frame)")
            #expect(zip(own.path, item.path).allSatisfy { abs(map($0.x, $0.y).0 - $1.x) < 1e-6 })
            #expect(item.scale == 2 * own.scale)
            #expect(abs(item.vx - 4 * own.vx) < 1e-6 && abs(item.vy - 4 * own.vy) < 1e-6, "2× larger, 2× faster")
            #expect(line.matrices[0] == [2, 0, 0, 2, -100, -100])
        }
    }

    @Test(
        "generated jobs: every visible traced item has a drawn pixel at its reported point",
        arguments: 0..<batches)
    func pixels(batch: Int) throws {
        let folder = try TemporaryFolder()
        let jobs = (0..<Self.casesPerBatch).map { index in
            PlacedJob(
                seed: Self.seed &+ UInt64(batch * Self.casesPerBatch + index) &* 0x9E37_79B9_7F4A_7C15,
                output: "out-\(index)")
        }
        let paths = try jobs.enumerated().map { index, job in try folder.write(job.text, to: "job-\(index).json") }
        let render = CLI.run(["render"] + paths + ["-j", "2", "--progress", "none"])
        try #require(render.status == 0, "seed \(Self.seed): \(render.stderr)")
        var checked = 0
        for (index, job) in jobs.enumerated() {
            let traced = CLI.run(["trace", paths[index]])
            try #require(traced.status == 0, "seed \(Self.seed): \(traced.stderr)")
            let out = folder.url.appendingPathComponent("out-\(index)")
            let misses = try PixelCheck(job: job, frames: out).misses(
                in: try Trace.decode(traced.stdout), checked: &checked)
            #expect(
                misses.isEmpty,
                """
                case \(batch * Self.casesPerBatch + index) of seed \(Self.seed) (replay with \
                RENDERFARM_TRACE_SEED=\(Self.seed)), \(job.effect): \(misses.count) items traced where nothing \
                is drawn, e.g. \(misses.prefix(3).joined(separator: "; "))
                \(job.text)
                """)
        }
        report("trace placement batch \(batch), seed \(Self.seed): \(checked) items checked in \(jobs.count) jobs")
        #expect(checked >= 2 * Self.casesPerBatch, "seed \(Self.seed): only \(checked) items on the canvases")
    }
}

/// Looks up the traced items of one generated job in its frames.
struct PixelCheck {
    let job: PlacedJob
    let frames: URL

    /// The items of `lines` with no drawn pixel (alpha > 0) at their point; counts the items looked at.
    func misses(in lines: [TraceLine], checked: inout Int) throws -> [String] {
        var misses: [String] = []
        for line in lines {
            guard let items = line.layers[0], !items.isEmpty else { continue }
            let image = try ImageSurface(
                contentsOfPNG: frames.appendingPathComponent(String(format: "frame_%05d.png", line.frame)).path)
            for item in items
            where item.visible && item.alpha >= TracePlacementTests.alphaFloor
                && item.scale >= TracePlacementTests.scaleFloor
            {
                let point = solidPoint(of: item, matrix: line.matrices[0] ?? [1, 0, 0, 1, 0, 0])
                let (x, y) = (
                    Int((point.x * job.canvasScale).rounded(.down)), Int((point.y * job.canvasScale).rounded(.down))
                )
                guard x >= 0, y >= 0, x < image.width, y < image.height else { continue }
                checked += 1
                guard image.pixel(x: x, y: y).a == 0 else { continue }
                let near = nearestDrawn(to: (x, y), in: image).map { "\($0) px" } ?? "none within 40 px"
                misses.append(
                    "frame \(line.frame) item \(item.id) at (\(item.x), \(item.y)): pixel (\(x), \(y)) empty, "
                        + "nearest drawn \(near)")
            }
        }
        return misses
    }

    /// The traced point, for a box or disc its centre; for a heart, whose point is its bottom centre
    /// (the tip is drawn above it), the middle of its square: half its side up, in the heart's own
    /// axes through the layer's matrix, at its own scale (the traced one over the matrix's).
    func solidPoint(of item: TracedItem, matrix m: [Double]) -> (x: Double, y: Double) {
        guard job.effect == "floating-heart" else { return (item.x, item.y) }
        let own = item.scale / abs(m[0] * m[3] - m[2] * m[1]).squareRoot()
        let up = -item.planNumber("size") / 2 * own
        return (item.x + m[2] * up, item.y + m[3] * up)
    }

    /// The distance to the nearest pixel with alpha > 0 within 40 px, rounded.
    func nearestDrawn(to point: (Int, Int), in image: ImageSurface) -> Int? {
        var best: Double?
        for y in max(0, point.1 - 40)..<min(image.height, point.1 + 41) {
            for x in max(0, point.0 - 40)..<min(image.width, point.0 + 41) where image.pixel(x: x, y: y).a > 0 {
                let d = Double((x - point.0) * (x - point.0) + (y - point.1) * (y - point.1)).squareRoot()
                if d <= 40, d < (best ?? .infinity) { best = d }
            }
        }
        return best.map { Int($0.rounded()) }
    }
}
