import Foundation
import Testing

/// A path with a line break in it is shown escaped (`a\nb`), on its line, in every message that names it:
/// a message's own line breaks lay out lists and excerpts, a path's must not start a line of its own.
@Suite("Paths in messages")
struct PathMessageTests {
    /// Every line of `text` that is not one of a message's: a piece of a path broken off.
    static func strayLines(_ text: String, starts: [String]) -> [Substring] {
        text.split(separator: "\n").filter { line in !starts.contains { line.hasPrefix($0) } }
    }

    @Test("a line break in a job file's, an output folder's or a missing file's path is shown as \\n")
    func lineBreakInPath() throws {
        let folder = try TemporaryFolder()
        let escaped = folder.path + "/a\\nb"
        let bad = try folder.write(
            #"{"canvas": {"width": 50, "height": 50, "scale": 1}, "fps": 10, "duration": 0.1, "#
                + #""layers": [{"effect": "nope"}]}"#, to: "a\nb/bad.json")
        let validate = CLI.run(["validate", bad])
        #expect(validate.status == 65, "\(validate.stderr)")
        #expect(validate.stderr.contains("renderfarm: error: \(escaped)/bad.json: layers[0].effect: unknown effect"))
        #expect(Self.strayLines(validate.stderr, starts: ["renderfarm: "]).isEmpty, "\(validate.stderr)")

        let good = try folder.write(
            #"{"canvas": {"width": 50, "height": 50, "scale": 1}, "fps": 10, "duration": 0.1, "#
                + #""layers": [{"effect": "gradient"}]}"#, to: "a\nb/good.json")
        let render = CLI.run(["render", good, "--progress", "none", "--out", folder.path + "/o\nut"])
        #expect(render.status == 0, "\(render.stderr)")
        #expect(render.stdout.contains("  frames:   \(folder.path)/o\\nut\n"), "\(render.stdout)")
        #expect(
            Self.strayLines(render.stdout, starts: ["good: ", "  frames: ", "  manifest: ", "time: "]).isEmpty,
            "\(render.stdout)")
        let status = CLI.run(["status", folder.path + "/o\nut"])
        #expect(status.stdout.hasPrefix("\(folder.path)/o\\nut: complete\n"), "\(status.stdout)")

        for arguments in [
            ["status", escaped + "/none"], ["merge", escaped + "/none"], ["encode", escaped + "/none"],
        ] {
            let missing = CLI.run(arguments.map { $0.replacingOccurrences(of: "\\n", with: "\n") })
            #expect(missing.status != 0, "\(arguments[0]): \(missing.stderr)")
            #expect(missing.stderr.contains("\(escaped)/none"), "\(arguments[0]): \(missing.stderr)")
            #expect(Self.strayLines(missing.stderr, starts: ["renderfarm: "]).isEmpty, "\(missing.stderr)")
        }
    }
}
