import CairoKit
import Foundation
import Testing

/// Data-driven jobs: one job file, many variants (rows × matrix), and effects driven by event logs.
@Suite("Variants and event logs")
struct VariantTests {
    /// Twelve streamers with their brand colours.
    static let streamers: [(name: String, color: String)] = (0..<12).map { index in
        ("s\(index)", String(format: "#%02X%02X%02X", 20 * index, 255 - 20 * index, (97 * index) % 256))
    }

    /// A batch of 12 rows × 2 scales: a solid background in the row's colour under hearts.
    static func batch(in folder: TemporaryFolder, rows: String? = nil) throws -> String {
        let csv = rows ?? "streamer,color,rate\n" + streamers.map { "\($0.name),\($0.color),3" }.joined(separator: "\n")
        try folder.write(csv, to: "data/streamers.csv")
        return try folder.write(
            #"""
            {"name": "badges", "seed": 3, "fps": 10, "duration": 0.5,
             "canvas": {"width": 40, "height": 60, "scale": 1},
             "layers": [
               {"effect": "gradient", "params": {"from": "{{color}}", "to": "{{color}}"}},
               {"effect": "floating-heart", "params": {"emitter": [20, 58], "size": 12, "rate": "{{rate}}"}}],
             "variants": {"rows": "data/streamers.csv", "matrix": {"canvas.scale": [1, 2]},
                          "name": "{{streamer}}@{{canvas.scale}}x"}}
            """#, to: "badges.json")
    }

    /// Every PNG under `folder`, by path relative to it.
    static func frames(under folder: URL) throws -> [String: Data] {
        var frames: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(atPath: folder.path)
        while let path = enumerator?.nextObject() as? String {
            guard path.hasSuffix(".png") else { continue }
            frames[path] = try Data(contentsOf: folder.appendingPathComponent(path))
        }
        return frames
    }

    @Test(
        "12 rows × 2 scales render 24 folders, each complete and naming its variant; a row's colour reaches the pixels")
    func batchRenders() throws {
        let folder = try TemporaryFolder()
        let job = try Self.batch(in: folder)
        let result = CLI.run(["render", job, "--progress", "none", "-j", "2"])
        #expect(result.status == 0, "\(result.stderr)")
        let root = folder.url.appendingPathComponent("out/badges")
        let index = try JSONSerialization.jsonObject(
            with: Data(contentsOf: root.appendingPathComponent("variants.json")))
        let variants = try #require((index as? [String: Any])?["variants"] as? [[String: Any]])
        #expect(variants.count == 24)
        for (position, streamer) in Self.streamers.enumerated() {
            for scale in [1, 2] {
                let name = "\(streamer.name)@\(scale)x"
                let out = root.appendingPathComponent(name)
                let manifest = try #require(OutputTrustTests.manifest(out))
                #expect(manifest["complete"] as? Bool == true, "\(name)")
                let variant = manifest["variant"] as? [String: Any]
                #expect(variant?["name"] as? String == name)
                #expect(variant?["origin"] as? String == "streamers.csv:\(position + 2)")
                #expect((variant?["values"] as? [String: Any])?["color"] as? String == streamer.color)
                let entry = variants.first { $0["name"] as? String == name }
                #expect(entry?["folder"] as? String == name && entry?["frames"] as? Int == 5)
                let image = try ImageSurface(contentsOfPNG: out.appendingPathComponent("frame_00000.png").path)
                #expect(image.width == 40 * scale && image.height == 60 * scale)
                let pixel = image.pixel(x: 2, y: 2)
                let hex = String(format: "#%02X%02X%02X", pixel.r, pixel.g, pixel.b)
                #expect(hex == streamer.color && pixel.a == 255, "\(name): \(hex)")
            }
        }
    }

    @Test("a batch is byte-identical at -j 1 and -j 2 and across --shard K/N of the whole batch for N = 1, 3, 7")
    func deterministic() throws {
        let folder = try TemporaryFolder()
        let job = try Self.batch(in: folder)
        func render(_ out: String, _ extra: [String]) throws {
            let result = CLI.run(["render", job, "--out", out, "--progress", "none"] + extra)
            #expect(result.status == 0, "\(extra): \(result.stderr)")
        }
        let reference = folder.path + "/j1"
        try render(reference, ["-j", "1"])
        let expected = try Self.frames(under: URL(fileURLWithPath: reference))
        #expect(expected.count == 24 * 5)
        try render(folder.path + "/j2", ["-j", "2"])
        #expect(try Self.frames(under: URL(fileURLWithPath: folder.path + "/j2")) == expected)
        for count in [1, 3, 7] {
            let out = folder.path + "/shards-\(count)"
            var sizes: [Int] = []
            for index in 0..<count {
                let result = CLI.run(
                    ["render", job, "--out", out, "--shard", "\(index)/\(count)", "--progress", "json", "-j", "2"])
                #expect(result.status == 0, "\(result.stderr)")
                sizes.append(result.stderr.components(separatedBy: "\"status\":\"ok\"").count - 1)
            }
            #expect(try Self.frames(under: URL(fileURLWithPath: out)) == expected, "N = \(count)")
            // The whole batch is split: every task gets its share of the 120 frames.
            #expect(sizes.reduce(0, +) == 120 && (sizes.max() ?? 0) - (sizes.min() ?? 0) <= 1, "\(sizes)")
            let merged = CLI.run(
                ["merge"] + expected.keys.map { out + "/" + ($0 as NSString).deletingLastPathComponent }.uniqued())
            #expect(merged.status == 0, "\(merged.stderr)")
        }
    }

    @Test("bad cells, a missing column and a duplicate name are all refused in one run, nothing written")
    func badRows() throws {
        let folder = try TemporaryFolder()
        let rows = "streamer,color,rate\ns0,#GGG,3\ns1,#112233,abc\ns0,#445566,3\ns3,#778899,500\n"
        let job = try Self.batch(in: folder, rows: rows)
        try folder.write(
            try String(contentsOfFile: job, encoding: .utf8).replacingOccurrences(
                of: "\"size\": 12", with: "\"size\": \"{{sise}}\""),
            to: "badges.json")
        let result = CLI.run(["validate", job])
        #expect(result.status == 65)
        for expected in [
            "streamers.csv:2: column \"color\": expected a colour \"#RRGGBB\" or \"#RRGGBBAA\", got \"#GGG\"",
            "streamers.csv:3: column \"rate\": expected number 0…120, got \"abc\"",
            "streamers.csv:4: duplicate variant name \"s0@1x\" (also streamers.csv:2)",
            "streamers.csv:5: column \"rate\": 500 is out of range (allowed: 0…120)",
            "layers[1].params.size: unknown placeholder {{sise}}: no column or matrix key \"sise\"",
        ] {
            #expect(result.stderr.contains(expected), "missing: \(expected)\n\(result.stderr)")
        }
        let render = CLI.run(["render", job, "--progress", "none"])
        #expect(render.status == 65)
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/out"))
    }

    @Test("--variants picks variants by name and index; an unknown name is a usage error with a suggestion")
    func selection() throws {
        let folder = try TemporaryFolder()
        let job = try Self.batch(in: folder)
        let result = CLI.run(["render", job, "--variants", "s1@2x,0,4-5", "--progress", "none"])
        #expect(result.status == 0, "\(result.stderr)")
        let rendered = try FileManager.default.contentsOfDirectory(atPath: folder.path + "/out/badges")
            .filter { $0 != "variants.json" }.sorted()
        #expect(rendered == ["s0@1x", "s1@2x", "s2@1x", "s2@2x"])
        let unknown = CLI.run(["validate", job, "--variants", "s1@3x"])
        #expect(unknown.status == 64 && unknown.stderr.contains("no variant \"s1@3x\""), "\(unknown.stderr)")
    }

    @Test("hearts of an event log spawn exactly at the logged times with the logged colours and sizes")
    func heartEvents() throws {
        let folder = try TemporaryFolder()
        try folder.write("time,color,size\n1.5,#FF0000,30\n0.25,#00FF00,\n3.75,,50\n", to: "logs/likes.csv")
        let job = try folder.write(
            #"""
            {"fps": 20, "duration": 4, "canvas": {"width": 200, "height": 300, "scale": 1},
             "layers": [{"effect": "floating-heart",
                         "params": {"emitter": [100, 290], "events": "logs/likes.csv", "colors": ["#0000FF"]}}]}
            """#, to: "replay.json")
        let items = try heartItems(job, frame: 79)
        #expect(items.map(\.spawn) == [0.25, 1.5, 3.75])
        #expect(items.map(\.color) == ["#00FF00", "#FF0000", "#0000FF"])
        #expect(items.map(\.size) == [36, 30, 50])
        // Nothing before its time: at frame 4 (0.2 s) no heart, at frame 5 (0.25 s) the first.
        #expect(try heartItems(job, frame: 4).isEmpty)
        #expect(try heartItems(job, frame: 5).map(\.spawn) == [0.25])

        try folder.write("time,color\n-1,#GGG\nsoon,#FF0000\n", to: "logs/bad.csv")
        try folder.write(
            try String(contentsOfFile: job, encoding: .utf8).replacingOccurrences(of: "likes.csv", with: "bad.csv"),
            to: "bad.json")
        let bad = CLI.run(["validate", folder.path + "/bad.json"])
        #expect(bad.status == 65)
        #expect(bad.stderr.contains("bad.csv:2: time: -1 is out of range (allowed: 0…86400)"), "\(bad.stderr)")
        #expect(bad.stderr.contains("bad.csv:2: color: expected a colour"), "\(bad.stderr)")
        #expect(bad.stderr.contains("bad.csv:3: time: expected number 0…86400, got \"soon\""), "\(bad.stderr)")
    }

    @Test("drop and bounce items enter at their events' times; an edited log redraws the frames from its item on")
    func itemEvents() throws {
        let folder = try TemporaryFolder()
        try folder.write(
            ##"{"time": 0.5, "shape": "coin", "size": 30}"## + "\n" + ##"{"time": 0.1, "color": "#00FF00"}"##,
            to: "gifts.jsonl")
        let job = try folder.write(
            #"""
            {"fps": 20, "duration": 2, "canvas": {"width": 375, "height": 667, "scale": 1},
             "layers": [{"effect": "parabolic-drop", "params": {"events": "gifts.jsonl"}},
                        {"effect": "physics-bounce", "params": {"events": "gifts.jsonl"}}]}
            """#, to: "gifts.json")
        let trace = CLI.run(["trace", job, "--frames", "1,2,9,10"])
        #expect(trace.status == 0, "\(trace.stderr)")
        let lines = trace.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        func visible(_ line: [String: Any], layer: Int) -> [Int] {
            let layers = line["layers"] as? [[String: Any]] ?? []
            let items = layers[layer]["items"] as? [[String: Any]] ?? []
            return items.filter { $0["visible"] as? Bool == true }.compactMap { $0["id"] as? Int }
        }
        // Sorted by time: item 0 is the 0.1 s event, item 1 the 0.5 s one.
        #expect(visible(lines[0], layer: 0).isEmpty && visible(lines[1], layer: 0) == [0])
        #expect(visible(lines[2], layer: 0) == [0] && visible(lines[3], layer: 0) == [0, 1])
        #expect(visible(lines[1], layer: 1) == [0] && visible(lines[3], layer: 1) == [0, 1])
        let render = CLI.run(["render", job, "--progress", "none"])
        #expect(render.status == 0, "\(render.stderr)")
        try folder.write(
            ##"{"time": 0.6, "shape": "coin", "size": 30}"## + "\n" + ##"{"time": 0.1, "color": "#00FF00"}"##,
            to: "gifts.jsonl")
        // Frame keys: the frames before the edited item's entry (0.5 s, frame 10) draw as before.
        let again = CLI.run(["render", job, "--progress", "none"])
        #expect(again.stdout.contains("30 frames rendered, 10 already done (complete)"), "\(again.stdout)")
    }

    private func heartItems(_ job: String, frame: Int) throws -> [(spawn: Double, color: String, size: Double)] {
        let trace = CLI.run(["trace", job, "--frames", "\(frame)"])
        let line = try JSONSerialization.jsonObject(with: Data(trace.stdout.utf8)) as? [String: Any]
        let items = ((line?["layers"] as? [[String: Any]])?.first?["items"] as? [[String: Any]]) ?? []
        return items.map { item in
            let plan = item["plan"] as? [String: Any] ?? [:]
            return (plan["spawn"] as? Double ?? -1, plan["color"] as? String ?? "", plan["size"] as? Double ?? -1)
        }
    }
}

extension Array where Element: Hashable {
    /// The elements without repeats, in their first order.
    func uniqued() -> [Element] {
        var seen: Set<Element> = []
        return filter { seen.insert($0).inserted }
    }
}
