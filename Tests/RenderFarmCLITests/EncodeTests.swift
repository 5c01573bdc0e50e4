import Foundation
import Testing

/// `renderfarm encode` runs the real ffmpeg. `make test` installs ffmpeg first (Makefile
/// `deps-handoff`), so in CI these always run; a bare `swift test` without ffmpeg skips them.
@Suite("encode with ffmpeg", .enabled(if: Tools.hasFFmpeg, "ffmpeg/ffprobe not installed: apt-get install ffmpeg"))
struct EncodeTests {
    /// 30 frames of jobs/live-hearts.json (750×1334 at 60 fps, transparent background).
    static func render(_ folder: TemporaryFolder, frames: String = "0-29") throws {
        let render = CLI.run([
            "render", "jobs/live-hearts.json", "--frames", frames, "--out", folder.path,
            "--progress", "none", "-j", "2",
        ])
        try #require(render.status == 0, "\(render.stderr)")
    }

    struct Expectation: Sendable, CustomTestStringConvertible {
        var preset: String
        var file: String
        var frames: Int
        var rate: Double
        var width: Int
        var alphaDecoder: String?
        var testDescription: String { preset }
    }

    static let presets: [Expectation] = [
        Expectation(preset: "mp4", file: "live-hearts.mp4", frames: 30, rate: 60, width: 750, alphaDecoder: nil),
        Expectation(
            preset: "webm-alpha", file: "live-hearts.webm", frames: 30, rate: 60, width: 750,
            alphaDecoder: "libvpx-vp9"),
        Expectation(preset: "prores4444", file: "live-hearts.mov", frames: 30, rate: 60, width: 750, alphaDecoder: ""),
        // GIF delays are whole centiseconds: above 50 fps every other frame is kept (30 fps).
        Expectation(preset: "gif", file: "live-hearts.gif", frames: 15, rate: 30, width: 750, alphaDecoder: nil),
        Expectation(preset: "apng", file: "live-hearts.apng", frames: 30, rate: 60, width: 750, alphaDecoder: ""),
    ]

    @Test("each preset gives the manifest's frame count, rate and (padded) size", arguments: presets)
    func preset(_ expected: Expectation) throws {
        let folder = try TemporaryFolder()
        try Self.render(folder)
        let encode = CLI.run(["encode", folder.path, "--preset", expected.preset, "--progress", "none"])
        #expect(encode.status == 0, "\(encode.stderr)")
        let file = folder.url.appendingPathComponent(expected.file).path
        let probe = try Tools.probe(file)
        #expect(Int(probe["nb_read_frames"] ?? "") == expected.frames, "\(probe)")
        #expect(Int(probe["width"] ?? "") == expected.width && Int(probe["height"] ?? "") == 1334, "\(probe)")
        // GIF rounds each delay to a centisecond, so its average rate is within a few percent.
        let rate = Tools.rate(expected.preset == "gif" ? probe["avg_frame_rate"] : probe["r_frame_rate"])
        #expect(abs(rate - expected.rate) / expected.rate < (expected.preset == "gif" ? 0.12 : 0.001), "\(probe)")

        // The manifest records the encode with its command and the file's checksum.
        let manifest = try JSONSerialization.jsonObject(
            with: Data(contentsOf: folder.url.appendingPathComponent("manifest.json")))
        let encodes = (manifest as? [String: Any])?["encodes"] as? [[String: Any]] ?? []
        let entry = try #require(encodes.first { $0["file"] as? String == expected.file })
        #expect(entry["preset"] as? String == expected.preset)
        #expect((entry["command"] as? String)?.hasPrefix("ffmpeg ") == true)
        #expect(entry["sha256"] as? String == sha256(try Data(contentsOf: URL(fileURLWithPath: file))))

        if let decoder = expected.alphaDecoder {
            // Frame 0 of live-hearts is empty: a transparent corner proves the alpha channel survived.
            let pixels = try Tools.decode(
                file, pixelFormat: "rgba", frames: 1, decoder: decoder.isEmpty ? nil : decoder)
            try #require(pixels.count == 750 * 1334 * 4)
            #expect(pixels[3] == 0, "corner alpha is \(pixels[3])")
        }
    }

