import CairoKit
import Foundation
import RenderFarmMedia
import Testing

/// The `video` effect through the real binary: every output frame shows the source frame the rule of the
/// FootageEffect article says (read back from pixels that encode the source frame's number), however the
/// frames are rendered; alpha survives; damaged files are refused at validate.
@Suite("Footage", .enabled(if: Tools.hasFFmpeg || Tools.inCI, "ffmpeg/ffprobe not installed: apt-get install ffmpeg"))
struct FootageTests {
    /// One rule case: the clip, the job's frame rate, and the layer's timing.
    struct Case: CustomStringConvertible, Sendable {
        var clipFPS: Int
        var variable = false
        var clipFrames: Int
        var fps: Int
        var frames: Int
        /// speed = speedNumerator / speedDenominator.
        var speedNumerator = 1
        var speedDenominator = 1
        /// Trim in and out, in clip frames (CFR clips only).
        var trimIn: Int?
        var trimOut: Int?
        var loop = false
        /// Matroska stores times in milliseconds, rounded: a 30 fps clip's frame 2 at 67 ms, after 2/30 s.
        var container = "mp4"

        var description: String {
            "\(variable ? "VFR" : "\(clipFPS) fps") \(container) clip at \(fps) fps, "
                + "speed \(speedNumerator)/\(speedDenominator)"
                + (trimIn.map { ", trim \($0)…\(trimOut ?? clipFrames)" } ?? "") + (loop ? ", loop" : "")
        }

        var params: [String: Any] {
            var params: [String: Any] = ["speed": Double(speedNumerator) / Double(speedDenominator), "loop": loop]
            if let trimIn {
                params["trim"] = [
                    "in": Double(trimIn) / Double(clipFPS), "out": Double(trimOut ?? clipFrames) / Double(clipFPS),
                ]
            }
            return params
        }

        /// The source frame output frame k shows by the rule, nil when nothing is drawn; exact integer arithmetic,
        /// by frame numbers for constant rates, by the clip's own timestamps (ffprobe) for variable ones.
        func expected(_ k: Int, clip: (ticks: [Int], timeBase: (num: Int, den: Int))) -> Int? {
            // FFmpeg reads an APNG's delays (1/24 s here) into 1/100000 s, each rounded: its frames are where
            // those timestamps put them, a few microseconds off the constant rate.
            if variable || container == "apng" {
                // Largest i with ticks[i] × num / den ≤ k / fps × speed.
                let (num, den) = clip.timeBase
                return clip.ticks.lastIndex { $0 * num * fps * speedDenominator <= k * den * speedNumerator }
            }
            let start = trimIn ?? 0
            let length = (trimOut ?? clipFrames) - start
            // Source frames elapsed: ⌊k × clipFPS × speed / fps⌋.
            let elapsed = k * clipFPS * speedNumerator / (fps * speedDenominator)
            if loop { return start + elapsed % length }
            return elapsed < length ? start + elapsed : nil
        }
    }

    static let cases: [Case] = [
        Case(clipFPS: 24, clipFrames: 48, fps: 30, frames: 60),
        Case(clipFPS: 30, clipFrames: 30, fps: 30, frames: 40, speedDenominator: 2),
        Case(clipFPS: 60, clipFrames: 120, fps: 30, frames: 45, speedNumerator: 2),
        Case(clipFPS: 30, clipFrames: 60, fps: 24, frames: 72, trimIn: 15, trimOut: 45, loop: true),
        Case(clipFPS: 24, variable: true, clipFrames: 40, fps: 30, frames: 60),
        Case(clipFPS: 24, variable: true, clipFrames: 40, fps: 60, frames: 140, speedDenominator: 2),
        Case(clipFPS: 24, variable: true, clipFrames: 40, fps: 30, frames: 36, speedNumerator: 2),
        Case(clipFPS: 30, clipFrames: 30, fps: 30, frames: 30, container: "mkv"),
        Case(clipFPS: 60, clipFrames: 60, fps: 60, frames: 60, container: "mkv"),
        Case(clipFPS: 24, clipFrames: 48, fps: 30, frames: 60, container: "mkv"),
        // GIF stores delays in hundredths of a second: 25 fps is exact, and variable delays round to them.
        Case(clipFPS: 25, clipFrames: 50, fps: 30, frames: 60, container: "gif"),
        Case(clipFPS: 24, variable: true, clipFrames: 40, fps: 30, frames: 60, container: "gif"),
        Case(clipFPS: 20, clipFrames: 40, fps: 24, frames: 72, trimIn: 10, trimOut: 30, loop: true, container: "gif"),
        Case(clipFPS: 24, clipFrames: 48, fps: 30, frames: 60, container: "apng"),
        Case(clipFPS: 24, variable: true, clipFrames: 40, fps: 30, frames: 60, container: "apng"),
        // WebP stores durations in milliseconds: 25 and 20 fps are exact.
        Case(clipFPS: 25, clipFrames: 50, fps: 30, frames: 60, container: "webp"),
        Case(clipFPS: 20, clipFrames: 40, fps: 24, frames: 72, trimIn: 10, trimOut: 30, loop: true, container: "webp"),
        Case(
            clipFPS: 25, clipFrames: 25, fps: 60, frames: 80, speedNumerator: 3, speedDenominator: 2, container: "webp"),
    ]

