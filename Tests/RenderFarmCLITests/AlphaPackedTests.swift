import Foundation
import Testing

/// The alpha-packed (VAP) preset end to end, checked with tools independent of the encoder:
/// ffprobe for the stream, a box scan written here for the `vapc` box, ffmpeg for decoding the
/// PNGs, and PSNR between the rendered frames and what `unpack-alpha` says a player shows.
@Suite("alpha-packed video", .enabled(if: Tools.hasFFmpeg, "ffmpeg/ffprobe not installed: apt-get install ffmpeg"))
struct AlphaPackedTests {
    /// What one case renders and what VAP's layout makes of it, worked out by hand.
    struct Case: Sendable, CustomTestStringConvertible {
        var job: String
        var name: String
        /// `--scale`: pixels per point.
        var scale: String
        var width: Int
        var height: Int
        var fps: Int
        /// Beside (754 wide) beats below (1338 high); 754 × 667 padded to 16 is 768 × 672.
        var videoWidth: Int
        var videoHeight: Int
        /// The H.264 level as ffprobe reports it (`31` for 3.1).
        var level: Int
        /// Where alpha > 0.5; 4:2:0 chroma limits thin coloured outlines (see transparentJob).
        var minColourPSNR: Double
        var testDescription: String { name }
    }

    /// jobs/live-stream.json at --scale 1: 375 × 667 pixels, 30 fps, opaque.
    static let liveStream = Case(
        job: "jobs/live-stream.json", name: "live-stream", scale: "1", width: 375, height: 667, fps: 30,
        videoWidth: 768,
        videoHeight: 672, level: 31, minColourPSNR: 35)
    static let frames = 30
    static let minAlphaPSNR = 38.0

    /// Renders frames 0–29 as PNGs into `folder`.
    static func renderPNGs(_ test: Case, into folder: URL) throws {
        let render = CLI.run([
            "render", test.job, "--frames", "0-\(frames - 1)", "--scale", test.scale, "--out", folder.path,
            "--progress", "none", "-j", "2",
        ])
        try #require(render.status == 0, "\(render.stderr)")
    }

    @Test("encode --preset alpha-packed: stream, vapc box = sidecar, manifest, frames as a player shows them")
    func encode() throws {
        let folder = try TemporaryFolder()
        let pngs = folder.url.appendingPathComponent("pngs")
        try Self.renderPNGs(Self.liveStream, into: pngs)
        let encode = CLI.run(["encode", pngs.path, "--preset", "alpha-packed", "--progress", "none"])
        try #require(encode.status == 0, "\(encode.stderr)")
        let video = pngs.appendingPathComponent("live-stream-alpha.mp4")
        try Self.checkVideo(video, Self.liveStream)

        let manifest = try JSONSerialization.jsonObject(
            with: Data(contentsOf: pngs.appendingPathComponent("manifest.json")))
        let encodes = (manifest as? [String: Any])?["encodes"] as? [[String: Any]] ?? []
        let entry = try #require(encodes.first { $0["file"] as? String == "live-stream-alpha.mp4" })
        #expect(entry["preset"] as? String == "alpha-packed")
        #expect(entry["config"] as? String == "live-stream-alpha.vap.json")
        let layout = entry["layout"] as? [String: Any]
        #expect(layout?["videoW"] as? Int == 768 && layout?["videoH"] as? Int == 672, "\(entry)")
        #expect(
            layout?["aFrame"] as? [Int] == [379, 0, 375, 667] && layout?["rgbFrame"] as? [Int] == [0, 0, 375, 667])

