import CairoKit
import Foundation
import Testing

/// The `text` effect through the real binary: the same bytes however frames are drawn, font files in the
/// fingerprint and the manifest, and its parameter table.
@Suite("Text effect")
struct TextEffectTests {
    static let noto = "/usr/share/fonts/truetype/noto"

    /// A job with a text layer (its `params` merged over a two-line mixed-script text) on a gradient.
    static func job(_ params: [String: Any] = [:], frames: Int = 6) throws -> String {
        var layer: [String: Any] = [
            "text": "aiko sent Rose ×5 🌹\nأحمد · שלום · さくら · 李小龙", "size": 28, "fit": "shrink",
            "rect": ["x": 10, "y": 10, "width": 220, "height": 100], "align": "center", "valign": "middle",
            "stroke": ["color": "#000000", "width": 2], "shadow": ["blur": 2],
            "background": ["color": "#33224480", "radius": 10],
        ]
        for (key, value) in params { layer[key] = value }
        let job: [String: Any] = [
            "version": 1, "name": "text", "canvas": ["width": 240, "height": 120, "scale": 2], "fps": 10,
            "duration": Double(frames) / 10, "output": ["dir": "out"],
            "layers": [
                ["effect": "gradient", "params": ["from": "#204060", "to": "#000000"]],
                ["effect": "text", "params": layer],
            ],
        ]
        let data = try JSONSerialization.data(withJSONObject: job, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }

    /// Renders the folder's job in process (with `--isolate`, its workers run the binary).
    static func render(_ folder: TemporaryFolder, arguments: [String] = []) throws -> Binary.Result {
        let words = ["render", folder.url.appendingPathComponent("job.json").path, "--progress", "plain"] + arguments
        let result = CLI.run(words)
        #expect(result.status == 0, "\(result.stderr)")
        return result
    }

    static func hashes(_ folder: TemporaryFolder) throws -> [String] {
        try Manifest(folder: folder.url.appendingPathComponent("out")).frames.map(\.sha256)
    }

    @Test("frames are byte-identical across -j 1, -j 2, --isolate and --shard K/N")
    func deterministic() throws {
        let job = try Self.job()
        var runs: [[String]] = []
        for arguments in [["-j", "1"], ["-j", "2"], ["-j", "2", "--isolate"]] {
            let folder = try TemporaryFolder()
            try folder.write(job, to: "job.json")
            _ = try Self.render(folder, arguments: arguments)
            runs.append(try Self.hashes(folder))
        }
        let sharded = try TemporaryFolder()
        try sharded.write(job, to: "job.json")
        for index in 0..<3 { _ = try Self.render(sharded, arguments: ["--shard", "\(index)/3"]) }
        let merge = CLI.run(["merge", sharded.url.appendingPathComponent("out").path])
        #expect(merge.status == 0, "\(merge.stderr)")
        runs.append(try Self.hashes(sharded))
        #expect(runs[0].count == 6)
        for run in runs.dropFirst() { #expect(run == runs[0]) }
    }

    @Test("the font files drawn with are in the manifest with their sha256; editing the job's font draws again")
    func fontFileEdit() throws {
        let folder = try TemporaryFolder()
        let font = folder.url.appendingPathComponent("fonts/Brand.ttf")
        try FileManager.default.createDirectory(
            at: font.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: "\(Self.noto)/NotoSans-Regular.ttf", toPath: font.path)
        try folder.write(try Self.job(["font": "fonts/Brand.ttf", "text": "Brand 🌹"]), to: "job.json")
        _ = try Self.render(folder)
        let out = folder.url.appendingPathComponent("out")
        let inputs = try InputFileTests.inputs(out)
        let brand = inputs.first { $0.file == "fonts/Brand.ttf" }
        #expect(brand?.sha256 == sha256(try Data(contentsOf: font)), "\(inputs)")
        #expect(inputs.contains { $0.file == "\(Self.noto)/NotoColorEmoji.ttf" }, "\(inputs)")
        let before = try Self.hashes(folder)

        let again = try Self.render(folder)
        #expect((again.stdout + again.stderr).contains("0 frames rendered, 6 already done"), "\(again.stdout)")

        try FileManager.default.removeItem(at: font)
        try FileManager.default.copyItem(atPath: "\(Self.noto)/NotoSerif-Bold.ttf", toPath: font.path)
        let redraw = try Self.render(folder)
        // The text does not move: one frame is drawn, the others share its key.
        #expect(redraw.stdout.contains("1 frame rendered, 5 reused"), "\(redraw.stdout)")
        let after = try Self.hashes(folder)
        #expect(after != before)
        #expect(
            try InputFileTests.inputs(out).first { $0.file == "fonts/Brand.ttf" }?.sha256
                == sha256(try Data(contentsOf: font)))
        // This process had the old font at that path (cairo keeps a font's glyphs by its path): the frames are
        // still those of a fresh render of the new font, in another folder.
        let fresh = try TemporaryFolder()
        try FileManager.default.createDirectory(
            at: fresh.url.appendingPathComponent("fonts"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: font.path, toPath: fresh.url.appendingPathComponent("fonts/Brand.ttf").path)
        try fresh.write(try Self.job(["font": "fonts/Brand.ttf", "text": "Brand 🌹"]), to: "job.json")
        _ = try Self.render(fresh)
        #expect(try Self.hashes(fresh) == after)
    }

    @Test("a font outside the job folder or not installed is refused before anything is drawn")
    func refusedFonts() throws {
        let folder = try TemporaryFolder()
        try folder.write(try Self.job(["font": "../../etc/passwd.ttf"]), to: "job.json")
        let outside = CLI.run([
            "render", folder.url.appendingPathComponent("job.json").path, "--progress", "none",
        ])
        #expect(outside.status != 0)
        #expect(outside.stderr.contains("font"), "\(outside.stderr)")
        try folder.write(try Self.job(["font": "DejaVu Sans"]), to: "job.json")
        let system = CLI.run([
            "render", folder.url.appendingPathComponent("job.json").path, "--progress", "none",
        ])
        #expect(system.status != 0)
        #expect(system.stderr.contains("fonts-noto-core"), "\(system.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("out/frame_00000.png").path))
    }

    @Test("editing one event's name redraws only the frames its banner is drawn in, equal to a fresh render")
    func bannerEdit() throws {
        let folder = try TemporaryFolder()
        let log = "time,user,gift,count\n0.2,aiko,Rose,5\n2.5,さくら,Crown,3\n"
        try folder.write(log, to: "gifts.csv")
        let job = try folder.write(
            try Self.job(
                [
                    "text": "{{user}} sent {{gift}} ×{{count}}", "events": "gifts.csv", "fit": "none", "size": 14,
                    "banner": ["hold": 0.5], "rect": ["x": 10, "y": 10, "width": 220, "height": 100],
                ], frames: 40), to: "job.json")
        _ = try Self.render(folder)
        // The frames where the second banner (id 1) is on screen (from its arrival, at opacity 0, on).
        let trace = CLI.run(["trace", job])
        #expect(trace.status == 0, "\(trace.stderr)")
        let drawn = trace.stdout.split(separator: "\n").filter { line in
            let frame = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
            let items = ((frame?["layers"] as? [[String: Any]])?.last?["items"] as? [[String: Any]]) ?? []
            return items.contains { $0["id"] as? Int == 1 }
        }.count
        #expect(drawn > 5 && drawn < 20, "\(trace.stdout)")
        try folder.write(log.replacingOccurrences(of: "さくら", with: "李小龙"), to: "gifts.csv")
        let redraw = try Self.render(folder)
        // Exactly the frames showing the banner are new (frames of it at rest share a drawing); the rest are kept.
        #expect(redraw.stdout.contains("\(40 - drawn) already done (complete)"), "\(redraw.stdout)")
        let fresh = folder.url.appendingPathComponent("fresh")
        let clean = CLI.run(["render", job, "--out", fresh.path, "--progress", "none"])
        #expect(clean.status == 0, "\(clean.stderr)")
        #expect(try frameChecksums(folder.url.appendingPathComponent("out")) == frameChecksums(fresh))
    }

    @Test("renderfarm plugins text documents every parameter")
    func documented() throws {
        let result = CLI.run(["plugins", "text"])
        #expect(result.status == 0, "\(result.stderr)")
        for name in [
            "text", "markup", "font", "language", "size", "minSize", "weight", "style", "color", "rect", "align",
            "valign", "wrap", "maxLines", "fit", "lineHeight", "letterSpacing", "stroke", "shadow", "background",
            "direction", "events", "banner",
        ] {
            #expect(result.stdout.contains("\n    \(name) "), "\(name) is not documented")
        }
    }
}

/// Banner templates with event logs: what a plugin says of one event is told at the event's line of
/// the file, and a job's variants fill their columns while the events' fields stay for the banners.
@Suite("Banner templates: problems at the event's line, with variants")
struct EventLineTests {
    @Test("with variants, a banner template's columns are filled and its event fields left for the events")
    func variantsAndEvents() throws {
        let folder = try TemporaryFolder()
        try folder.write("time,user,gift\n0.5,aiko,Rose\n", to: "gifts.csv")
        try folder.write("streamer\nLuna\nKai\n", to: "streamers.csv")
        let job = try folder.write(
            """
            {"name": "v", "canvas": {"width": 200, "height": 200, "scale": 1}, "fps": 10, "duration": 2,
             "variants": {"rows": "streamers.csv", "name": "{{streamer}}"},
             "layers": [{"effect": "text", "params": {"text": "{{user}} → {{streamer}}: {{gift}}", "events": "gifts.csv"}}]}
            """, to: "job.json")
        let result = CLI.run(["trace", job, "--frames", "8"])
        #expect(result.status == 0, "\(result.stderr)")
        // Before, a placeholder inside a longer text replaced the whole text with the cell.
        #expect(result.stdout.contains(#""text":"aiko → Luna: Rose""#), "\(result.stdout)")
        #expect(result.stdout.contains(#""text":"aiko → Kai: Rose""#))
    }

    @Test("a banner whose event lacks a field its template names is refused at the CSV line (65)")
    func missingField() throws {
        let folder = try TemporaryFolder()
        try folder.write("time,user,gift\n0.5,aiko,Rose\n1.0,,Heart\n0.2,mika,Crown\n", to: "gifts.csv")
        let job = try folder.write(
            """
            {"name": "lines", "canvas": {"width": 200, "height": 200, "scale": 1}, "fps": 10, "duration": 2,
             "layers": [{"effect": "text", "params": {"text": "{{user}} sent {{gift}}", "events": "gifts.csv"}}]}
            """, to: "job.json")
        let result = CLI.run(["validate", job])
        #expect(result.status == 65)
        // Line 3 of the file is the second event in time order (0.2 s sorts first).
        #expect(result.stderr.contains("gifts.csv:3: user: missing"), "\(result.stderr)")
    }
}
