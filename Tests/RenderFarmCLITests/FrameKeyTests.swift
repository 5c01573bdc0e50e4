import Foundation
import Testing

/// Frame keys (ABI `frame_key`): frames that draw alike are drawn once and written from the first,
/// an edit redraws only the frames whose keys changed, and shards learn their frames through
/// `prepare`. The test plugin's `holdFrames` keeps each colour for N frames and keys frames by it.
@Suite("Frame keys: reused duplicates, incremental re-renders, prepare")
struct FrameKeyTests {
    static let plugins = ["--plugin-path", Binary.testPluginDirectory]

    /// A job of 30 frames at 1 fps of the test plugin with `params`.
    static func write(in folder: TemporaryFolder, params: String, output: String = "out", duplicates: String? = nil)
        throws -> String
    {
        try OutputTrustTests.job(in: folder, params: params, frames: 30, output: output, duplicates: duplicates)
    }

    /// The `finish` event of a `--progress json` render.
    static func finish(_ result: Binary.Result) -> [String: Any]? {
        progressEvents("finish", in: result.stderr).first
    }

    /// Frames of `--progress json` frame events, with the frame each was reused from (or nil).
    static func frameEvents(_ result: Binary.Result) -> [Int: Int?] {
        var frames: [Int: Int?] = [:]
        for event in progressEvents("frame", in: result.stderr) {
            if let index = event["frame"] as? Int { frames[index] = event["reusedFrom"] as? Int }
        }
        return frames
    }

    static func bytes(_ folder: URL, _ index: Int) -> Data? {
        try? Data(contentsOf: folder.appendingPathComponent(String(format: "frame_%05d.png", index)))
    }

