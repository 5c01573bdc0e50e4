import Foundation
import Testing

/// Issue 12, item 3: physics items that leave the canvas are noticed, and `"bounds": true` keeps them on it.
@Suite("physics bounds")
struct CanvasBoundsTests {
    /// Five items over the default barrier (the canvas bottom), three of them thrown sideways off its ends.
    static func job(bounds: String?) -> String {
        let extra = bounds.map { "\"bounds\": \($0), " } ?? ""
        return """
            { "duration": 3, "fps": 30, "canvas": {"width": 375, "height": 667, "scale": 1},
              "layers": [
                { "effect": "floating-heart", "params": {"rate": 1} },
                { "effect": "physics-bounce", "params": { \(extra)"items": [
                  { "at": [100, 100], "velocity": [400, 0] }, { "at": [200, 100], "velocity": [-600, 0] },
                  { "at": [300, 100], "velocity": [300, -200] }, { "at": [180, 300] }, { "at": [200, 500] } ] } } ] }
            """
    }

    @Test("by default items leave, validate and render warn, and trace drops them once they are gone")
    func warnsAndDrops() throws {
        let folder = try TemporaryFolder()
        let job = try folder.write(Self.job(bounds: nil), to: "fall.json")
        let validate = CLI.run(["validate", job])
        #expect(validate.status == 0)
        let warning =
            "fall.json: layers[1]: 2 of 5 items leave the canvas by 0.4 s (set \"bounds\": true or add barriers)"
        #expect(
            validate.stderr.contains("renderfarm: warning: ") && validate.stderr.contains(warning), "\(validate.stderr)"
        )
        let render = CLI.run([
            "render", job, "--out", folder.url.appendingPathComponent("out").path, "--progress", "none",
        ])
        #expect(render.status == 0 && render.stderr.contains(warning), "\(render.stderr)")
        let lines = try Trace.run(job)
        #expect(lines.first?.items(layer: 1).count == 5)
        #expect(lines.last?.items(layer: 1).count == 3)
        // An item is traced until it has left: the last time it appears it is still within reach of the canvas.
        #expect(lines.allSatisfy { $0.items(layer: 1).allSatisfy { abs($0.x) < 2000 && abs($0.y) < 2000 } })
    }

    @Test("with \"bounds\": true no item's bounds ever leave the canvas, and nothing is dropped or warned about")
    func staysInside() throws {
        let folder = try TemporaryFolder()
        let job = try folder.write(Self.job(bounds: "true"), to: "bounded.json")
        let validate = CLI.run(["validate", job])
        #expect(validate.status == 0 && !validate.stderr.contains("warning"), "\(validate.stderr)")
        let lines = try Trace.run(job)
        for line in lines {
            let items = line.items(layer: 1)
            #expect(items.count == 5)
            for item in items where item.visible {
                let half = ((item.plan["size"] as? [NSNumber])?.first?.doubleValue ?? 40) / 2
                // Contacts resolve within the collision slop (0.05 pt) plus one step's overlap.
                #expect(item.x - half >= -0.6 && item.x + half <= 375.6, "x \(item.x) at \(line.time) s")
                #expect(item.y - half >= -0.6 && item.y + half <= 667.6, "y \(item.y) at \(line.time) s")
            }
        }
    }

    @Test("bounds as a rect keeps items inside it; a bad value is named")
    func rect() throws {
        let folder = try TemporaryFolder()
        let job = try folder.write(
            Self.job(bounds: #"{"x": 50, "y": 0, "width": 275, "height": 620}"#), to: "rect.json")
        for line in try Trace.run(job) {
            for item in line.items(layer: 1) where item.visible {
                #expect(item.x - 20 >= 49.4 && item.x + 20 <= 325.6 && item.y + 20 <= 620.6, "\(item.x), \(item.y)")
            }
        }
        let bad = try folder.write(Self.job(bounds: "\"yes\""), to: "bad.json")
        let result = CLI.run(["validate", bad])
        #expect(result.status == 65)
        #expect(result.stderr.contains("layers[1].params.bounds: expected true, false or a rect"), "\(result.stderr)")
    }

    @Test("parabolic-drop with onLand bounce takes bounds too")
    func drop() throws {
        let folder = try TemporaryFolder()
        let job = try folder.write(
            """
            { "duration": 3, "fps": 30, "canvas": {"width": 375, "height": 667, "scale": 1},
              "layers": [ { "effect": "parabolic-drop", "params": { "count": 4, "onLand": "bounce", "bounds": true,
                "target": {"x": 0, "y": 600, "width": 20, "height": 10}, "from": [330, 300] } } ] }
            """, to: "drop.json")
        #expect(CLI.run(["validate", job]).status == 0)
        for line in try Trace.run(job) {
            for item in line.items() where item.visible && item.resting != nil {
                #expect(item.x - 20 >= -0.6 && item.x + 20 <= 375.6 && item.y + 20 <= 667.6, "\(item.x), \(item.y)")
            }
        }
    }
}
