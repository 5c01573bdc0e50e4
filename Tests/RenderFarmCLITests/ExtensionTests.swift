import Foundation
import Testing

/// Issue 12, item 2: the file name's extension picks the format; a contradicting `--preset` is refused.
@Suite(
    "extensions pick the format", .enabled(if: Tools.hasFFmpeg, "ffmpeg/ffprobe not installed: apt-get install ffmpeg"))
struct ExtensionTests {
    /// Small and quick: 4 frames of live-hearts at a tenth of its size.
    static let renderArguments = ["jobs/live-hearts.json", "--frames", "0-3", "--scale", "0.2", "--progress", "none"]

    @Test(
        "render --video FILE: the container and codec follow the extension",
        arguments: [
            ("guess.webm", "vp9"), ("guess.mov", "prores"), ("guess.mp4", "h264"), ("guess.apng", "apng"),
        ])
    func renderVideo(name: String, codec: String) throws {
        let folder = try TemporaryFolder()
        let file = folder.url.appendingPathComponent(name).path
        let result = CLI.run(["render"] + Self.renderArguments + ["--video", file])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Tools.probe(file)["codec_name"] == codec)
        let container = try Self.container(file)
        #expect(container.contains(Self.containers[codec] ?? "?"), "\(container)")
    }

    @Test(
        "encode -o FILE: the container and codec follow the extension",
        arguments: [
            ("enc.mov", "prores"), ("enc.webm", "vp9"), ("enc.gif", "gif"),
        ])
    func encode(name: String, codec: String) throws {
        let folder = try TemporaryFolder()
        let frames = folder.url.appendingPathComponent("frames").path
        let render = CLI.run(["render"] + Self.renderArguments + ["--out", frames])
        try #require(render.status == 0, "\(render.stderr)")
        let file = folder.url.appendingPathComponent(name).path
        let result = CLI.run(["encode", frames, "-o", file, "--progress", "none"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Tools.probe(file)["codec_name"] == codec)
        let container = try Self.container(file)
        #expect(container.contains(Self.containers[codec] ?? "?"), "\(container)")
    }

    @Test("a preset that contradicts the extension exits 64 naming both; an unknown extension needs --preset")
    func contradiction() throws {
        let folder = try TemporaryFolder()
        let webm = folder.url.appendingPathComponent("guess.webm").path
        let render = CLI.run(["render"] + Self.renderArguments + ["--video", webm, "--preset", "mp4"])
        #expect(render.status == 64)
        #expect(render.stderr.contains("--preset mp4 contradicts") && render.stderr.contains("webm-alpha"))
        #expect(!FileManager.default.fileExists(atPath: webm))
        let encode = CLI.run(["encode", folder.path, "-o", "x.mov", "--preset", "gif"])
        #expect(encode.status == 64)
        #expect(encode.stderr.contains("--preset gif contradicts") && encode.stderr.contains("prores4444"))
        let unknown = CLI.run(["render"] + Self.renderArguments + ["--video", "/tmp/x.mkv"])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains(".mp4, .webm, .mov, .gif, .apng"), "\(unknown.stderr)")
    }

    @Test("preview -o refuses a name that is not .png")
    func previewPNG() throws {
        let folder = try TemporaryFolder()
        let sheet = folder.url.appendingPathComponent("x.jpg").path
        let result = CLI.run([
            "preview", "jobs/live-hearts.json", "-o", sheet, "--frames", "0", "--scale", "0.2",
        ])
        #expect(result.status == 64)
        #expect(result.stderr.contains("a contact sheet is a PNG"))
        #expect(!FileManager.default.fileExists(atPath: sheet))
    }

    /// What ffprobe names each codec's container.
    static let containers = ["vp9": "webm", "prores": "mov", "h264": "mp4", "apng": "apng", "gif": "gif"]

    /// ffprobe's `format_name` of `file`, e.g. `matroska,webm` or `mov,mp4,m4a,3gp,3g2,mj2`.
    static func container(_ file: String) throws -> String {
        let output = try Tools.run(
            Tools.find("ffprobe") ?? "ffprobe",
            ["-v", "error", "-show_entries", "format=format_name", "-of", "default=noprint_wrappers=1:nokey=1", file])
        return output.text.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