    @Test("an incomplete render is refused without --allow-missing")
    func incomplete() throws {
        let folder = try TemporaryFolder()
        try Self.render(folder, frames: "0-9")
        let manifest = folder.url.appendingPathComponent("manifest.json")
        var text = try String(contentsOf: manifest, encoding: .utf8)
        text = text.replacingOccurrences(of: "\"complete\": true", with: "\"complete\": false")
            .replacingOccurrences(of: "\"missing\": \"\"", with: "\"missing\": \"10-19\"")
        try text.write(to: manifest, atomically: true, encoding: .utf8)
        let refused = CLI.run(["encode", folder.path, "--progress", "none"])
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("--allow-missing"))
        let allowed = CLI.run(["encode", folder.path, "--allow-missing", "--progress", "none"])
        #expect(allowed.status == 0, "\(allowed.stderr)")
    }

    @Test("--verbose prints the exact ffmpeg command: frames piped in the encoder's format, or the PNGs")
    func verbose() throws {
        let folder = try TemporaryFolder()
        try Self.render(folder, frames: "0-4")
        let encode = CLI.run([
            "encode", folder.path, "--verbose", "--progress", "none", "-o",
            folder.url.appendingPathComponent("v.mp4").path,
        ])
        #expect(encode.status == 0, "\(encode.stderr)")
        #expect(encode.stderr.contains("ffmpeg -hide_banner"))
        #expect(
            encode.stderr.contains("-f rawvideo -pixel_format yuv420p -video_size 750x1334 -framerate 60 -i pipe:0"))
        #expect(!encode.stderr.contains("-filter_complex"))
        let apng = CLI.run([
            "encode", folder.path, "--verbose", "--progress", "none", "--preset", "apng", "-o",
            folder.url.appendingPathComponent("v.apng").path,
        ])
        #expect(apng.status == 0, "\(apng.stderr)")
        #expect(apng.stderr.contains("-start_number 0 -i frame_%05d.png"))
    }
}

@Suite("encode without ffmpeg")
struct EncodeWithoutFFmpegTests {
    @Test("a missing ffmpeg exits 69 with the install hint")
    func missing() throws {
        let folder = try TemporaryFolder()
        let render = CLI.run([
            "render", "jobs/live-hearts.json", "--frames", "0-1", "--out", folder.path,
            "--progress", "none",
        ])
        try #require(render.status == 0)
        let encode = CLI.run(["encode", folder.path], environment: ["PATH": "/nonexistent"])
        #expect(encode.status == 69)
        #expect(encode.stderr.contains("apt-get install ffmpeg"))
        let video = CLI.run(
            [
                "render", "jobs/live-hearts.json", "--frames", "0-1", "--video",
                folder.url.appendingPathComponent("v.mp4").path,
            ], environment: ["PATH": "/nonexistent"])
        #expect(video.status == 69)
    }

    @Test("usage errors: --crf for a preset without CRF, --preset without --video, gif on a pipe")
    func usage() throws {
        #expect(CLI.run(["encode", "x", "--preset", "apng", "--crf", "20"]).status == 64)
        #expect(CLI.run(["encode", "x", "--crf", "99"]).status == 64)
        #expect(CLI.run(["render", "jobs/live-hearts.json", "--preset", "mp4"]).status == 64)
        #expect(
            CLI.run(["render", "jobs/live-hearts.json", "--video", "/tmp/x.mp4", "--shard", "0/2"]).status == 64)
        #expect(CLI.run(["encode", "/nonexistent-folder"]).status == 66 || !Tools.hasFFmpeg)
    }

    @Test("every new command has --help", arguments: ["encode", "export-otio", "preview", "compare", "render"])
    func help(command: String) throws {
        let help = CLI.run([command, "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("USAGE: renderfarm \(command)"))
    }
}