    /// Makes the clip of `test` in `folder` and returns its presentation timestamps.
    static func clip(_ test: Case, in folder: TemporaryFolder) throws -> (ticks: [Int], timeBase: (num: Int, den: Int))
    {
        let path = folder.url.appendingPathComponent("clip.\(test.container)").path
        try FootageFixture.make(path, fps: test.clipFPS, frames: test.clipFrames, variable: test.variable)
        // FFmpeg 5.1 reads no animated WebP: its frames are where their whole-millisecond durations put them.
        if test.container == "webp" { return ((0..<test.clipFrames).map { $0 * 1000 / test.clipFPS }, (1, 1000)) }
        let clip = try FootageFixture.timestamps(path)
        try #require(clip.ticks.count == test.clipFrames)
        return clip
    }

    static func render(_ folder: TemporaryFolder, _ arguments: [String] = []) throws -> Binary.Result {
        let result = CLI.run(
            ["render", folder.url.appendingPathComponent("job.json").path, "--progress", "json"] + arguments)
        #expect(result.status == 0, "\(result.stderr)")
        return result
    }

    @Test("every output frame shows the source frame the rule says", arguments: cases)
    func rule(_ test: Case) throws {
        let folder = try TemporaryFolder()
        let clip = try Self.clip(test, in: folder)
        try folder.write(
            try FootageFixture.job(
                file: "clip.\(test.container)", fps: test.fps, frames: test.frames, params: test.params),
            to: "job.json")
        _ = try Self.render(folder, ["-j", "2"])
        let out = folder.url.appendingPathComponent("out")
        for k in 0..<test.frames {
            let png = FootageFixture.frame(k, in: out)
            if let source = test.expected(k, clip: clip) {
                #expect(try FootageFixture.index(of: png) == source, "\(test): frame \(k)")
            } else {
                let image = try ImageSurface(contentsOfPNG: png)
                #expect(image.pixel(x: 4, y: 16).a == 0, "\(test): frame \(k) draws after the clip ended")
            }
        }
    }

    @Test("-j 1, -j 2, --shard K/N and kill -9 resumes give the same frames, each the one the rule says")
    func everyWay() throws {
        let test = Case(
            clipFPS: 30, clipFrames: 45, fps: 30, frames: 240, speedNumerator: 3, speedDenominator: 4, loop: true)
        let folder = try TemporaryFolder()
        let clip = try Self.clip(test, in: folder)
        let job = try FootageFixture.job(file: "clip.mp4", fps: test.fps, frames: test.frames, params: test.params)
        try folder.write(job, to: "job.json")
        let expected = (0..<test.frames).map { test.expected($0, clip: clip) }
        var runs: [[String]] = []
        for arguments in [["-j", "1"], ["-j", "2"]] {
            let out = folder.url.appendingPathComponent("out-\(arguments[1])")
            _ = try Self.render(folder, arguments + ["--out", out.path])
            #expect(try FootageFixture.shown(in: out, frames: test.frames) == expected.map { $0 ?? -1 }, "\(arguments)")
            runs.append(try Manifest(folder: out).frames.map(\.sha256))
        }
        let sharded = folder.url.appendingPathComponent("out-shards")
        for index in 0..<3 { _ = try Self.render(folder, ["--shard", "\(index)/3", "--out", sharded.path]) }
        let merge = CLI.run(["merge", sharded.path])
        #expect(merge.status == 0, "\(merge.stderr)")
        runs.append(try Manifest(folder: sharded).frames.map(\.sha256))

        let resumed = folder.url.appendingPathComponent("out-resumed")
        let arguments = [
            "render", folder.url.appendingPathComponent("job.json").path, "--out", resumed.path,
            "--progress", "json", "-j", "2",
        ]
        for kill in [5, 40, 120] {
            let run = try Binary.Running(arguments)
            try ResumeTests.waitForFrameEvents(kill, of: run)
            run.signal(SIGKILL)
            _ = run.wait()
        }
        let final = try Binary.Running(arguments).wait()
        #expect(final.status == 0, "\(final.stderr)")
        #expect(try FootageFixture.shown(in: resumed, frames: test.frames) == expected.map { $0 ?? -1 })
        runs.append(try Manifest(folder: resumed).frames.map(\.sha256))
        #expect(runs[0].count == test.frames)
        for run in runs.dropFirst() { #expect(run == runs[0]) }
    }

    @Test(
        "a source frame held by speed 0.5 is drawn once and reused; the clip's sha256 and FFmpeg's versions are inputs")
    func heldFramesAndInputs() throws {
        let test = Case(clipFPS: 30, clipFrames: 30, fps: 30, frames: 20, speedDenominator: 2)
        let folder = try TemporaryFolder()
        _ = try Self.clip(test, in: folder)
        try folder.write(
            try FootageFixture.job(file: "clip.mp4", fps: test.fps, frames: test.frames, params: test.params),
            to: "job.json")
        let render = try Self.render(folder)
        #expect(render.stdout.contains("10 frames rendered, 10 reused"), "\(render.stdout)")
        let out = folder.url.appendingPathComponent("out")
        let data = try Data(contentsOf: out.appendingPathComponent("manifest.json"))
        let manifest = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let frames = try #require(manifest["frames"] as? [[String: Any]])
        #expect(frames[7]["reusedFrom"] as? Int == 6)
        #expect(frames[6]["reusedFrom"] == nil)
        let clip = try Data(contentsOf: folder.url.appendingPathComponent("clip.mp4"))
        let inputs = try InputFileTests.inputs(out)
        #expect(inputs.contains { $0.file == "clip.mp4" && $0.sha256 == sha256(clip) }, "\(inputs)")
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("libavcodec."), "the plugin's version names the FFmpeg libraries")
        // Debian's libavcodec loads libvpx (VP9 with alpha): its version is part of the plugin's too.
        #expect(text.contains(".libvpx.1."), "the plugin's version names libvpx")

        // A re-encoded clip (other bytes, same frames) draws every frame again.
        try FootageFixture.make(folder.url.appendingPathComponent("clip.mp4").path, fps: 30, frames: 31)
        let again = try Self.render(folder)
        #expect(again.stdout.contains("10 frames rendered, 10 reused"), "\(again.stdout)")
    }

