import Foundation
import Testing

/// What the examples need that used to fail: `export-otio -o` into a new folder, `status` on a variants
/// batch folder, `--scale` against a `canvas.scale` matrix, a CSV row with the wrong number of fields.
@Suite("Examples that run as written")
struct ExampleFixesTests {
    /// Renders frames 0-3 of jobs/live-hearts.json at a small scale into `out` inside `folder`.
    static func render(into folder: TemporaryFolder) throws -> String {
        let out = folder.url.appendingPathComponent("out").path
        let render = CLI.run([
            "render", "jobs/live-hearts.json", "--frames", "0-3", "--scale", "0.25", "--out", out, "--progress", "none",
        ])
        try #require(render.status == 0, "\(render.stderr)")
        return out
    }

    @Test("export-otio -o edit/x.otio creates edit/; a file it cannot write is named, not its temporary file")
    func exportIntoNewFolder() throws {
        let folder = try TemporaryFolder()
        let out = try Self.render(into: folder)
        let result = try Binary.run(["export-otio", out, "-o", "edit/live-hearts.otio"], in: folder.url)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: folder.path + "/edit/live-hearts.otio"))

        try folder.write("", to: "locked/keep")
        #expect(chmod(folder.path + "/locked", 0o555) == 0)
        defer { chmod(folder.path + "/locked", 0o755) }
        guard access(folder.path + "/locked", W_OK) != 0 else { return }  // root writes anyway
        let refused = try Binary.run(["export-otio", out, "-o", "locked/x.otio"], in: folder.url)
        #expect(refused.status == 73, "\(refused.stderr)")
        #expect(refused.stderr.contains("locked"), "\(refused.stderr)")
        #expect(!refused.stderr.contains(".rf-tmp-"), "\(refused.stderr)")
    }

    /// A batch of 2 rows × 2 scales, tiny.
    static func batch(in folder: TemporaryFolder) throws -> String {
        try folder.write("who,color\nann,#FF0000\nbob,#00FF00\n", to: "rows.csv")
        return try folder.write(
            #"""
            {"name": "badges", "fps": 10, "duration": 0.3, "canvas": {"width": 20, "height": 20, "scale": 1},
             "layers": [{"effect": "gradient", "params": {"from": "{{color}}"}}],
             "variants": {"rows": "rows.csv", "matrix": {"canvas.scale": [1, 2]}, "name": "{{who}}@{{canvas.scale}}x"}}
            """#, to: "badges.json")
    }

    @Test("status accepts a variants batch folder: a row per variant and a total")
    func batchStatus() throws {
        let folder = try TemporaryFolder()
        let job = try Self.batch(in: folder)
        let first = CLI.run(["render", job, "--variants", "ann@1x,bob@2x", "--progress", "none"])
        try #require(first.status == 0, "\(first.stderr)")
        let batch = folder.path + "/out/badges"
        let partial = CLI.run(["status", batch])
        #expect(partial.status == 1, "\(partial.stderr)")
        for row in [
            "\(batch): variants of badges: incomplete", "  ann@1x  complete, 3 of 3 frames done",
            "  ann@2x  not started, 0 of 3 frames done", "  bob@2x  complete, 3 of 3 frames done",
            "  total   2 of 4 variants complete, 6 of 12 frames done",
        ] {
            #expect(partial.stdout.contains(row + "\n"), "missing \(row):\n\(partial.stdout)")
        }
        #expect(CLI.run(["render", job, "--progress", "none"]).status == 0)
        let complete = CLI.run(["status", batch, "--json"])
        #expect(complete.status == 0, "\(complete.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(complete.stdout.utf8)) as? [String: Any])
        #expect(json["state"] as? String == "complete")
        #expect(json["done"] as? Int == 12 && json["total"] as? Int == 12)
        let variants = try #require(json["variants"] as? [[String: Any]])
        #expect(variants.compactMap { $0["variant"] as? String } == ["ann@1x", "ann@2x", "bob@1x", "bob@2x"])
    }

    @Test("--scale with a canvas.scale matrix is a usage error naming the matrix (exit 64)")
    func scaleMatrix() throws {
        let folder = try TemporaryFolder()
        let job = try Self.batch(in: folder)
        for command in [
            ["render", job, "--scale", "0.5"], ["preview", job, "-o", folder.path + "/s.png", "--scale", "1"],
        ] {
            let result = CLI.run(command)
            #expect(result.status == 64, "\(command): \(result.stderr)")
            #expect(result.stderr.contains(#"variants.matrix "canvas.scale""#), "\(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/out"))
    }

    @Test("a CSV row with the wrong number of fields is reported with the file's other problems")
    func csvFieldCount() throws {
        let folder = try TemporaryFolder()
        try folder.write("who,color\nann,#FF0000\nbob,#00FF00,extra\ncid,notacolour\ndee\n", to: "rows.csv")
        let job = try folder.write(
            #"{"name": "b", "duration": 0.1, "layers": [{"effect": "gradient", "params": {"from": "{{color}}"}}], "#
                + #""variants": {"rows": "rows.csv", "name": "{{who}}"}}"#, to: "job.json")
        let result = CLI.run(["validate", job])
        #expect(result.status == 65)
        for expected in [
            "rows.csv:3: has 3 fields; the header has 2 columns", "rows.csv:5: has 1 field; the header has 2 columns",
            #"rows.csv:4: column "color": expected a colour"#,
        ] {
            #expect(result.stderr.contains(expected), "missing \(expected):\n\(result.stderr)")
        }
        // An event log too.
        try folder.write("time,size\n0.1,30\n0.2\n0.3,abc\n", to: "events.csv")
        let events = try folder.write(
            #"{"duration": 1, "layers": [{"effect": "physics-bounce", "params": {"events": "events.csv"}}]}"#,
            to: "events.json")
        let log = CLI.run(["validate", events])
        #expect(log.status == 65)
        #expect(log.stderr.contains("events.csv:3: has 1 field; the header has 2 columns"), "\(log.stderr)")
        #expect(log.stderr.contains("events.csv:4: size: "), "\(log.stderr)")
    }
}
