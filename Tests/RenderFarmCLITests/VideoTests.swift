import Foundation
import Testing

@Suite("render --video", .enabled(if: Tools.hasFFmpeg, "ffmpeg/ffprobe not installed: apt-get install ffmpeg"))
struct VideoTests {
    /// An opaque and a transparent job, at scale 1: 375×667 pixels, odd both ways (padded to even).
    static let jobs = ["jobs/hearts-on-gradient.json", "jobs/live-hearts.json"]

    @Test(
        "--video decodes to the same frames as encoding the job's PNGs, with the same colour tags",
        arguments: ["mp4", "webm-alpha"], jobs)
    func identicalToEncode(preset: String, job: String) throws {
        let folder = try TemporaryFolder()
        let ext = preset == "mp4" ? "mp4" : "webm"
        let streamed = folder.url.appendingPathComponent("streamed.\(ext)").path
        let frames = ["--frames", "100-129", "--scale", "1"]
        let video = CLI.run(
            ["render", job, "--video", streamed, "--preset", preset, "--progress", "none", "-j", "2"] + frames)
        #expect(video.status == 0, "\(video.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("frame_00100.png").path))

        let pngs = folder.url.appendingPathComponent("pngs")
        let render = CLI.run(["render", job, "--out", pngs.path, "--progress", "none", "-j", "2"] + frames)
        try #require(render.status == 0, "\(render.stderr)")
        let encoded = folder.url.appendingPathComponent("encoded.\(ext)").path
        let encode = CLI.run(["encode", pngs.path, "-o", encoded, "--preset", preset, "--progress", "none"])
        try #require(encode.status == 0, "\(encode.stderr)")

        let decoder = preset == "mp4" ? nil : "libvpx-vp9"
        let format = preset == "mp4" ? "rgb24" : "rgba"
        let a = try Tools.decode(streamed, pixelFormat: format, frames: 30, decoder: decoder)
        let b = try Tools.decode(encoded, pixelFormat: format, frames: 30, decoder: decoder)
        #expect(a.count == 30 * 376 * 668 * (format == "rgb24" ? 3 : 4))
        #expect(sha256(a) == sha256(b), "decoded frames differ between render --video and encode")
        // The tags each preset's videos have always had: BT.709 limited range for mp4, limited
        // range without a matrix tag (BT.601, ffmpeg's default) for VP9 with alpha.
        for file in [streamed, encoded] {
            let probe = try Tools.probe(file)
            #expect(probe["pix_fmt"] == "yuv420p" && probe["color_range"] == "tv", "\(probe)")
            let matrix = preset == "mp4" ? "bt709" : "unknown"
            #expect(probe["color_space"] == matrix && probe["nb_read_frames"] == "30", "\(probe)")
        }
    }

    @Test(
        "prores4444: --video equals encode, within 60 dB of ffmpeg's own conversion of the PNGs in every channel",
        arguments: jobs)
    func prores(job: String) throws {
        let folder = try TemporaryFolder()
        let frames = ["--frames", "100-119", "--scale", "1"]
        let streamed = folder.url.appendingPathComponent("streamed.mov").path
        let video = CLI.run(
            ["render", job, "--video", streamed, "--preset", "prores4444", "--progress", "none", "-j", "2"] + frames)
        #expect(video.status == 0, "\(video.stderr)")
        let pngs = folder.url.appendingPathComponent("pngs")
        let render = CLI.run(["render", job, "--out", pngs.path, "--progress", "none", "-j", "2"] + frames)
        try #require(render.status == 0, "\(render.stderr)")
        let encoded = folder.url.appendingPathComponent("encoded.mov").path
        let encode = CLI.run(["encode", pngs.path, "-o", encoded, "--preset", "prores4444", "--progress", "none"])
        try #require(encode.status == 0, "\(encode.stderr)")
        // What ffmpeg made of the PNGs before the frames were converted by the workers.
        let reference = folder.url.appendingPathComponent("reference.mov").path
        let ffmpeg = try Tools.run(
            Tools.find("ffmpeg") ?? "ffmpeg",
            [
                "-v", "error", "-framerate", "60", "-start_number", "100", "-i", pngs.path + "/frame_%05d.png",
                "-filter_complex", "[0:v]format=rgba,format=yuva444p10le", "-c:v", "prores_ks", "-profile:v", "4444",
                "-pix_fmt", "yuva444p10le", "-alpha_bits", "16", "-vendor", "apl0", reference,
            ])
        try #require(ffmpeg.status == 0, "\(ffmpeg.stderr)")

        let a = try Tools.decode(streamed, pixelFormat: "rgba", frames: 20)
        let b = try Tools.decode(encoded, pixelFormat: "rgba", frames: 20)
        let c = try Tools.decode(reference, pixelFormat: "rgba", frames: 20)
        #expect(a.count == 20 * 375 * 667 * 4 && c.count == a.count)
        #expect(sha256(a) == sha256(b), "decoded frames differ between render --video and encode")
        for channel in 0..<4 {
            let psnr = Tools.psnr(a, c, channel: channel)
            #expect(psnr >= 60, "channel \(channel): \(psnr) dB")
        }
        for file in [streamed, encoded] {
            let probe = try Tools.probe(file)
            #expect(probe["codec_name"] == "prores" && probe["color_range"] == "tv", "\(probe)")
            #expect(probe["color_space"] == "unknown" && probe["nb_read_frames"] == "20", "\(probe)")
        }
    }

