import CairoKit
import Foundation
import Testing

/// The floating heart against the first seed: its random plan, its timeline, and its pixels.
@Suite("Floating heart fidelity")
struct FloatingHeartTests {
    /// A job with hearts from `emitter` on a `height`-point-tall canvas.
    static func job(params: String, height: Int = 667, duration: Double = 2, frames: String? = nil) -> String {
        let frameSet = frames.map { #""frames": "\#($0)","# } ?? ""
        return #"""
            {"name": "heart-test", "seed": 11, "fps": 60, "duration": \#(duration), \#(frameSet)
             "canvas": {"width": 375, "height": \#(height), "scale": 2},
             "layers": [{"effect": "floating-heart", "params": \#(params)}]}
            """#
    }

    /// The items of layer 0 of every traced frame.
    static func trace(_ job: String, in folder: TemporaryFolder, frames: String? = nil) throws -> [[[String: Any]]] {
        let path = try folder.write(job, to: "job.json")
        let result = CLI.run(["trace", path] + (frames.map { ["--frames", $0] } ?? []))
        #expect(result.status == 0, "\(result.stderr)")
        return try result.stdout.split(separator: "\n").map { line in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let layers = try #require(object["layers"] as? [[String: Any]])
            return try #require(layers.first?["items"] as? [[String: Any]])
        }
    }

    @Test("each heart's path follows the seed's random ranges (W = 36, H = 667)")
    func planRanges() throws {
        let folder = try TemporaryFolder()
        let items = try Self.trace(
            Self.job(params: #"{"emitter": [200, 600], "rate": 50, "lifetime": 6}"#), in: folder,
            frames: "119")
        let hearts = try #require(items.first)
        #expect(hearts.count == 100)
        let (width, height, cx) = (36.0, 667.0, 200.0)
        var directions: Set<Double> = []
        for heart in hearts {
            let plan = try #require(heart["plan"] as? [String: Any])
            let path = try #require(plan["path"] as? [[Double]])
            let (start, c1, c2, end) = (path[0], path[1], path[2], path[3])
            #expect(start == [cx, 600])
            // end = (cx + dir·arc4random_uniform(2W), H/6 + arc4random_uniform(H/4))
            let dx = end[0] - cx
            #expect(abs(dx) < 2 * width && dx.rounded() == dx)
            let dy = end[1] - height / 6
            #expect(dy >= 0 && dy < (height / 4).rounded(.down) && abs(dy - dy.rounded()) < 1e-9)
            // x = (W/2 + arc4random_uniform(2W))·dir; cp1 = (cx + x, H − y); cp2 = (cx − 2x, y)
            let x = c1[0] - cx
            #expect(abs(x) >= width / 2 && abs(x) < width / 2 + 2 * width)
            if dx != 0 { #expect(x.sign == dx.sign) }
            directions.insert(x.sign == .minus ? -1 : 1)
            #expect(abs((c2[0] - cx) + 2 * x) < 1e-9)
            let y = c2[1]
            #expect(abs(height - c1[1] - y) < 1e-9)
            #expect(y >= max(end[1], width) && y < 8 * width || y == end[1])
            // duration = liveAnimationDuration + end.y / H
            let duration = try #require(plan["duration"] as? Double)
            #expect(abs(duration - (6 + end[1] / height)) < 1e-9)
        }
        #expect(directions == [-1, 1])
    }

    @Test("bloom, fade and travel follow FloatingHeartMotion over one heart's life")
    func timeline() throws {
        let folder = try TemporaryFolder()
        let frames = try Self.trace(
            Self.job(params: #"{"times": [0.5], "lifetime": 6}"#, duration: 7.5), in: folder,
            frames: "0,30,36,42,60,90,360,389,390")
        try #require(frames.count == 9)
        let byFrame = frames.map { $0.first }
        #expect(byFrame[0] == nil, "no heart before its spawn time")
        let bloom = byFrame[1...3].map { $0?["scale"] as? Double ?? -1 }
        // scale(t) = x_spring(t − spawn): 0 at spawn, x(0.1) = 0.8609, x(0.2) = 1.0859 (article Springs, v = 0.8)
        #expect(abs(bloom[0]) < 1e-9)
        #expect(abs(bloom[1] - 0.8609) < 1e-3)
        #expect(abs(bloom[2] - 1.0859) < 1e-3)
        #expect(byFrame[4]?["scale"] as? Double == 1, "the spring snaps to 1 after its 0.5 s duration")
        // replace fade: alpha = 0.9·(1 − easeInEaseOut(age / 6)); at age 0.5 s: 0.9·(1 − 0.019…)
        let alpha = try #require(byFrame[4]?["alpha"] as? Double)
        #expect(alpha > 0.85 && alpha < 0.9)
        let late = try #require(byFrame[6]?["alpha"] as? Double)
        #expect(late > 0 && late < 0.05)
        #expect(byFrame[7] != nil, "still there at age 5.98 s")
        #expect(byFrame[8] == nil, "removed at lifetime (age 6 s)")
    }

    @Test("pixels read back from the PNG: the heart's fill at its centre, transparent elsewhere")
    func pixels() throws {
        let folder = try TemporaryFolder()
        let job = Self.job(
            params: ##"{"times": [0], "emitter": [150, 500], "colors": ["#3366CC"], "lifetime": 6}"##,
            frames: "60")
        let items = try Self.trace(job, in: folder, frames: "60")
        let heart = try #require(items.first?.first)
        let (x, y) = (try #require(heart["x"] as? Double), try #require(heart["y"] as? Double))
        let alpha = try #require(heart["alpha"] as? Double)

        let render = CLI.run([
            "render", folder.url.appendingPathComponent("job.json").path, "--out",
            folder.url.appendingPathComponent("out").path, "--progress", "none",
        ])
        #expect(render.status == 0, "\(render.stderr)")
        let image = try ImageSurface(contentsOfPNG: folder.url.appendingPathComponent("out/frame_00060.png").path)
        #expect(image.width == 750 && image.height == 1334)
        // The anchor is the bottom centre; the middle of the 36-pt heart is 18 pt above it.
        let centre = image.pixel(x: Int(x * 2), y: Int((y - 18) * 2))
        #expect(centre.r == 0x33 && centre.g == 0x66 && centre.b == 0xCC)
        #expect(abs(Double(centre.a) - alpha * 255) <= 1.5)
        // The white outline sits on the heart's edge: the tip is 2 pt above the anchor.
        let tip = image.pixel(x: Int(x * 2), y: Int((y - 2) * 2) - 1)
        #expect(tip.r > 0xE0 && tip.g > 0xE0 && tip.b > 0xE0 && tip.a > 0)
        for (px, py) in [(0, 0), (749, 0), (10, 1300), (Int(x * 2), Int((y - 60) * 2))] {
            #expect(image.pixel(x: px, y: py).a == 0, "background at (\(px), \(py)) is not transparent")
        }
    }
}
