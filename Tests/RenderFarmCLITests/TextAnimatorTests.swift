import CairoKit
import Foundation
import Testing

/// The text effect's animators and circle path (EffectKit article TextEffect, "Animators"): on generated
/// texts and timings, each character's opacity, place and scale from `renderfarm trace` against the range
/// selector's formula, and the pixels of the rendered frames against the trace.
@Suite("text animators: typewriter, word rise, count pop, text on a circle")
struct TextAnimatorTests {
    static let words = ["gift", "Rose", "sent", "aiko", "combo", "stream", "heart", "like", "wow", "party", "star"]

    static func job(_ params: String, duration: Double = 2, fps: Int = 30, size: Double = 30) -> String {
        """
        { "version": 1, "name": "animators", "seed": 3, "fps": \(fps), "duration": \(duration),
          "canvas": { "width": 480, "height": 360, "scale": 1 },
          "layers": [ { "effect": "text", "params": { "size": \(size), "color": "#FFFFFF", \(params) } } ] }
        """
    }

    /// The clusters of the first item of layer 0 of a trace line.
    static func clusters(_ line: TraceLine) -> [[String: Any]] {
        line.items().first?.object["clusters"] as? [[String: Any]] ?? []
    }

    static func number(_ object: [String: Any], _ key: String) -> Double {
        (object[key] as? NSNumber)?.doubleValue ?? .nan
    }

    /// Whether any pixel of `image` in the column band `xs` and the rows `ys` has alpha above `threshold`.
    static func ink(_ image: ImageSurface, _ xs: ClosedRange<Int>, _ ys: ClosedRange<Int>, above threshold: UInt8)
        -> Bool
    {
        for y in max(0, ys.lowerBound)...min(image.height - 1, ys.upperBound) {
            for x in max(0, xs.lowerBound)...min(image.width - 1, xs.upperBound)
            where image.pixel(x: x, y: y).a > threshold {
                return true
            }
        }
        return false
    }