    @Test(
        "VP9 WebM with alpha, ProRes 4444 and PNG in MOV keep their transparency; fit contain leaves the bars transparent",
        arguments: [
            ("alpha.webm", ["-c:v", "libvpx-vp9", "-pix_fmt", "yuva420p", "-lossless", "1"]),
            ("alpha.mov", ["-c:v", "prores_ks", "-profile:v", "4444", "-pix_fmt", "yuva444p10le"]),
            ("png.mov", ["-c:v", "png", "-pix_fmt", "rgba"]),
        ])
    func alpha(_ name: String, _ codec: [String]) throws {
        let folder = try TemporaryFolder()
        try FootageFixture.ffmpeg(
            ["-f", "lavfi", "-i", "color=c=0xFF0000@0.5:s=64x32:r=30,format=rgba", "-frames:v", "10"] + codec
                + [folder.url.appendingPathComponent(name).path])
        var job = try FootageFixture.job(file: name, fps: 30, frames: 3, params: ["fit": "contain"])
        // A square canvas: the 2:1 picture is letterboxed into its middle half.
        job = job.replacingOccurrences(of: #""height":32"#, with: #""height":64"#)
        try folder.write(job, to: "job.json")
        _ = try Self.render(folder)
        let image = try ImageSurface(contentsOfPNG: folder.url.appendingPathComponent("out/frame_00001.png").path)
        let inside = image.pixel(x: 32, y: 32)
        #expect(inside.a >= 124 && inside.a <= 132, "\(name): half-transparent red keeps its alpha: \(inside)")
        #expect(inside.r >= 240 && inside.g <= 16 && inside.b <= 16, "\(name): \(inside)")
        #expect(image.pixel(x: 32, y: 4).a == 0 && image.pixel(x: 32, y: 60).a == 0, "the bars stay transparent")
    }

    @Test(
        "8-bit 4:2:0 colours come out as encoded, in the matrix and range the stream states",
        arguments: [
            ("bt601.mp4", ["-vf", "format=rgb24,scale=out_color_matrix=bt601:out_range=tv,format=yuv420p"]),
            (
                "bt709.mp4",
                [
                    "-vf", "format=rgb24,scale=out_color_matrix=bt709:out_range=tv,format=yuv420p", "-colorspace",
                    "bt709",
                ]
            ),
            (
                "full.mp4",
                [
                    "-vf", "format=rgb24,scale=out_color_matrix=bt709:out_range=pc,format=yuvj420p", "-colorspace",
                    "bt709",
                    "-color_range", "pc",
                ]
            ),
        ])
    func colours(_ name: String, _ filters: [String]) throws {
        let folder = try TemporaryFolder()
        try FootageFixture.ffmpeg(
            ["-f", "lavfi", "-i", "color=c=0x3366CC:s=64x32:r=30", "-frames:v", "3"] + filters
                + ["-c:v", "libx264", "-qp", "0", folder.url.appendingPathComponent(name).path])
        try folder.write(try FootageFixture.job(file: name, fps: 30, frames: 1), to: "job.json")
        _ = try Self.render(folder)
        let pixel = try ImageSurface(contentsOfPNG: folder.url.appendingPathComponent("out/frame_00000.png").path)
            .pixel(x: 32, y: 16)
        // lavfi's color source makes #3366CC as RGB #3164C9 (it draws in YUV); rounding to 8-bit YUV and back
        // moves a channel by a level or two, the wrong matrix by five or more.
        #expect(
            abs(Int(pixel.r) - 0x31) <= 2 && abs(Int(pixel.g) - 0x64) <= 2 && abs(Int(pixel.b) - 0xC9) <= 2,
            "\(name): \(pixel)")
    }