        let quality = try Self.unpackAndCompare(video, with: pngs, in: folder.url, Self.liveStream)
        report("alpha-packed encode of live-stream: colour PSNR \(quality.colour) dB, alpha PSNR \(quality.alpha) dB")
    }

    @Test("render --video --preset alpha-packed: the same checks, and no PNG is written")
    func renderVideo() throws {
        let folder = try TemporaryFolder()
        let video = folder.url.appendingPathComponent("live-stream.mp4")
        let render = CLI.run([
            "render", Self.liveStream.job, "--frames", "0-\(Self.frames - 1)", "--scale", "1", "--video", video.path,
            "--preset", "alpha-packed", "--progress", "none", "-j", "2",
        ])
        try #require(render.status == 0, "\(render.stderr)")
        #expect(render.stdout.contains("live-stream.vap.json"))
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(names.sorted() == ["live-stream.mp4", "live-stream.vap.json"], "\(names)")
        try Self.checkVideo(video, Self.liveStream)

        let pngs = folder.url.appendingPathComponent("pngs")
        try Self.renderPNGs(Self.liveStream, into: pngs)
        let quality = try Self.unpackAndCompare(video, with: pngs, in: folder.url, Self.liveStream)
        report(
            "alpha-packed render --video of live-stream: colour PSNR \(quality.colour) dB, alpha PSNR \(quality.alpha) dB"
        )
    }

    @Test("a transparent job keeps its alpha (live-hearts); colour is bounded by 4:2:0 chroma on thin outlines")
    func transparentJob() throws {
        // 750 × 1334 at --scale 2: beside gives 1504, below 2672; 1504 × 1344, level 4.2 at 60 fps.
        // The hearts have 2-pixel white outlines around saturated fills: 4:2:0 shares one chroma
        // sample between 2 × 2 pixels, so colour PSNR there is ~27 dB in any H.264 4:2:0 file
        // (the same graph with yuv444p gives ~52 dB); alpha, carried as luma, is not affected.
        let hearts = Case(
            job: "jobs/live-hearts.json", name: "live-hearts", scale: "2", width: 750, height: 1334, fps: 60,
            videoWidth: 1504,
            videoHeight: 1344, level: 42, minColourPSNR: 24)
        let folder = try TemporaryFolder()
        let pngs = folder.url.appendingPathComponent("pngs")
        try Self.renderPNGs(hearts, into: pngs)
        let encode = CLI.run(["encode", pngs.path, "--preset", "alpha-packed", "--progress", "none"])
        try #require(encode.status == 0, "\(encode.stderr)")
        let video = pngs.appendingPathComponent("live-hearts-alpha.mp4")
        try Self.checkVideo(video, hearts)
        let quality = try Self.unpackAndCompare(video, with: pngs, in: folder.url, hearts)
        report("alpha-packed encode of live-hearts: colour PSNR \(quality.colour) dB, alpha PSNR \(quality.alpha) dB")
    }

    @Test("hevc-alpha exits 69 naming what is missing, where libx265 lists no alpha format")
    func hevcAlpha() throws {
        let help = try Tools.run(Tools.find("ffmpeg") ?? "ffmpeg", ["-hide_banner", "-h", "encoder=libx265"])
        let formats = help.text.split(separator: "\n").first { $0.contains("Supported pixel formats:") } ?? ""
        let folder = try TemporaryFolder()
        try Self.renderPNGs(Self.liveStream, into: folder.url)
        let encode = CLI.run(["encode", folder.path, "--preset", "hevc-alpha", "--progress", "none"])
        if formats.contains("yuva420p") {
            #expect(encode.status == 0, "\(encode.stderr)")
            return
        }
        #expect(encode.status == 69)
        #expect(encode.stderr.contains("libx265") && encode.stderr.contains("yuva420p"), "\(encode.stderr)")
        #expect(encode.stderr.contains("--preset alpha-packed"), "\(encode.stderr)")
        let video = CLI.run([
            "render", Self.liveStream.job, "--frames", "0-1", "--video",
            folder.url.appendingPathComponent("v.mov").path,
            "--preset", "hevc-alpha", "--progress", "none",
        ])
        #expect(video.status == 69)
        #expect(!FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("v.mov").path))
    }

    @Test("unpack-alpha: a plain MP4 without config or a pipe is refused (65), a missing video is 66, no -o is 64")
    func unpackRefusals() throws {
        let folder = try TemporaryFolder()
        let plain = folder.url.appendingPathComponent("plain.mp4")
        let render = CLI.run([
            "render", Self.liveStream.job, "--frames", "0-1", "--scale", "0.5", "--video", plain.path, "--progress",
            "none",
        ])
        try #require(render.status == 0, "\(render.stderr)")
        let out = folder.url.appendingPathComponent("out").path
        let refused = CLI.run(["unpack-alpha", plain.path, "-o", out, "--progress", "none"])
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("no vapc box"), "\(refused.stderr)")
        let missing = CLI.run(["unpack-alpha", folder.url.appendingPathComponent("none.mp4").path, "-o", out])
        #expect(missing.status == 66)
        #expect(CLI.run(["unpack-alpha", plain.path]).status == 64)
        // A named pipe is refused without being opened for a blocking read.
        let pipe = folder.url.appendingPathComponent("pipe.mp4").path
        try #require(mkfifo(pipe, 0o644) == 0)
        let fifo = CLI.run(["unpack-alpha", pipe, "-o", out, "--progress", "none"])
        #expect(fifo.status == 65 && fifo.stderr.contains("named pipe"), "\(fifo.stderr)")
        let help = CLI.run(["unpack-alpha", "--help"])
        #expect(help.status == 0 && help.stdout.contains("USAGE: renderfarm unpack-alpha"))
    }

    // MARK: - Checks

    /// ffprobe's view of the stream, the `vapc` box right after `ftyp`, and the sidecar's bytes.
    static func checkVideo(_ video: URL, _ test: Case) throws {
        let probe = try Tools.probe(video.path)
        #expect(probe["codec_name"] == "h264" && probe["pix_fmt"] == "yuv420p", "\(probe)")
        #expect(Int(probe["nb_read_frames"] ?? "") == frames, "\(probe)")
        #expect(Tools.rate(probe["r_frame_rate"]) == Double(test.fps), "\(probe)")
        #expect(probe["width"] == "\(test.videoWidth)" && probe["height"] == "\(test.videoHeight)", "\(probe)")
        // VapTool's stream: Main profile without B-frames; BT.601 limited range, tagged.
        let stream = try Tools.run(
            Tools.find("ffprobe") ?? "ffprobe",
            [
                "-v", "error", "-select_streams", "v:0", "-show_entries",
                "stream=profile,level,has_b_frames,color_space,color_range", "-of", "default=noprint_wrappers=1",
                video.path,
            ])
        let fields = Set(stream.text.split(separator: "\n").map(String.init))
        let expected: Set = [
            "profile=Main", "level=\(test.level)", "has_b_frames=0", "color_space=smpte170m", "color_range=tv",
        ]
        #expect(fields == expected, "\(fields)")

        let bytes = try Data(contentsOf: video)
        let boxes = topLevelBoxes(bytes)
        #expect(boxes.map(\.type).prefix(2) == ["ftyp", "vapc"], "\(boxes.map(\.type))")
        let vapc = try #require(boxes.first { $0.type == "vapc" })
        let payload = bytes.subdata(in: vapc.payload)
        let sidecar = video.deletingPathExtension().appendingPathExtension("vap.json")
        #expect(try Data(contentsOf: sidecar) == payload, "the vapc box and \(sidecar.lastPathComponent) differ")

        let config = try JSONSerialization.jsonObject(with: payload) as? [String: Any]
        let info = try #require(config?["info"] as? [String: Any], "\(String(decoding: payload, as: UTF8.self))")
        let alphaX = test.width + 4
        let numbers: [String: Any] = [
            "v": 2, "f": frames, "w": test.width, "h": test.height, "fps": test.fps, "videoW": test.videoWidth,
            "videoH": test.videoHeight, "isVapx": 0, "orien": 0,
        ]
        for (key, value) in numbers {
            #expect(info[key] as? Int == value as? Int, "info.\(key) is \(info[key] ?? "missing")")
        }
        #expect(info["rgbFrame"] as? [Int] == [0, 0, test.width, test.height], "\(info)")
        #expect(info["aFrame"] as? [Int] == [alphaX, 0, test.width, test.height], "\(info)")
    }

    /// Unpacks `video` and compares every frame with the rendered PNGs; requires the thresholds.
    static func unpackAndCompare(_ video: URL, with pngs: URL, in folder: URL, _ test: Case) throws -> Quality {
        let unpacked = folder.appendingPathComponent("unpacked")
        // Given as a folder with its slash, as users type it: the frames are named without a double slash.
        let unpack = CLI.run(["unpack-alpha", video.path, "-o", unpacked.path + "/", "--progress", "none"])
        try #require(unpack.status == 0, "\(unpack.stderr)")
        #expect(unpack.stdout.contains("  frames: \(unpacked.path)/frame_00000.png …\n"), "\(unpack.stdout)")
        let names = try FileManager.default.contentsOfDirectory(atPath: unpacked.path).filter { $0.hasSuffix(".png") }
        #expect(names.count == frames)
        let pattern = "frame_%05d.png"
        let reference = try Tools.decode(pngs.appendingPathComponent(pattern).path, pixelFormat: "rgba", frames: frames)
        let shown = try Tools.decode(unpacked.appendingPathComponent(pattern).path, pixelFormat: "rgba", frames: frames)
        try #require(reference.count == frames * test.width * test.height * 4 && shown.count == reference.count)
        let quality = Quality(reference: reference, shown: shown)
        #expect(quality.colour >= test.minColourPSNR, "colour PSNR \(quality.colour) dB where alpha > 0.5")
        #expect(quality.alpha >= minAlphaPSNR, "alpha PSNR \(quality.alpha) dB")
        return quality
    }

    /// Top-level MP4 boxes (32-bit sizes, as VAP's Android player reads them).
    static func topLevelBoxes(_ data: Data) -> [(type: String, payload: Range<Int>)] {
        var boxes: [(type: String, payload: Range<Int>)] = []
        var offset = 0
        while offset + 8 <= data.count {
            let size = data[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            guard size >= 8, offset + size <= data.count else { break }
            boxes.append((String(decoding: data[offset + 4..<offset + 8], as: UTF8.self), offset + 8..<offset + size))
            offset += size
        }
        return boxes
    }
}

/// PSNR of what a player shows against the rendered frames (both straight RGBA).
struct Quality {
    /// Colour channels, over the pixels whose rendered alpha is above 0.5.
    var colour: Double
    /// The alpha channel, over every pixel.
    var alpha: Double

    init(reference: Data, shown: Data) {
        var colourSquares = 0.0
        var colourCount = 0
        var alphaSquares = 0.0
        Tools.withBytes(reference, shown) { a, b, length in
            var pixel = 0
            while pixel + 3 < length {
                defer { pixel += 4 }
                let alphaDifference = Double(a[pixel + 3]) - Double(b[pixel + 3])
                alphaSquares += alphaDifference * alphaDifference
                guard a[pixel + 3] > 127 else { continue }
                var channel = 0
                while channel < 3 {
                    let difference = Double(a[pixel + channel]) - Double(b[pixel + channel])
                    colourSquares += difference * difference
                    channel += 1
                }
                colourCount += 3
            }
        }
        colour = Tools.psnr(squares: colourSquares, count: colourCount)
        alpha = Tools.psnr(squares: alphaSquares, count: reference.count / 4)
    }
}