    @Test("a frame that fails once is drawn again: its progress event counts 2 attempts, the video has every frame")
    func retriedFrame() throws {
        let folder = try TemporaryFolder()
        let job = try FailureTests.faultJob(in: folder, params: #"{"failFrames": [3], "failAttempts": 1}"#, frames: 8)
        let file = folder.url.appendingPathComponent("f.mp4").path
        let result = CLI.run([
            "render", job, "--video", file, "--progress", "json", "--plugin-path", Binary.testPluginDirectory,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let events = result.stderr.split(separator: "\n").filter { $0.contains("\"attempts\"") }
        #expect(events.filter { $0.contains("\"attempts\":2") && $0.contains("\"frame\":3,") }.count == 1, "\(events)")
        #expect(events.filter { $0.contains("\"attempts\":1") }.count == 7, "\(events)")
        #expect(try Tools.probe(file)["nb_read_frames"] == "8")
    }

    @Test("SIGINT mid-video: the frames in flight finish, exit 130, and no video or temporary file is left")
    func interrupted() throws {
        let folder = try TemporaryFolder()
        let gate = try folder.write("", to: "gate")
        let job = try FailureTests.faultJob(
            in: folder, params: #"{"waitFrames": [4], "waitWhileFileExists": "\#(gate)"}"#, frames: 8)
        let run = try Binary.Running([
            "render", job, "--video", folder.url.appendingPathComponent("v.mp4").path, "--progress", "json",
            "--plugin-path", Binary.testPluginDirectory, "-j", "1",
        ])
        try Binary.waitUntil("frame 3 is sent", running: run) {
            ((try? String(contentsOf: run.stderrURL, encoding: .utf8)) ?? "").contains("\"frame\":3,")
        }
        run.signal(SIGINT)
        // The gate opens once the render has taken the signal (its handler runs on a queue of its own).
        try Binary.waitUntil("the render says it is stopping", running: run) {
            ((try? String(contentsOf: run.stderrURL, encoding: .utf8)) ?? "").contains("stopping after the frames")
        }
        try FileManager.default.removeItem(atPath: gate)
        let result = run.wait()
        #expect(result.status == 130, "\(result.stderr)")
        // Frame 4 finishes and is sent when it had started before the signal; nothing after it is.
        let sent = ["4", "5"].filter { result.stderr.contains("interrupted after \($0) frames; no video written") }
        #expect(sent.count == 1, "\(result.stderr)")
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(left == ["job.json"], "\(left)")
    }

    @Test("an ffmpeg that dies while frames are sent is a clear error with its own output, not a SIGPIPE")
    func deadFFmpeg() throws {
        let folder = try TemporaryFolder()
        // Reads a little of the first frame, says why it gives up, and exits.
        let fake = try folder.write(
            "#!/bin/sh\nhead -c 1000 > /dev/null\necho 'fake ffmpeg: no space for the video' >&2\nexit 3\n",
            to: "ffmpeg")
        chmod(fake, 0o755)
        let result = CLI.run(
            [
                "render", "jobs/live-hearts.json", "--frames", "0-59", "--video",
                folder.url.appendingPathComponent("v.mp4").path, "--progress", "none",
            ], environment: ["RENDERFARM_FFMPEG": fake])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(
            result.stderr.contains("ffmpeg failed (exit 3): fake ffmpeg: no space for the video"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("v.mp4").path))
    }

    @Test("an opaque job with a frame step streams at fps / step")
    func stepped() throws {
        let folder = try TemporaryFolder()
        let file = folder.url.appendingPathComponent("g.mp4").path
        let video = CLI.run([
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
        let result = CLI.run([
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
