import CairoKit
import Foundation
import Testing

/// The `lottie` effect end to end: a Lottie file written here with known geometry, rendered by the real
/// binary through rlottie, read back from the PNGs.
@Suite("Lottie effect")
struct LottieEffectTests {
    /// Renders `job` (with the fixture beside it) and returns the folder with the frames.
    static func render(_ job: String, lottie: String = LottieFixture.json, arguments: [String] = []) throws
        -> TemporaryFolder
    {
        let folder = try TemporaryFolder()
        try folder.write(lottie, to: "anim.json")
        let path = try folder.write(job, to: "job.json")
        let command = ["render", path, "--progress", "none"] + arguments
        let result = CLI.run(command)
        #expect(result.status == 0, "\(result.stderr)")
        return folder
    }

    static func frame(_ folder: TemporaryFolder, _ index: Int) throws -> ImageSurface {
        try ImageSurface(
            contentsOfPNG: folder.url.appendingPathComponent(String(format: "out/frame_%05d.png", index)).path)
    }

    @Test("the square moves linearly, turns blue at the hold keyframe, the fader fades", arguments: [1.0, 2.0])
    func knownGeometry(scale: Double) throws {
        let folder = try Self.render(try LottieFixture.job(scale: scale))
        let s = scale
        for index in [0, 3, 4, 5, 7, 9] {
            let image = try Self.frame(folder, index)
            #expect(image.width == Int(100 * s))
            // The mover's centre is at x = 20 + 6 × frame; red before frame 5, blue from it on.
            let x = 20.0 + 6.0 * Double(index)
            let centre = image.pixel(x: Int(x * s), y: Int(50 * s))
            if index < 5 {
                #expect(centre == (255, 0, 0, 255), "frame \(index): \(centre)")
            } else {
                #expect(centre == (0, 0, 255, 255), "frame \(index): \(centre)")
            }
            // Just outside its left and right edges (10 px from the centre) nothing is drawn.
            #expect(image.pixel(x: Int((x - 12) * s), y: Int(50 * s)).a == 0, "frame \(index)")
            #expect(image.pixel(x: Int((x + 12) * s), y: Int(50 * s)).a == 0, "frame \(index)")
            // The fader's opacity is 1 − frame / 10.
            let fader = image.pixel(x: Int(50 * s), y: Int(20 * s))
            let expected = 255 * (1 - Double(index) / 10)
            #expect(abs(Double(fader.a) - expected) <= 2, "frame \(index): alpha \(fader.a), expected \(expected)")
            if fader.a > 0 { #expect(fader.g == 255 && fader.r == 0 && fader.b == 0, "frame \(index)") }
        }
    }

    @Test("at, size and anchor place the composition's frame in points")
    func placement() throws {
        let job = try LottieFixture.job(scale: 2, params: ["at": [0, 0], "size": [50, 50], "anchor": [0, 0]])
        let folder = try Self.render(job)
        let image = try Self.frame(folder, 0)
        // The composition is drawn at half size in the top-left quarter: the mover's centre (20, 50) → (10, 25).
        #expect(image.pixel(x: 20, y: 50) == (255, 0, 0, 255))
        #expect(image.pixel(x: 40, y: 100).a == 0)
        #expect(image.pixel(x: 2 * 60, y: 2 * 60).a == 0)
    }

    @Test("a keypath colour override changes exactly that shape")
    func keypathOverride() throws {
        let plain = try Self.render(try LottieFixture.job())
        let override: [String: Any] = ["keypath": "pair.left.paint", "property": "fillColor", "value": "#FF8000"]
        let changed = try Self.render(try LottieFixture.job(params: ["overrides": [override]]))
        let before = try Self.frame(plain, 2)
        let after = try Self.frame(changed, 2)
        #expect(before.pixel(x: 20, y: 85) == (255, 255, 255, 255))
        #expect(after.pixel(x: 20, y: 85) == (255, 128, 0, 255))
        // Every other pixel is the same.
        var differing: [(Int, Int)] = []
        for y in 0..<100 {
            for x in 0..<100 where before.pixel(x: x, y: y) != after.pixel(x: x, y: y) {
                if !(12..<28).contains(x) || !(77..<93).contains(y) { differing.append((x, y)) }
            }
        }
        #expect(differing.isEmpty, "pixels outside the left square changed: \(differing.prefix(5))")
    }

    @Test("opacity and position overrides of a fill and a group")
    func otherOverrides() throws {
        let overrides: [[String: Any]] = [
            ["keypath": "pair.right.paint", "property": "opacity", "value": 0.5],
            ["keypath": "pair.left", "property": "position", "value": [0, -15]],
        ]
        let folder = try Self.render(try LottieFixture.job(params: ["overrides": overrides]))
        let image = try Self.frame(folder, 0)
        let right = image.pixel(x: 80, y: 85)
        #expect(abs(Int(right.a) - 128) <= 1 && right.r == 255)
        #expect(image.pixel(x: 20, y: 85).a == 0, "the left square moved away")
        #expect(image.pixel(x: 20, y: 70) == (255, 255, 255, 255), "the left square moved 15 up")
    }

    @Test("frames repeat exactly after 1,000 loops (job 20 fps, Lottie 10 fps, speed 1)")
    func thousandLoops() throws {
        // One play is 10 Lottie frames = 20 job frames; loop 1,000 starts at job frame 20,000.
        let job = try LottieFixture.job(
            fps: 20, duration: 1001, params: ["loop": true], frames: "0-19,20000-20019")
        let folder = try Self.render(job)
        let manifest = try Manifest(folder: folder.url.appendingPathComponent("out"))
        let hashes = Dictionary(uniqueKeysWithValues: manifest.frames.map { ($0.index, $0.sha256) })
        for index in 0..<20 {
            #expect(hashes[index] != nil && hashes[index] == hashes[20_000 + index], "frame \(index)")
        }
        #expect(hashes[0] != hashes[2], "the animation moves between Lottie frames")
        #expect(hashes[0] == hashes[1], "two job frames show each Lottie frame")
    }

    @Test("speed, start, loop count and hold")
    func timing() throws {
        let job = try LottieFixture.job(duration: 4, params: ["speed": 2, "start": 0.5, "loop": 2, "hold": true])
        let folder = try Self.render(job)
        // Before the start (0.5 s = 5 frames) nothing is drawn.
        #expect(try Self.frame(folder, 4).pixel(x: 20, y: 50).a == 0)
        // Frame 5 shows Lottie frame 0, frame 6 Lottie frame 2 (twice the speed).
        #expect(try Self.frame(folder, 5).pixel(x: 20, y: 50) == (255, 0, 0, 255))
        #expect(try Self.frame(folder, 6).pixel(x: 32, y: 50) == (255, 0, 0, 255))
        // Two plays of 5 job frames each end at frame 15; then the last frame (9: x = 74, blue) holds.
        #expect(try Self.frame(folder, 10).pixel(x: 20, y: 50) == (255, 0, 0, 255))
        #expect(try Self.frame(folder, 30).pixel(x: 74, y: 50) == (0, 0, 255, 255))
    }

    @Test("frames are byte-identical across -j 1, -j 2, --isolate and --shard K/N")
    func deterministic() throws {
        let job = try LottieFixture.job(fps: 30, duration: 2, scale: 2, params: ["loop": true, "speed": 0.7])
        let one = try Self.render(job, arguments: ["-j", "1"])
        let two = try Self.render(job, arguments: ["-j", "2"])
        let reference = try Manifest(folder: one.url.appendingPathComponent("out")).frames.map(\.sha256)
        #expect(reference.count == 60)
        #expect(try Manifest(folder: two.url.appendingPathComponent("out")).frames.map(\.sha256) == reference)
        // Worker processes (the advice for untrusted files) draw the same bytes.
        let isolated = try Self.render(job, arguments: ["-j", "2", "--isolate"])
        #expect(try Manifest(folder: isolated.url.appendingPathComponent("out")).frames.map(\.sha256) == reference)
        let sharded = try TemporaryFolder()
        try sharded.write(LottieFixture.json, to: "anim.json")
        let path = try sharded.write(job, to: "job.json")
        for index in 0..<3 {
            let shard = CLI.run(["render", path, "--shard", "\(index)/3", "--progress", "none", "-j", "2"])
            #expect(shard.status == 0, "\(shard.stderr)")
        }
        let merge = CLI.run(["merge", sharded.url.appendingPathComponent("out").path])
        #expect(merge.status == 0, "\(merge.stderr)")
        #expect(try Manifest(folder: sharded.url.appendingPathComponent("out")).frames.map(\.sha256) == reference)
    }

    @Test("a 29.97 fps Lottie file in a 60 fps job plays at its own rate")
    func fractionalRate() throws {
        let lottie = LottieFixture.json.replacingOccurrences(of: #""fr": 10"#, with: #""fr": 29.97"#)
        let folder = try Self.render(
            try LottieFixture.job(fps: 60, duration: 0.5, params: ["loop": true]), lottie: lottie)
        // Job frame 3 is Lottie time 0.05 s = frame ⌊1.4985⌋ = 1: the mover is at x = 26.
        #expect(try Self.frame(folder, 3).pixel(x: 26, y: 50) == (255, 0, 0, 255))
        #expect(try Self.frame(folder, 3).pixel(x: 13, y: 50).a == 0)
    }

    @Test("the file stays in the job's folder, must be a regular .json file, and a named pipe never hangs")
    func confinedFile() throws {
        let folder = try TemporaryFolder()
        let outside = try TemporaryFolder()
        try outside.write(LottieFixture.json, to: "elsewhere.json")
        try folder.write(LottieFixture.json, to: "anim.txt")
        try FileManager.default.createSymbolicLink(
            atPath: folder.url.appendingPathComponent("link.json").path,
            withDestinationPath: outside.url.appendingPathComponent("elsewhere.json").path)
        #expect(mkfifo(folder.url.appendingPathComponent("pipe.json").path, 0o600) == 0)
        let cases = [
            ("../\(outside.url.lastPathComponent)/elsewhere.json", "resolves outside the job's folder"),
            ("link.json", "resolves outside the job's folder"),
            ("anim.txt", "is not a .json Lottie file"),
            ("pipe.json", "pipe.json is a named pipe, not a file"),
            ("missing.json", "not found"),
        ]
        for (file, message) in cases {
            let job = try folder.write(try LottieFixture.job(lottie: file), to: "job.json")
            let result = CLI.run(["validate", job])
            #expect(result.status == 65, "\(file): \(result.stderr)")
            #expect(result.stderr.contains("layers[0].params.file: "), "\(file): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(file): \(result.stderr)")
        }
    }

    @Test("trace reports the Lottie frame and play, and a drawn point")
    func trace() throws {
        let folder = try TemporaryFolder()
        try folder.write(LottieFixture.json, to: "anim.json")
        let job = try folder.write(try LottieFixture.job(duration: 3, params: ["loop": true]), to: "job.json")
        let result = CLI.run(["trace", job, "--frames", "0,25"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.first?.contains(#""frame":0,"loop":0"#) == true, "\(result.stdout)")
        #expect(lines.last?.contains(#""frame":5,"loop":2"#) == true, "\(result.stdout)")
        #expect(lines.first?.contains(#""visible":true"#) == true)
    }

    @Test("renderfarm plugins lottie documents every parameter")
    func documented() throws {
        let result = CLI.run(["plugins", "lottie"])
        #expect(result.status == 0, "\(result.stderr)")
        for name in ["file", "at", "size", "anchor", "speed", "loop", "hold", "start", "opacity", "overrides"] {
            #expect(result.stdout.contains("\n    \(name) "), "\(name) is not documented")
        }
    }
}
