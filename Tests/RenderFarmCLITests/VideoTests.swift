import Foundation
import Testing

@Suite("render --video", .enabled(if: Tools.hasFFmpeg, "ffmpeg/ffprobe not installed: apt-get install ffmpeg"))
struct VideoTests {
    @Test("--video of live-hearts decodes to the same frames as encoding its PNGs", arguments: ["mp4", "webm-alpha"])
    func identicalToEncode(preset: String) throws {
        let folder = try TemporaryFolder()
        let ext = preset == "mp4" ? "mp4" : "webm"
        let streamed = folder.url.appendingPathComponent("streamed.\(ext)").path
        let video = try Binary.run([
            "render", "jobs/live-hearts.json", "--frames", "0-29", "--video", streamed,
            "--preset", preset, "--progress", "none", "-j", "2",
        ])
        #expect(video.status == 0, "\(video.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("frame_00000.png").path))

        let pngs = folder.url.appendingPathComponent("pngs")
        let render = try Binary.run([
            "render", "jobs/live-hearts.json", "--frames", "0-29", "--out", pngs.path,
            "--progress", "none", "-j", "2",
        ])
        try #require(render.status == 0, "\(render.stderr)")
        let encoded = folder.url.appendingPathComponent("encoded.\(ext)").path
        let encode = try Binary.run(["encode", pngs.path, "-o", encoded, "--preset", preset, "--progress", "none"])
        try #require(encode.status == 0, "\(encode.stderr)")

        let decoder = preset == "mp4" ? nil : "libvpx-vp9"
        let format = preset == "mp4" ? "rgb24" : "rgba"
        let a = try Tools.decode(streamed, pixelFormat: format, frames: 30, decoder: decoder)
        let b = try Tools.decode(encoded, pixelFormat: format, frames: 30, decoder: decoder)
        #expect(a.count == 30 * 750 * 1334 * (format == "rgb24" ? 3 : 4))
        #expect(sha256(a) == sha256(b), "decoded frames differ between render --video and encode")
    }

    @Test("an opaque job with a frame step streams at fps / step")
    func stepped() throws {
        let folder = try TemporaryFolder()
        let file = folder.url.appendingPathComponent("g.mp4").path
        let video = try Binary.run([
            "render", "jobs/hearts-on-gradient.json", "--frames", "0-38:2", "--scale", "0.4",
            "--video", file, "--progress", "none",
        ])
        #expect(video.status == 0, "\(video.stderr)")
        let probe = try Tools.probe(file)
        #expect(probe["nb_read_frames"] == "20")
        #expect(Tools.rate(probe["r_frame_rate"]) == 15)
        // 375×667 points at 0.4: 150×267 pixels, padded to an even 268 for yuv420p.
        #expect(probe["width"] == "150" && probe["height"] == "268", "\(probe)")
    }

    @Test("gif needs the PNG route")
    func gifRefused() throws {
        let result = try Binary.run([
            "render", "jobs/live-hearts.json", "--frames", "0-1", "--video", "/tmp/x.gif",
            "--preset", "gif",
        ])
        #expect(result.status == 64)
        #expect(result.stderr.contains("renderfarm encode"))
    }

    @Test(
        "peak memory does not grow with the frame count",
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/time"), "GNU time missing: apt-get install time")
    )
    func boundedMemory() throws {
        let folder = try TemporaryFolder()
        func peak(_ frames: String) throws -> Double {
            let output = try Tools.run(
                "/usr/bin/time",
                [
                    "-f", "%M", Binary.executable, "render", "jobs/live-hearts.json", "--frames", frames, "--scale",
                    "0.5",
                    "--video", folder.url.appendingPathComponent("m.mp4").path, "--progress", "none", "-j", "2",
                ], in: Binary.packageRoot)
            try #require(output.status == 0, "\(output.stderr)")
            return Double(output.stderr.split(separator: "\n").last.map(String.init) ?? "") ?? 0
        }
        let short = try peak("0-29")
        let long = try peak("0-299")
        // Ten times the frames; a per-frame leak of one 375×667 frame would add ~270 MB.
        #expect(short > 0 && long < short * 1.3 + 20_000, "peak RSS \(short) KiB for 30 frames, \(long) KiB for 300")
    }
}
