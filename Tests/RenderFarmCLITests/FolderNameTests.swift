import Foundation
import RenderFarm
import Testing

@testable import RenderFarmCLI

/// Names that become folders stay in their folder, output folders that no render wrote are left alone,
/// and user data reaches the terminal escaped.
@Suite("Folder names that stay in their folder")
struct FolderNameTests {
    /// Bad names as JSON string literals, and how the message shows each.
    static let badNames: [(json: String, shown: String)] = [
        (#""""#, #""""#), (#"".""#, #"".""#), (#""..""#, #""..""#), (#""a/b""#, #""a/b""#),
        (#""x\n#SBATCH --uid=0\necho pwned""#, #""x\n#SBATCH --uid=0\necho pwned""#),
        (#""a\u0000b""#, #""a\u0000b""#), (#""\u001b[31mred""#, #""\u001B[31mred""#),
        (#""tab\there""#, #""tab\there""#),
    ]

    @Test(
        "validate refuses a job name that is not a folder name, with the value escaped (exit 65)", arguments: badNames)
    func badJobName(json: String, shown: String) throws {
        let folder = try TemporaryFolder()
        let job = try folder.write(
            #"{"name": \#(json), "duration": 0.1, "layers": [{"effect": "gradient"}]}"#, to: "job.json")
        let result = CLI.run(["validate", job])
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.contains("job.json: name: \(shown) cannot name a folder: it "), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        let raw = result.stderr.unicodeScalars.contains { $0 != "\n" && $0.properties.generalCategory == .control }
        #expect(!raw, "control characters escaped: \(result.stderr.debugDescription)")
    }

    @Test("validate refuses variant names that are not folder names, each at its row (exit 65)", arguments: badNames)
    func badVariantName(json: String, shown: String) throws {
        let folder = try TemporaryFolder()
        let job = try folder.write(
            #"{"name": "batch", "duration": 0.1, "layers": [{"effect": "gradient"}], "#
                + #""variants": {"rows": [{"who": "ok"}, {"who": \#(json)}], "name": "{{who}}"}}"#,
            to: "job.json")
        let result = CLI.run(["validate", job])
        #expect(result.status == 65, "\(result.stderr)")
        #expect(
            result.stderr.contains("job.json: variants.name: \(shown) cannot name a folder: it "), "\(result.stderr)")
        #expect(result.stderr.contains("(variants.rows[1])"), "\(result.stderr)")
    }

    @Test("a variant job's own name ('..' with a matrix) is refused too")
    func badVariantJobName() throws {
        let folder = try TemporaryFolder()
        let job = try folder.write(
            #"{"name": "..", "duration": 0.1, "layers": [{"effect": "gradient"}], "#
                + #""variants": {"matrix": {"canvas.scale": [1, 2]}}}"#, to: "job.json")
        let result = CLI.run(["validate", job])
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.contains(#"job.json: name: ".." cannot name a folder"#), "\(result.stderr)")
    }

    @Test(
        "an empty --out, -o or --video is a usage error (exit 64)",
        arguments: [
            (["render", "JOB", "--out", ""], "render", "--out \"\" names no folder"),
            (["render", "JOB", "--out="], "render", "--out \"\" names no folder"),
            (["prepare", "JOB", "--out", ""], "prepare", "--out \"\" names no folder"),
            (["submit", "JOB", "--slurm", "--dry-run", "--out", ""], "submit", "--out \"\" names no folder"),
            (["render", "JOB", "--video", ""], "render", "--video \"\" names no file"),
            (["export-otio", "OUT", "-o", ""], "export-otio", "-o \"\" names no file"),
        ])
    func emptyPath(arguments: [String], command: String, message: String) throws {
        let folder = try TemporaryFolder()
        let job = try folder.write(#"{"duration": 0.1, "layers": [{"effect": "gradient"}]}"#, to: "job.json")
        let result = CLI.run(arguments.map { $0 == "JOB" ? job : $0 == "OUT" ? folder.path : $0 })
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["job.json"])
    }

    /// A folder of the user's: a manifest and a frame of their own.
    static func userFolder(in folder: TemporaryFolder) throws -> URL {
        try folder.write(#"{"mine": true}"#, to: "mine/manifest.json")
        try folder.write("not a png", to: "mine/frame_00000.png")
        return folder.url.appendingPathComponent("mine")
    }

    @Test("render refuses an existing folder that is not a render folder, naming a file it would overwrite (exit 65)")
    func foreignFolder() throws {
        let folder = try TemporaryFolder()
        let mine = try Self.userFolder(in: folder)
        let job = try folder.write(#"{"duration": 0.1, "layers": [{"effect": "gradient"}]}"#, to: "job.json")
        let result = CLI.run(["render", job, "--out", mine.path, "-j", "1"])
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.contains("is not a render folder (it has no renderfarm.job.json)"), "\(result.stderr)")
        #expect(result.stderr.contains("would overwrite its manifest.json"), "\(result.stderr)")
        #expect(result.stderr.contains("--force"), "\(result.stderr)")
        // Nothing written: the user's files as they were, no lock, journal or cache.
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: mine.path).sorted() == [
                "frame_00000.png", "manifest.json",
            ])
        #expect(
            try String(contentsOf: mine.appendingPathComponent("manifest.json"), encoding: .utf8) == #"{"mine": true}"#)

        // The same through output.dir, and a folder whose only file is not one a render writes.
        try FileManager.default.removeItem(at: mine.appendingPathComponent("manifest.json"))
        let own = try folder.write(
            #"{"duration": 0.1, "output": {"dir": "mine"}, "layers": [{"effect": "gradient"}]}"#, to: "own.json")
        let viaJob = CLI.run(["render", own, "-j", "1"])
        #expect(viaJob.status == 65, "\(viaJob.stderr)")
        #expect(viaJob.stderr.contains("own.json: output.dir: "), "\(viaJob.stderr)")
        #expect(viaJob.stderr.contains("would overwrite its frame_00000.png"), "\(viaJob.stderr)")
        try FileManager.default.removeItem(at: mine.appendingPathComponent("frame_00000.png"))
        try folder.write("notes", to: "mine/notes.txt")
        let notes = CLI.run(["render", own, "-j", "1"])
        #expect(notes.status == 65)
        #expect(notes.stderr.contains("it holds notes.txt, which no render wrote"), "\(notes.stderr)")

        // --force renders into it; from then on it is a render folder and renders again without --force.
        let forced = CLI.run(["render", own, "-j", "1", "--force"])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(FileManager.default.fileExists(atPath: mine.appendingPathComponent("notes.txt").path))
        let again = CLI.run(["render", own, "-j", "1"])
        #expect(again.status == 0, "\(again.stderr)")
    }

    @Test(
        "a folder holding only what renderfarm writes before its job record (a lock, a cache, scripts) is not foreign")
    func ownFilesOnly() throws {
        let folder = try TemporaryFolder()
        try folder.write("", to: "out/renderfarm.lock")
        try folder.write("", to: "out/renderfarm.cache/physics-bounce/checkpoint")
        try folder.write("#!/bin/bash\n", to: "out/slurm/render.sbatch")
        let job = try folder.write(#"{"duration": 0.1, "layers": [{"effect": "gradient"}]}"#, to: "job.json")
        let result = CLI.run(["render", job, "--out", folder.url.appendingPathComponent("out").path, "-j", "1"])
        #expect(result.status == 0, "\(result.stderr)")
    }

    @Test("terminal output escapes control characters, keeping line breaks and tabs")
    func terminalEscapes() throws {
        #expect(Terminal.escaped("plain\ttext\nline") == "plain\ttext\nline")
        #expect(Terminal.escaped("\u{1B}[31mred\r\u{7F}\u{85}\u{0}") == "\\x1B[31mred\\r\\x7F\\u0085\\x00")
        #expect(Terminal.escaped("é © 🎉") == "é © 🎉")
        // A job file whose name holds an escape sequence: the error names it escaped.
        let folder = try TemporaryFolder()
        let job = try folder.write("{", to: "bad\u{1B}]0;title\u{7}.json")
        let result = CLI.run(["validate", job])
        #expect(result.status == 65)
        #expect(result.stderr.contains("bad\\x1B]0;title\\x07.json"), "\(result.stderr.debugDescription)")
        #expect(!result.stderr.contains("\u{1B}"))
    }
}