    @Test("typewriter on 6 generated texts: each character appears at the frame its slice of the offset says, in order")
    func typewriter() throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["RENDERFARM_TYPEWRITER_SEED"] ?? "") ?? 0x7479_7065
        for run in 0..<6 {
            var random = FuzzRandom(seed: seed &+ UInt64(run))
            let label = "RENDERFARM_TYPEWRITER_SEED=\(seed &+ UInt64(run))"
            let text = (0..<(2 + random.next(3))).map { _ in random.pick(Self.words) }.joined(separator: " ")
            let (delay, duration) = (random.uniform(0, 0.5), random.uniform(0.4, 1.2))
            let folder = try TemporaryFolder()
            let file = try folder.write(
                Self.job(
                    #""text": "\#(text)", "wrap": false, "rect": {"x": 10, "y": 150, "width": 460, "height": 60}, "#
                        + #""animators": [{"preset": "typewriter", "delay": \#(delay), "duration": \#(duration)}]"#,
                    duration: 2), to: "job.json")
            let out = folder.url.appendingPathComponent("out")
            let render = CLI.run(["render", file, "--out", out.path, "--progress", "none"])
            try #require(render.status == 0, "\(render.stderr)")
            var appeared: [Int: Int] = [:]
            for line in try Trace.run(file) {
                let clusters = Self.clusters(line)
                try #require(clusters.count == text.count, "\(label): \(clusters.count) clusters for \"\(text)\"")
                let n = Double(clusters.count)
                let offset = 100 * min(max((line.time - delay) / duration, 0), 1)
                let image = try ImageSurface(
                    contentsOfPNG: out.appendingPathComponent(String(format: "frame_%05d.png", line.frame)).path)
                for (index, cluster) in clusters.enumerated() {
                    let slice = 100 / n
                    let expected = min(max((offset - Double(index) * slice) / slice, 0), 1)
                    let alpha = Self.number(cluster, "alpha")
                    #expect(abs(alpha - expected) < 1e-5, "\(label) t \(line.time) \(index): \(alpha) vs \(expected)")
                    if alpha > 1 - 1e-5, appeared[index] == nil { appeared[index] = line.frame }
                    guard (cluster["text"] as? String) != " ", alpha < 1e-5 || alpha > 1 - 1e-5 else { continue }
                    // The middle of the character's advance: between its neighbours' anchors.
                    let x = Self.number(cluster, "x")
                    let left = index > 0 ? (x + Self.number(clusters[index - 1], "x")) / 2 : x - 6
                    let right = index + 1 < clusters.count ? (x + Self.number(clusters[index + 1], "x")) / 2 : x + 6
                    let band = Int((x - (x - left) * 0.5).rounded(.up))...Int((x + (right - x) * 0.5).rounded(.down))
                    let rows = Int(Self.number(cluster, "y") - 20)...Int(Self.number(cluster, "y"))
                    let drawn = Self.ink(image, band, rows, above: alpha > 0.5 ? 128 : 8)
                    #expect(
                        drawn == (alpha > 0.5),
                        "\(label) frame \(line.frame): \"\(cluster["text"] ?? "")\" (\(index)) alpha \(alpha), ink \(drawn)"
                    )
                }
            }
            // In order, each at the first frame whose offset has passed its whole slice.
            let frames = (0..<text.count).compactMap { appeared[$0] }
            #expect(frames.count == text.count && frames == frames.sorted(), "\(label): \(frames)")
            for (index, frame) in frames.enumerated() {
                let due = delay + duration * Double(index + 1) / Double(text.count)
                #expect(
                    Double(frame) / 30 >= due - 1e-9 && Double(frame - 1) / 30 < due,
                    "\(label) \(index): frame \(frame), due \(due)")
            }
        }
    }

    @Test("wordRise: each word fades in and rises by the ramp of its place in the words")
    func wordRise() throws {
        let text = "one two three four five"
        let folder = try TemporaryFolder()
        let file = try folder.write(
            Self.job(
                #""text": "\#(text)", "rect": {"x": 10, "y": 150, "width": 460, "height": 60}, "#
                    + #""animators": [{"preset": "wordRise", "duration": 1, "timing": "linear", "position": [0, 40]}]"#,
                duration: 1.2, fps: 10), to: "job.json")
        let lines = try Trace.run(file)
        let rest = Self.clusters(try #require(lines.last))
        for line in lines {
            let offset = -40 + 140 * min(line.time, 1)
            var word = -1
            var previousSpace = true
            for (index, cluster) in Self.clusters(line).enumerated() {
                let space = (cluster["text"] as? String) == " "
                if !space, previousSpace { word += 1 }
                previousSpace = space
                guard !space else { continue }
                let u = ((Double(word) + 0.5) * 20 - offset) / 40
                let amount = min(max(u, 0), 1)
                #expect(abs(Self.number(cluster, "alpha") - (1 - amount)) < 1e-6, "t \(line.time) word \(word)")
                #expect(abs(Self.number(cluster, "y") - Self.number(rest[index], "y") - 40 * amount) < 1e-6)
            }
        }
    }

    @Test("text on a circle: every character's anchor on the circle, in order along it, ink where the trace says")
    func circle() throws {
        let folder = try TemporaryFolder()
        for (radius, angle) in [(90.0, -90.0), (130.0, 0.0), (60.0, 45.0)] {
            let file = try folder.write(
                Self.job(
                    #""text": "RenderFarm • live", "wrap": false, "#
                        + #""path": {"center": [240, 180], "radius": \#(radius), "angle": \#(angle)}"#, duration: 0.1,
                    size: 22),
                to: "job.json")
            let line = try #require(try Trace.run(file).first)
            let clusters = Self.clusters(line)
            try #require(clusters.count == 17)
            var angles: [Double] = []
            for cluster in clusters {
                let (x, y) = (Self.number(cluster, "x") - 240, Self.number(cluster, "y") - 180)
                #expect(abs(hypot(x, y) - radius) < 1e-6, "\(cluster)")
                angles.append(atan2(y, x))
                // Upright along the tangent: turned by the angle plus a quarter turn.
                let turn = Self.number(cluster, "rotation") - atan2(y, x) - Double.pi / 2
                #expect(abs(remainder(turn, 2 * Double.pi)) < 1e-6, "\(cluster)")
            }
            let unwrapped = angles.indices.dropFirst().map { remainder(angles[$0] - angles[$0 - 1], 2 * Double.pi) }
            #expect(unwrapped.allSatisfy { $0 > 0 }, "clockwise, in order: \(unwrapped)")
            // The line's middle sits at `angle`.
            let middle = (angles.first! + angles.first! + unwrapped.reduce(0, +)) / 2
            #expect(abs(remainder(middle - angle * .pi / 180, 2 * Double.pi)) < 0.08, "middle at \(middle)")
            let out = folder.url.appendingPathComponent("out-\(Int(radius))")
            let render = CLI.run(["render", file, "--frames", "0", "--out", out.path, "--progress", "none"])
            try #require(render.status == 0, "\(render.stderr)")
            let image = try ImageSurface(contentsOfPNG: out.appendingPathComponent("frame_00000.png").path)
            for cluster in clusters where (cluster["text"] as? String)?.first?.isLetter == true {
                // Ink within the glyph's height, inward of its anchor on the baseline.
                let (x, y) = (Self.number(cluster, "x"), Self.number(cluster, "y"))
                let inward = (x: (240 - x) / radius, y: (180 - y) / radius)
                let (cx, cy) = (Int(x - inward.x * 8), Int(y - inward.y * 8))
                #expect(Self.ink(image, (cx - 6)...(cx + 6), (cy - 6)...(cy + 6), above: 128), "\(cluster)")
            }
            let box = try #require(DebugOverlayTests.box(image) { pixel, _, _ in pixel.a > 0 })
            #expect(Double(box.0) >= 240 - radius - 30 && Double(box.2) <= 240 + radius + 30, "\(box)")
        }
    }

    @Test("countPop: the digits of {{count}} swell as sin(π·since/duration) after each change, the rest stays")
    func countPop() throws {
        let folder = try TemporaryFolder()
        let file = try folder.write(
            Self.job(
                #""text": "Combo ×{{count}}", "rect": {"x": 10, "y": 40, "width": 460, "height": 300}, "#
                    + #""events": [{"time": 0.1, "count": 9}], "banner": {"hold": 3, "count": {"duration": 1.6, "timing": "linear"}}, "#
                    + #""animators": [{"preset": "countPop", "duration": 0.2, "scale": 2}]"#, duration: 2.2, fps: 30),
            to: "job.json")
        var popped = 0
        var tallest = (popped: 0, rest: 0)
        let out = folder.url.appendingPathComponent("out")
        let render = CLI.run(["render", file, "--out", out.path, "--progress", "none"])
        try #require(render.status == 0, "\(render.stderr)")
        for line in try Trace.run(file) where line.time > 0.2 {
            let clusters = Self.clusters(line)
            guard clusters.count == 8, let count = Int(clusters.map { $0["text"] as? String ?? "" }.last ?? "") else {
                continue
            }
            // The count shown: 1 + 8 × progress, rounded down; it last changed when progress passed count − 1.
            let changed = 0.1 + 1.6 * Double(count - 1) / 8
            let since = line.time - changed
            let expected = count > 1 && since < 0.2 ? 1 + sin(Double.pi * since / 0.2) : 1
            let scale = Self.number(clusters[7], "scale")
            #expect(abs(scale - expected) < 0.05, "t \(line.time) count \(count): \(scale) vs \(expected)")
            #expect(clusters.prefix(7).allSatisfy { Self.number($0, "scale") == 1 }, "only the count pops")
            // Its ink is taller while it pops.
            let image = try ImageSurface(
                contentsOfPNG: out.appendingPathComponent(String(format: "frame_%05d.png", line.frame)).path)
            let x = Self.number(clusters[7], "x")
            let box = DebugOverlayTests.box(image) { pixel, px, _ in pixel.a > 128 && abs(Double(px) - x) < 15 }
            let height = box.map { $0.3 - $0.1 + 1 } ?? 0
            if scale > 1.5 {
                popped += 1
                tallest.popped = max(tallest.popped, height)
            } else if scale == 1 {
                tallest.rest = max(tallest.rest, height)
            }
        }
        #expect(popped >= 4, "\(popped) frames caught a pop")
        #expect(Double(tallest.popped) > 1.4 * Double(tallest.rest), "\(tallest)")
    }

    @Test("bad animators are refused where they are, with a suggestion")
    func refusals() throws {
        let folder = try TemporaryFolder()
        for (params, message) in [
            (
                #""text": "hi", "animators": [{"preset": "typewritter"}]"#,
                #"unknown preset "typewritter" (did you mean "typewriter"?)"#
            ),
            (#""text": "hi", "animators": [{"preset": "countPop"}]"#, "countPop pops {{count}} of banners"),
            (#""text": "hi", "animators": [{"by": "letter"}]"#, "animators[0].by: unknown value \"letter\""),
            (
                #""text": "hi", "animators": [{"offset": "far"}]"#,
                "animators[0].offset: expected a percentage or [from, to]"
            ),
            (
                #""text": "hi", "animators": [{"opacityy": 0}]"#,
                "animators[0].opacityy: unknown key (did you mean \"opacity\"?)"
            ),
            (#""text": "hi", "path": {"radius": 10}"#, "path: needs a \"center\""),
        ] {
            try folder.expectRefused(Self.job(params), saying: message, label: params)
        }
    }
}