    @Test("a truncated, damaged or non-video file is refused at validate with its place in the job (65)")
    func damaged() throws {
        let folder = try TemporaryFolder()
        let good = folder.url.appendingPathComponent("good.mp4")
        try FootageFixture.make(good.path, fps: 30, frames: 60)
        let bytes = try Data(contentsOf: good)
        let webm = folder.url.appendingPathComponent("good.webm")
        try FootageFixture.ffmpeg(
            ["-f", "lavfi", "-i", "testsrc=s=64x32:r=30:d=4", "-c:v", "libvpx-vp9", "-b:v", "200k", webm.path])
        let webmBytes = try Data(contentsOf: webm)
        // Video 4 s, audio 6 s: the longer audio is no sign of truncation, half the file is.
        let withAudio = folder.url.appendingPathComponent("audio.webm")
        try FootageFixture.ffmpeg(
            [
                "-f", "lavfi", "-i", "testsrc=s=64x32:r=30:d=4", "-f", "lavfi", "-i", "sine=d=6", "-c:v", "libvpx-vp9",
                "-b:v", "200k", "-c:a", "libopus", withAudio.path,
            ])
        let audioBytes = try Data(contentsOf: withAudio)
        // Clusters of half a second, the middle one's first block header overwritten: FFmpeg's Matroska demuxer
        // logs the damage, skips to the next cluster and reads on as if no frame were missing.
        let clustered = folder.url.appendingPathComponent("clustered.webm")
        try FootageFixture.ffmpeg(
            [
                "-f", "lavfi", "-i", "testsrc=s=64x32:r=30:d=4", "-c:v", "libvpx-vp9", "-b:v", "200k",
                "-cluster_time_limit", "500", clustered.path,
            ])
        var skipped = [UInt8](try Data(contentsOf: clustered))
        let clusters = skipped.indices.dropLast(4).filter { index in
            skipped[index..<index + 4].elementsEqual([0x1F, 0x43, 0xB6, 0x75])
        }
        try #require(clusters.count >= 4)
        let middle = clusters[clusters.count / 2]
        for offset in (middle + 12)..<(middle + 28) { skipped[offset] ^= 0x5A }
        var garbage = Data(count: 4096)
        for index in garbage.indices { garbage[index] = UInt8(truncatingIfNeeded: index &* 2_654_435_761 >> 7) }
        let webpPath = folder.url.appendingPathComponent("whole.webp").path
        try FootageFixture.make(webpPath, fps: 25, frames: 20)
        let webp = try Data(contentsOf: URL(fileURLWithPath: webpPath))
        // Every byte of the second half's pictures flipped: the chunks are whole, the pictures are not.
        var damagedWebP = webp
        for offset in (webp.count / 2)..<(webp.count - 16) where offset % 3 == 0 { damagedWebP[offset] ^= 0xA5 }
        var headless = bytes
        headless.replaceSubrange(0..<64, with: Data(count: 64))
        let files: [(String, Data)] = [
            ("truncated.mp4", bytes.prefix(bytes.count / 2)),
            ("truncated.webm", webmBytes.prefix(webmBytes.count / 2)),
            ("truncated-audio.webm", audioBytes.prefix(audioBytes.count / 2)),
            ("garbage.mp4", garbage),
            ("header.mov", headless),
            ("text.mkv", Data("not a video\n".utf8)),
            ("empty.webm", Data()),
            ("skipped.webm", Data(skipped)),
            // A still PNG is no APNG; a GIF cut in half ends inside a picture; a WebP header alone, one cut in half
            // and one with damaged pictures are no animation libwebp reads.
            ("still.png", try Data(contentsOf: Binary.packageRoot.appendingPathComponent("jobs/assets/star.png"))),
            ("cut.gif", try Self.halfGIF(in: folder)),
            ("sticker.webp", Data("RIFF\0\0\0\0WEBPVP8X".utf8)),
            ("cut.webp", webp.prefix(webp.count / 2)),
            ("damaged.webp", damagedWebP),
        ]
        for (name, data) in files {
            try data.write(to: folder.url.appendingPathComponent(name))
            try folder.write(try FootageFixture.job(file: name, fps: 30, frames: 10), to: "job.json")
            let result = try Binary.run(
                ["validate", folder.url.appendingPathComponent("job.json").path], timeout: 60)
            #expect(result.status == 65, "\(name): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains("layers[0].params.file"), "\(name): \(result.stderr)")
            #expect(result.stderr.contains(name), "\(name): \(result.stderr)")
            if name.hasSuffix(".webp") {
                #expect(
                    result.stderr.contains("\(name) is not a readable WebP")
                        || result.stderr.contains("cannot be decoded"),
                    "\(result.stderr)")
            }
            if name == "skipped.webm" {
                #expect(result.stderr.contains("skipped.webm is damaged after "), "\(result.stderr)")
            }
            // The demuxer logs an error at the cut too; the truncation's own message says more.
            if name.hasPrefix("truncated") && name.hasSuffix(".webm") {
                #expect(result.stderr.contains("\(name) is truncated"), "\(result.stderr)")
            }
        }
        for name in ["good.mp4", "good.webm", "audio.webm", "clustered.webm"] {
            try folder.write(try FootageFixture.job(file: name, fps: 30, frames: 10), to: "job.json")
            let valid = CLI.run(["validate", folder.url.appendingPathComponent("job.json").path])
            #expect(valid.status == 0, "\(name): \(valid.stderr)")
        }
    }

    /// The first half of a 2 s GIF's bytes.
    static func halfGIF(in folder: TemporaryFolder) throws -> Data {
        let gif = folder.url.appendingPathComponent("whole.gif").path
        try FootageFixture.make(gif, fps: 25, frames: 50)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: gif))
        return bytes.prefix(bytes.count / 2)
    }

    @Test("a stream damaged in its middle (a picture's bytes overwritten) is refused at validate, at that frame (65)")
    func damagedInside() throws {
        let folder = try TemporaryFolder()
        let clip = folder.url.appendingPathComponent("clip.mp4")
        try FootageFixture.make(clip.path, fps: 30, frames: 60)
        let pictures = try FootageFixture.pictures(clip.path)
        // One after the middle, one at the start (the check decodes two halves at once; the earlier damage is
        // told).
        let late = try #require(pictures.first { $0.frame >= 30 })
        let early = try #require(pictures.first { $0.frame >= 1 })
        try #require(early.frame < 20)
        let original = try Data(contentsOf: clip)
        for (name, damaged, told) in [("damaged.mp4", [late], late.frame), ("twice.mp4", [late, early], early.frame)] {
            try FootageFixture.damage(original, at: damaged).write(to: folder.url.appendingPathComponent(name))
            try folder.write(try FootageFixture.job(file: name, fps: 30, frames: 10), to: "job.json")
            let result = CLI.run(["validate", folder.url.appendingPathComponent("job.json").path])
            #expect(result.status == 65, "\(name): \(result.stderr)")
            #expect(
                result.stderr.contains("layers[0].params.file: \(name) is damaged at frame \(told) "),
                "\(name): \(result.stderr)")
        }
        // The same file, undamaged, validates: the check refuses the damage, not the clip.
        try folder.write(try FootageFixture.job(file: "clip.mp4", fps: 30, frames: 10), to: "job.json")
        let valid = CLI.run(["validate", folder.url.appendingPathComponent("job.json").path])
        #expect(valid.status == 0, "\(valid.stderr)")
    }

    @Test(
        "a clip whose display matrix turns it (a phone's portrait video) shows turned, as FFmpeg shows it",
        arguments: [90, 180, 270])
    func turned(_ rotate: Int) throws {
        let folder = try TemporaryFolder()
        let stored = folder.url.appendingPathComponent("stored.mp4")
        try FootageFixture.make(stored.path, fps: 30, frames: 6)
        // FFmpeg 5.1 writes the `rotate` tag of a stream copy as the stream's display matrix.
        let clip = folder.url.appendingPathComponent("clip.mp4")
        try FootageFixture.ffmpeg(["-i", stored.path, "-c", "copy", "-metadata:s:v:0", "rotate=\(rotate)", clip.path])
        let (width, height) = rotate == 180 ? (64, 32) : (32, 64)
        try folder.write(
            try FootageFixture.job(file: "clip.mp4", fps: 30, frames: 6, canvas: (width, height)), to: "job.json")
        _ = try Self.render(folder)
        let out = folder.url.appendingPathComponent("out")
        // FFmpeg's own decode, turned by its players' rule (autorotate), in grey: 16 black, 235 white.
        let shown = try FootageFixture.ffmpeg(["-i", clip.path, "-f", "rawvideo", "-pix_fmt", "gray", "-"])
        try #require(shown.stdout.count == width * height * 6, "\(shown.stderr)")
        for frame in 0..<6 {
            let image = try ImageSurface(contentsOfPNG: FootageFixture.frame(frame, in: out))
            #expect(image.width == width && image.height == height)
            var differing = 0
            for y in 0..<height {
                for x in 0..<width {
                    let white = shown.stdout[frame * width * height + y * width + x] > 125
                    if (image.pixel(x: x, y: y).r > 128) != white { differing += 1 }
                }
            }
            #expect(differing == 0, "rotate \(rotate), frame \(frame): \(differing) pixels differ from FFmpeg's")
        }
    }

    @Test("a display matrix that mirrors the pictures draws them mirrored")
    func mirrored() throws {
        let folder = try TemporaryFolder()
        let stored = folder.url.appendingPathComponent("stored.mp4")
        try FootageFixture.make(stored.path, fps: 30, frames: 3)
        // The track header's matrix, the identity as written, made a horizontal flip: x' = −x + 64 (16.16).
        var bytes = [UInt8](try Data(contentsOf: stored))
        func words(_ values: [Int32]) -> [UInt8] { values.flatMap { withUnsafeBytes(of: $0.bigEndian, Array.init) } }
        let header = try #require(
            bytes.indices.first { bytes[$0..<min($0 + 4, bytes.count)].elementsEqual("tkhd".utf8) })
        let identity = words([65536, 0, 0, 0, 65536, 0, 0, 0, 1 << 30])
        let at = try #require((header..<(bytes.count - 36)).first { bytes[$0..<($0 + 36)].elementsEqual(identity) })
        bytes.replaceSubrange(at..<(at + 36), with: words([-65536, 0, 0, 0, 65536, 0, 64 << 16, 0, 1 << 30]))
        try Data(bytes).write(to: folder.url.appendingPathComponent("mirrored.mp4"))
        try folder.write(try FootageFixture.job(file: "mirrored.mp4", fps: 30, frames: 3), to: "job.json")
        _ = try Self.render(folder)
        let out = folder.url.appendingPathComponent("out")
        for frame in 0..<3 {
            let image = try ImageSurface(contentsOfPNG: FootageFixture.frame(frame, in: out))
            for bit in 0..<8 {
                // Bit b, stored at x = 8 b … 8 b + 7, shows at 63 − x.
                let white = image.pixel(x: 59 - 8 * bit, y: 16).r > 128
                #expect(white == ((frame >> bit) & 1 == 1), "frame \(frame), bit \(bit)")
            }
        }
    }

    @Test("anamorphic video (pixels twice as wide as tall) is placed at the shape players show")
    func anamorphic() throws {
        let folder = try TemporaryFolder()
        let clip = folder.url.appendingPathComponent("wide.mp4")
        try FootageFixture.ffmpeg(
            [
                "-f", "lavfi", "-i", "color=c=black:s=64x32:r=30", "-frames:v", "3", "-vf",
                FootageFixture.bits + ",setsar=2", "-c:v", "libx264", "-qp", "0", "-pix_fmt", "yuv420p", clip.path,
            ])
        // 64 × 32 pixels of aspect 2:1 show as 128 × 32: contained in 128 × 64, bars of 16 above and below.
        try folder.write(
            try FootageFixture.job(file: "wide.mp4", fps: 30, frames: 3, params: ["fit": "contain"], canvas: (128, 64)),
            to: "job.json")
        _ = try Self.render(folder)
        let out = folder.url.appendingPathComponent("out")
        for frame in 0..<3 {
            let image = try ImageSurface(contentsOfPNG: FootageFixture.frame(frame, in: out))
            for x in stride(from: 4, to: 128, by: 8) {
                #expect(image.pixel(x: x, y: 8).a == 0 && image.pixel(x: x, y: 56).a == 0, "frame \(frame), x \(x)")
                // Bit b of the frame number is 16 pixels wide from x = 16 b.
                let white = image.pixel(x: x, y: 32).r > 128
                #expect(white == ((frame >> (x / 16)) & 1 == 1), "frame \(frame), x \(x)")
            }
        }
    }

    @Test("a display matrix that turns pictures by 45° is refused at validate, located (65)")
    func turnedAskew() throws {
        let folder = try TemporaryFolder()
        let stored = folder.url.appendingPathComponent("stored.mp4")
        try FootageFixture.make(stored.path, fps: 30, frames: 6)
        let clip = folder.url.appendingPathComponent("askew.mp4")
        try FootageFixture.ffmpeg(["-i", stored.path, "-c", "copy", "-metadata:s:v:0", "rotate=45", clip.path])
        try folder.write(try FootageFixture.job(file: "askew.mp4", fps: 30, frames: 6), to: "job.json")
        let result = CLI.run(["validate", folder.url.appendingPathComponent("job.json").path])
        #expect(result.status == 65, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "layers[0].params.file: askew.mp4 has a display matrix that turns its pictures by other than a "
                    + "multiple of 90°"), "\(result.stderr)")
    }

    @Test("damage before the trimmed part refuses nothing: the layer plays its part")
    func damagedBeforeTrim() throws {
        let folder = try TemporaryFolder()
        let clip = folder.url.appendingPathComponent("clip.mp4")
        try FootageFixture.make(clip.path, fps: 24, frames: 48)
        // Keyframes every 12 frames: the first one (frame 0) damaged, the layer playing frames 24 to 47.
        let first = try #require(try FootageFixture.pictures(clip.path, keyframes: true).first)
        try #require(first.frame == 0)
        try FootageFixture.damage(try Data(contentsOf: clip), at: [first])
            .write(to: folder.url.appendingPathComponent("damaged.mp4"))
        let trim = ["trim": ["in": 1.0, "out": 2.0]]
        try folder.write(try FootageFixture.job(file: "damaged.mp4", fps: 24, frames: 24, params: trim), to: "job.json")
        let job = folder.url.appendingPathComponent("job.json").path
        let out = folder.url.appendingPathComponent("out")
        let result = CLI.run(["render", job, "--out", out.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try FootageFixture.shown(in: out, frames: 24) == Array(24..<48))
        // Played from its start, the damage is refused.
        try folder.write(try FootageFixture.job(file: "damaged.mp4", fps: 24, frames: 24), to: "job.json")
        let whole = CLI.run(["validate", job])
        #expect(whole.status == 65, "\(whole.stderr)")
        #expect(whole.stderr.contains("damaged.mp4 is damaged at frame 0 "), "\(whole.stderr)")
    }

    @Test("damage past the part validate decodes fails the frames that show it at render (1), never drawn concealed")
    func damagedPastTheCheck() throws {
        let folder = try TemporaryFolder()
        let clip = folder.url.appendingPathComponent("long.mp4")
        // 320 frames of 720p, one keyframe: the check decodes the first 291 in full (2^28 pixels), then
        // keyframes only, so it cannot see a predicted picture damaged after those.
        try FootageFixture.ffmpeg(
            [
                "-f", "lavfi", "-i", "testsrc2=s=1280x720:r=30", "-frames:v", "320", "-c:v", "libx264", "-preset",
                "ultrafast", "-g", "400", "-pix_fmt", "yuv420p", clip.path,
            ])
        let picture = try #require(try FootageFixture.pictures(clip.path).first { $0.frame >= 300 })
        try FootageFixture.damage(try Data(contentsOf: clip), at: [picture])
            .write(to: folder.url.appendingPathComponent("damaged.mp4"))
        try folder.write(try FootageFixture.job(file: "damaged.mp4", fps: 30, frames: 320), to: "job.json")
        let job = folder.url.appendingPathComponent("job.json").path
        let frames = "\(picture.frame - 2)-\(picture.frame + 1)"
        let out = folder.url.appendingPathComponent("out")
        let result = CLI.run(["render", job, "--frames", frames, "--out", out.path])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("damaged.mp4 is damaged at frame \(picture.frame) "), "\(result.stderr)")
        // The frames before the damage are drawn; the damaged one and the next, decoded through it, are not.
        func drawn(_ frame: Int) -> Bool {
            FileManager.default.fileExists(atPath: FootageFixture.frame(frame, in: out))
        }
        #expect(drawn(picture.frame - 2) && drawn(picture.frame - 1))
        #expect(!drawn(picture.frame) && !drawn(picture.frame + 1))
        #expect(result.stderr.contains("2 frames failed: \(picture.frame)-\(picture.frame + 1)"), "\(result.stderr)")
        // The undamaged clip renders them all.
        try folder.write(try FootageFixture.job(file: "long.mp4", fps: 30, frames: 320), to: "job.json")
        let good = folder.url.appendingPathComponent("good")
        let valid = CLI.run(["render", job, "--frames", frames, "--out", good.path])
        #expect(valid.status == 0, "\(valid.stderr)")
    }
}

