import Foundation
import Testing

/// A command's own refusals (nothing below it threw) go through the one exit-code map like every
/// error: each is told once on standard error, in the command's words, with the code the
/// CommandLine article lists for its kind, and nothing is written.
@Suite("Command refusals, in process")
struct CommandRefusalTests {
    /// Runs `arguments` and expects exit `status` with `message` as the first error line.
    private func expectRefusal(
        _ arguments: [String], _ status: Int32, _ message: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let result = CLI.run(arguments)
        #expect(result.status == status, "\(arguments): \(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stdout.isEmpty, "\(arguments): \(result.stdout)", sourceLocation: sourceLocation)
        let first = result.stderr.split(separator: "\n").first.map(String.init) ?? ""
        #expect(
            first.hasPrefix("renderfarm: error: " + message), "\(arguments): \(result.stderr)",
            sourceLocation: sourceLocation)
    }

    @Test("missing inputs exit 66")
    func missingInputs() throws {
        let folder = try TemporaryFolder()
        let video = folder.url.appendingPathComponent("absent.mp4").path
        expectRefusal(
            ["unpack-alpha", video, "-o", folder.url.appendingPathComponent("frames").path], 66,
            "\(video): no such video")
        #expect(!FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("frames").path))
        let library = folder.url.appendingPathComponent("absent.so").path
        expectRefusal(["plugin", "check", library], 66, "\(library): no such file")
        expectRefusal(["studio", folder.path], 66, "\(folder.path): no job file found")
        expectRefusal(
            ["man-page", "--article", folder.url.appendingPathComponent("absent.md").path, "--name", "x"], 66,
            "--article: ")
    }

    @Test("a plugin that is not installed exits 69, with the ids that are")
    func unavailablePlugin() {
        expectRefusal(
            ["plugins", "floating-hart"], 69,
            "no plugin \"floating-hart\" (did you mean \"floating-heart\"?); installed: ")
        expectRefusal(["plugin", "check", "floating-hart"], 69, "no plugin \"floating-hart\"")
    }

    @Test("unusable data exits 65")
    func invalidData() {
        expectRefusal(
            ["plugin", "check", "floating-heart", "--params", "{\"rate\": "], 65, "--params expects a JSON object")
        expectRefusal(
            ["mix", CLI.repositoryFile("jobs/bounce.json"), "-o", "/nonexistent/mix.wav"], 65,
            "bounce: nothing is heard in the frames mixed (no \"audio\" section, and no layer that plays sound, "
                + "is not muted and is heard in them); nothing to mix")
    }

    @Test("plugin new: a bad id is a usage error (64), a folder in the way cannot be created (73)")
    func scaffold() throws {
        let folder = try TemporaryFolder()
        expectUsageRefusal(
            ["plugin", "new", "Bad_ID", "--lang", "c", "--dir", folder.path], "\"Bad_ID\" is not a plugin id")
        let notes = try folder.write("kept", to: "sparkle/notes.txt")
        expectRefusal(
            ["plugin", "new", "sparkle", "--lang", "c", "--dir", folder.path], 73,
            "\(folder.path)/sparkle exists and is not empty")
        #expect((try? String(contentsOfFile: notes, encoding: .utf8)) == "kept")
    }

    @Test("usage refusals name the command's help")
    func usage() throws {
        let folder = try TemporaryFolder()
        let jobs = ["jobs/bounce.json", "jobs/burst.json"].map(CLI.repositoryFile)
        expectUsageError(
            ["submit", "--slurm"] + jobs, "submitting 2 jobs needs --out DIR (each job renders into DIR/<name>)",
            command: "submit")
        let video = folder.url.appendingPathComponent("out.mp4").path
        expectUsageError(
            ["render", "--video", video] + jobs,
            "--video \(video) names one file for 2 jobs or variants; name each one's with a placeholder, e.g. "
                + "--video 'videos/{{variant}}.mp4'", command: "render")
        #expect(!FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("out.mp4").path))
    }

    /// A usage refusal whose first line starts with `message`.
    private func expectUsageRefusal(_ arguments: [String], _ message: String) {
        expectRefusal(arguments, 64, message)
    }
}