    @Test("frames with equal keys are drawn once, written from the first, marked in the manifest, identical")
    func duplicatesReused() throws {
        let folder = try TemporaryFolder()
        let job = try Self.write(in: folder, params: #"{"holdFrames": 5}"#)
        let render = CLI.run(["render", job, "--progress", "json", "-j", "2"] + Self.plugins)
        #expect(render.status == 0, "\(render.stderr)")
        let finish = Self.finish(render)
        #expect(finish?["rendered"] as? Int == 6)
        #expect(finish?["reused"] as? Int == 24)
        #expect(finish?["skipped"] as? Int == 0)
        let events = Self.frameEvents(render)
        #expect(events.count == 30)
        for index in 0..<30 {
            let source = index - index % 5
            #expect(events[index] == (index == source ? nil : source), "frame \(index)")
        }
        #expect(render.stdout.contains("6 frames rendered, 24 reused"))

        let out = folder.url.appendingPathComponent("out")
        let manifest = try #require(OutputTrustTests.manifest(out))
        let frames = try #require(manifest["frames"] as? [[String: Any]])
        #expect(frames.count == 30)
        #expect(frames[7]["reusedFrom"] as? Int == 5)
        #expect(frames[5]["reusedFrom"] == nil)

        // A reused frame equals the same frame drawn by itself (here its source is not in the run).
        let alone = folder.url.appendingPathComponent("alone")
        let single = CLI.run(
            ["render", job, "--frames", "7,13", "--out", alone.path, "--progress", "json"] + Self.plugins)
        #expect(Self.finish(single)?["rendered"] as? Int == 2)
        for index in [7, 13] {
            let drawn = try #require(Self.bytes(alone, index))
            #expect(Self.bytes(out, index) == drawn, "frame \(index)")
        }
        // Frames of different keys differ.
        #expect(Self.bytes(out, 4) != Self.bytes(out, 5))
    }

    @Test("an edit redraws exactly the frames whose key changed; the folder equals a clean render byte for byte")
    func incrementalRerender() throws {
        let folder = try TemporaryFolder()
        let job = try Self.write(in: folder, params: #"{"holdFrames": 5}"#)
        let first = CLI.run(["render", job, "--progress", "none"] + Self.plugins)
        #expect(first.status == 0, "\(first.stderr)")

        // Frames 12 and 13 turn red: only they change.
        _ = try Self.write(in: folder, params: #"{"holdFrames": 5, "markFrames": [12, 13]}"#)
        let edit = CLI.run(["render", job, "--progress", "json"] + Self.plugins)
        #expect(edit.status == 0, "\(edit.stderr)")
        #expect(Self.finish(edit)?["rendered"] as? Int == 1)
        #expect(Self.finish(edit)?["reused"] as? Int == 1)
        #expect(Self.finish(edit)?["skipped"] as? Int == 28)
        #expect(Set(Self.frameEvents(edit).keys) == [12, 13])

        let clean = folder.url.appendingPathComponent("clean")
        let scratch = CLI.run(["render", job, "--out", clean.path, "--progress", "none"] + Self.plugins)
        #expect(scratch.status == 0, "\(scratch.stderr)")
        let out = folder.url.appendingPathComponent("out")
        for index in 0..<30 {
            let expected = try #require(Self.bytes(clean, index))
            #expect(Self.bytes(out, index) == expected, "frame \(index)")
        }
        let status = CLI.run(["status", out.path, "--json"])
        #expect(status.stdout.contains(#""state":"complete""#), "\(status.stdout)")
    }

    @Test("output.duplicates link writes hard links to the first frame's inode")
    func hardLinks() throws {
        let folder = try TemporaryFolder()
        let job = try Self.write(in: folder, params: #"{"holdFrames": 10}"#, duplicates: "link")
        let render = CLI.run(["render", job, "--progress", "none"] + Self.plugins)
        #expect(render.status == 0, "\(render.stderr)")
        let out = folder.url.appendingPathComponent("out")
        func inode(_ index: Int) throws -> Int? {
            let path = out.appendingPathComponent(String(format: "frame_%05d.png", index)).path
            return try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int
        }
        #expect(try inode(13) == inode(10))
        #expect(try inode(10) != inode(9))

        _ = try Self.write(in: folder, params: #"{"holdFrames": 10}"#, duplicates: "symlink")
        let bad = CLI.run(["validate", job] + Self.plugins)
        #expect(bad.status == 65)
        #expect(bad.stderr.contains(#"output.duplicates: expected "copy" or "link", got "symlink""#), "\(bad.stderr)")
    }

    @Test("a frame whose source failed fails naming it; shards prepare their own frames and merge to complete")
    func failuresAndShards() throws {
        let folder = try TemporaryFolder()
        let log = folder.url.appendingPathComponent("prepare.log").path
        let job = try Self.write(in: folder, params: #"{"holdFrames": 5, "failFrames": [5]}"#)
        let render = CLI.run(["render", job, "--progress", "none", "-j", "1"] + Self.plugins)
        #expect(render.status == 1)
        let manifest = try #require(OutputTrustTests.manifest(folder.url.appendingPathComponent("out")))
        #expect(manifest["failed"] as? String == "5-9")
        let frames = try #require(manifest["frames"] as? [[String: Any]])
        #expect((frames[8]["error"] as? String)?.hasPrefix("draws the same as frame 5, which failed") == true)

        _ = try Self.write(in: folder, params: #"{"holdFrames": 5, "prepareLog": "\#(log)"}"#, output: "sharded")
        for shard in 0..<3 {
            let part = CLI.run(["render", job, "--shard", "\(shard)/3", "--progress", "none"] + Self.plugins)
            #expect(part.status == 0, "\(part.stderr)")
        }
        // Each shard prepares its own frames, with the job's cache folder (ABI prepare_with_cache),
        // which no one makes while the plugin keeps nothing in it.
        let sharded = folder.url.appendingPathComponent("sharded")
        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        #expect(lines.map { $0.split(separator: " ").prefix(2).joined(separator: " ") } == ["0 9", "10 19", "20 29"])
        #expect(lines.allSatisfy { $0.hasSuffix("/sharded/renderfarm.cache/test-faults") }, "\(lines)")
        #expect(!FileManager.default.fileExists(atPath: sharded.appendingPathComponent("renderfarm.cache").path))
        let merge = CLI.run(["merge", sharded.path])
        #expect(merge.status == 0, "\(merge.stderr)")
        #expect(OutputTrustTests.manifest(sharded)?["state"] as? String == "complete")

        // Validation draws nothing and prepares nothing.
        let validate = CLI.run(["validate", job] + Self.plugins)
        #expect(validate.status == 0, "\(validate.stderr)")
        #expect(try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").count == 3)
    }

    @Test("prepare passes the cache up to the last frame; a preview makes none; submit runs prepare first")
    func prepareCommand() throws {
        let folder = try TemporaryFolder()
        let log = folder.url.appendingPathComponent("prepare.log").path
        let job = try Self.write(in: folder, params: #"{"holdFrames": 5, "prepareLog": "\#(log)"}"#)
        let out = folder.url.appendingPathComponent("out")
        let sheet = folder.url.appendingPathComponent("sheet.png").path
        let preview = CLI.run(["preview", job, "-o", sheet, "--frames", "3"] + Self.plugins)
        #expect(preview.status == 0, "\(preview.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out.path), "a preview makes no output folder")

        let prepare = CLI.run(["prepare", job] + Self.plugins)
        #expect(prepare.status == 0, "\(prepare.stderr)")
        #expect(prepare.stdout.contains("up to frame 29, no layer keeps anything"), "\(prepare.stdout)")
        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(lines.first == "3 3 -", "\(lines)")
        #expect(lines.last?.hasPrefix("29 29 ") == true, "\(lines)")
        #expect(lines.last?.hasSuffix("/out/renderfarm.cache/test-faults") == true, "\(lines)")
        // The plugin wrote nothing there, so no cache folder was made: the output folder holds only
        // the lock prepare took before the layers could write.
        let left = (try? FileManager.default.contentsOfDirectory(atPath: out.path)) ?? []
        #expect(left == ["renderfarm.lock"], "an unused cache leaves nothing but the lock: \(left)")

        // A cache that exists (a plugin kept something in it) is what a preview uses; it makes none.
        let cache = out.appendingPathComponent("renderfarm.cache/test-faults")
        try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
        try Data("kept".utf8).write(to: cache.appendingPathComponent("state"))
        // Half-written files of a writer that died go once they are an hour old.
        let stale = cache.appendingPathComponent(".rf-tmp-1-1-state")
        let young = cache.appendingPathComponent(".rf-tmp-1-2-state")
        try Data("half".utf8).write(to: stale)
        try Data("half".utf8).write(to: young)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -7200)], ofItemAtPath: stale.path)
        let again = CLI.run(["preview", job, "-o", sheet, "--frames", "4"] + Self.plugins)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(!FileManager.default.fileExists(atPath: stale.path))
        #expect(FileManager.default.fileExists(atPath: young.path), "a young one may be another host's write")
        let last = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").last.map(String.init)
        #expect(last?.hasPrefix("4 4 /") == true && last?.hasSuffix("/out/renderfarm.cache/test-faults") == true)

        let dryRun = CLI.run(["submit", job, "--slurm", "--tasks", "2", "--dry-run"] + Self.plugins)
        #expect(dryRun.status == 0, "\(dryRun.stderr)")
        #expect(dryRun.stdout.contains("slurm/prepare.sbatch"), "\(dryRun.stdout)")
        #expect(dryRun.stdout.contains("prepare \(job)"), "\(dryRun.stdout)")
        #expect(dryRun.stdout.contains("--dependency=afterok:\"$prepare\""), "\(dryRun.stdout)")
        let direct = CLI.run(["submit", job, "--slurm", "--no-prepare", "--dry-run"] + Self.plugins)
        #expect(!direct.stdout.contains("prepare.sbatch"), "\(direct.stdout)")
    }
}