/// Numbered PNG sequences (FootageEffect article, "Image sequences"): each file a frame at its number over the
/// sequence's `rate`, by the same rule as a clip's frames; gaps, mixed sizes and strays are told.
@Suite("Footage: image sequences", .enabled(if: Tools.hasFFmpeg || Tools.inCI, "ffmpeg not installed"))
struct ImageSequenceTests {
    /// Writes `frames` numbered PNGs from `first` (`frames/f_%03d.png`), each showing its frame number.
    static func sequence(in folder: TemporaryFolder, frames: Int, first: Int = 1) throws {
        try FileManager.default.createDirectory(
            at: folder.url.appendingPathComponent("frames"), withIntermediateDirectories: true)
        try FootageFixture.ffmpeg([
            "-f", "lavfi", "-i", "color=c=black:s=\(FootageFixture.width)x\(FootageFixture.height):r=10",
            "-frames:v", "\(frames)", "-vf", FootageFixture.bits, "-start_number", "\(first)",
            folder.url.appendingPathComponent("frames/f_%03d.png").path,
        ])
    }

    @Test("generated rates, speeds, trims and loops: every output frame shows the file the rule says")
    func rule() throws {
        var random = FuzzRandom(seed: 0x5E9)
        for run in 0..<4 {
            let folder = try TemporaryFolder()
            let (count, first) = (random.integer(6...20), random.integer(0...3))
            try Self.sequence(in: folder, frames: count, first: first)
            let rate = random.pick([8, 12, 24, 30])
            var test = FootageTests.Case(
                clipFPS: rate, clipFrames: count, fps: random.pick([24, 30]), frames: 40,
                speedNumerator: random.integer(1...3), speedDenominator: random.integer(1...2), container: "png")
            if random.chance(0.5) {
                let trimIn = random.integer(0...count / 2)
                (test.trimIn, test.trimOut) = (trimIn, random.integer(trimIn + 1...count))
                test.loop = random.chance(0.5)
            }
            var params = test.params
            params["rate"] = rate
            try folder.write(
                try FootageFixture.job(file: "frames/f_%03d.png", fps: test.fps, frames: test.frames, params: params),
                to: "job.json")
            _ = try FootageTests.render(folder, ["-j", "2"])
            let out = folder.url.appendingPathComponent("out")
            for k in 0..<test.frames {
                let png = FootageFixture.frame(k, in: out)
                if let source = test.expected(k, clip: ([], (1, 1))) {
                    // Each file shows its place in the sequence, from 0.
                    #expect(try FootageFixture.index(of: png) == source, "run \(run), \(test): frame \(k)")
                } else {
                    #expect(try ImageSurface(contentsOfPNG: png).pixel(x: 4, y: 16).a == 0, "run \(run): frame \(k)")
                }
            }
            let manifest = try String(contentsOf: out.appendingPathComponent("manifest.json"), encoding: .utf8)
            #expect(manifest.contains(String(format: "frames/f_%03d.png", first + count - 1)), "run \(run)")
        }
    }

    @Test("a gap, a frame of another size, no match and a pattern of JPEGs are refused (65); a clip's rate warned of")
    func refusals() throws {
        let folder = try TemporaryFolder()
        try Self.sequence(in: folder, frames: 6)
        let frames = folder.url.appendingPathComponent("frames")
        let cases: [(setup: () throws -> Void, file: String, params: [String: Any], message: String)] = [
            (
                { try FileManager.default.removeItem(at: frames.appendingPathComponent("f_004.png")) },
                "frames/f_%03d.png",
                [:], "frame 4 is missing (the numbers run from 1 to 3, then 5)"
            ),
            (
                {
                    try FileManager.default.copyItem(
                        at: Binary.packageRoot.appendingPathComponent("jobs/assets/star.png"),
                        to: frames.appendingPathComponent("f_004.png"))
                }, "frames/f_%03d.png", [:], "(f_004.png) is "
            ),
            ({}, "frames/g_%03d.png", [:], "no file in frames matches"),
            ({}, "frames/f_%03d.jpg", [:], "an image sequence is of .png files"),
            ({}, "../f_%03d.png", [:], "resolves outside"),
        ]
        for (setup, file, params, message) in cases {
            try setup()
            try folder.write(try FootageFixture.job(file: file, fps: 30, frames: 10, params: params), to: "job.json")
            let result = CLI.run(["validate", folder.url.appendingPathComponent("job.json").path])
            #expect(result.status == 65, "\(file): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(file): \(result.stderr)")
        }
        let clip = folder.url.appendingPathComponent("clip.gif").path
        try FootageFixture.make(clip, fps: 10, frames: 5)
        try folder.write(
            try FootageFixture.job(file: "clip.gif", fps: 30, frames: 10, params: ["rate": 12]), to: "job.json")
        let warned = CLI.run(["validate", folder.url.appendingPathComponent("job.json").path])
        #expect(warned.status == 0, "\(warned.stderr)")
        #expect(
            warned.stderr.contains("only an image sequence has a rate; clip.gif plays at its own times"),
            "\(warned.stderr)")
    }
}
