import CairoKit
import Foundation
import Testing

/// Motion blur (the RenderFarm article ComposingLayers, "Motion blur"), measured in the PNGs: a streak is as long
/// as the item's travel while the shutter is open, and a frame is the average of the unblurred drawings at the
/// samples' times.
@Suite("Motion blur: streaks as long as the travel, frames the average of the samples")
struct MotionBlurTests {
    typealias Compose = LayerCompositionTests

    @Test("a moving square's streak spans its travel while the shutter is open (12 random shutters and speeds)")
    func streak() throws {
        var random = FuzzRandom(seed: 4_911)
        for _ in 0..<12 {
            let speed = (random.number(50...400)).rounded()  // points per second, left to right
            let angle = (random.number(45...360)).rounded()
            let phase = (random.number(-180...0)).rounded()
            let samples = random.integer(2...16)
            // 10 fps, frame 1 at t = 0.1 s; the square (10 × 10) starts at x = 20.
            let layer = Compose.probe(
                [0, 45, 10, 10], [0, 0, 1, 1],
                ##""transform": {"anchor": [0, 0], "position": {"keyframes": [{"t": 0, "value": [20, 0]}, {"t": 1, "value": [\##(20 + speed), 0]}]}}, "motionBlur": {"shutterAngle": \##(angle), "shutterPhase": \##(phase), "samples": \##(samples)}"##
            )
            let folder = try TemporaryFolder()
            let out = try Compose.render([layer], background: "#00000000", duration: 0.3, in: folder)
            let image = try Compose.frame(out, 1)
            let opens = 0.1 + phase / 360 / 10
            let closes = opens + angle / 360 / 10
            let (left, right) = (20 + speed * opens, 20 + speed * closes + 10)
            let covered = (0..<100).filter { Compose.rgba(image, $0, 50)[3] > 0 }
            guard let first = covered.first, let last = covered.last else {
                Issue.record("nothing drawn")
                continue
            }
            // The first and last samples' squares, to the pixel; every sample's pixels are blue.
            #expect(
                abs(Double(first) - left.rounded(.down)) <= 1 && abs(Double(last + 1) - right.rounded(.up)) <= 1,
                "speed \(speed), shutter \(angle)° at \(phase)°, \(samples) samples: drawn \(first)...\(last), expected \(left)...\(right)"
            )
            #expect(covered.allSatisfy { Compose.rgba(image, $0, 50)[2] == 255 })
            // The alpha adds up to the square's area: the average of `samples` squares 10 wide.
            let total = (0..<100).map { Double(Compose.rgba(image, $0, 50)[3]) / 255 }.reduce(0, +)
            #expect(abs(total - 10) <= 0.1, "alpha over the row \(total)")
        }
    }

    @Test("two samples at 360° from phase 0 give the average of a frame and the next, unblurred (3 seeds)")
    func averageOfFrames() throws {
        for seed in [3, 17, 29] {
            func job(_ fields: String) -> String {
                """
                {"name": "blur", "seed": \(seed), "canvas": {"width": 120, "height": 160, "scale": 1, "background": "#00000000"},
                 "fps": 30, "duration": 1, "output": {"dir": "out"},
                 "layers": [{"effect": "floating-heart", "params": {"emitter": [60, 150], "rate": 8, "size": 18}\(fields)}]}
                """
            }
            let folder = try TemporaryFolder()
            let plain = try folder.write(job(""), to: "plain.json")
            let blurred = try folder.write(
                job(#", "motionBlur": {"shutterAngle": 360, "shutterPhase": 0, "samples": 2}"#), to: "blurred.json")
            #expect(CLI.run(["render", plain, "--out", (folder.path + "/plain"), "--progress", "none"]).status == 0)
            #expect(
                CLI.run(["render", blurred, "--out", (folder.path + "/blurred"), "--progress", "none"]).status == 0)
            for index in [10, 20, 28] {
                let name = String(format: "frame_%05d.png", index)
                let next = String(format: "frame_%05d.png", index + 1)
                let a = try ImageSurface(contentsOfPNG: (folder.path + "/plain/" + name))
                let b = try ImageSurface(contentsOfPNG: (folder.path + "/plain/" + next))
                let blur = try ImageSurface(contentsOfPNG: (folder.path + "/blurred/" + name))
                var worst = 0
                for y in 0..<a.height {
                    for x in 0..<a.width {
                        let (p, q, r) = (a.premultiplied(x, y), b.premultiplied(x, y), blur.premultiplied(x, y))
                        for channel in 0..<4 { worst = max(worst, abs((p[channel] + q[channel] + 1) / 2 - r[channel])) }
                    }
                }
                // Rounding: each sample's byte and the average round once; PNG's straight alpha once more.
                #expect(worst <= 3, "seed \(seed), frame \(index): off by \(worst)")
            }
        }
    }

    @Test(
        "a bad motion blur is refused with where it is and what is allowed",
        arguments: [
            (#""yes""#, "layers[0].motionBlur: expected true, false or"),
            (#"{"samples": 1}"#, "layers[0].motionBlur.samples: 1 is out of range"),
            (#"{"shutterAngle": 0}"#, "layers[0].motionBlur.shutterAngle: 0 is out of range"),
            (#"{"shutter": 180}"#, "layers[0].motionBlur.shutter: unknown key"),
        ])
    func refused(value: String, message: String) throws {
        let folder = try TemporaryFolder()
        let job = try folder.write(
            #"{"name": "m", "canvas": {"width": 50, "height": 50}, "fps": 10, "duration": 0.1, "layers": [\#(Compose.probe([0, 0, 10, 10], [1, 0, 0, 1], "\"motionBlur\": " + value))]}"#,
            to: "job.json")
        let result = CLI.run(["validate", job] + Compose.plugins)
        #expect(result.status == 65)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }
}

extension ImageSurface {
    /// Pixel (x, y) as premultiplied bytes [r, g, b, a], as cairo holds it.
    fileprivate func premultiplied(_ x: Int, _ y: Int) -> [Int] {
        let word = UnsafeRawPointer(bytes + y * stride).load(fromByteOffset: x * 4, as: UInt32.self)
        return [Int((word >> 16) & 0xFF), Int((word >> 8) & 0xFF), Int(word & 0xFF), Int(word >> 24)]
    }
}

extension MotionBlurTests {
    @Test("a frame that fails at a later sample and is tried again draws the bytes of one that never failed")
    func failedSample() throws {
        // The group's first sample (t = 0.15 at frame 2) comes before the failing layer starts (0.17): it is summed,
        // then the second sample fails. The retry must not find the first attempt's sums.
        func job(_ faults: String) -> String {
            """
            {"name": "retry", "canvas": {"width": 60, "height": 60, "scale": 1}, "fps": 10, "duration": 0.5, "retries": 1,
             "layers": [{"motionBlur": {"shutterAngle": 360, "shutterPhase": -180, "samples": 4}, "group": [
               \(LayerCompositionTests.probe([10, 10, 20, 20], [1, 0, 0, 1])),
               {"effect": "test-faults", "start": 0.17, "end": 10, "params": {\(faults)}}]}]}
            """
        }
        let folder = try TemporaryFolder()
        var digests: [String] = []
        for (name, faults) in [("failing", #""failFrames": [2], "failAttempts": 1"#), ("plain", "")] {
            let path = try folder.write(job(faults), to: name + ".json")
            let out = folder.path + "/" + name
            let result = CLI.run(["render", path, "--out", out, "--progress", "none"] + LayerCompositionTests.plugins)
            #expect(result.status == 0, "\(result.stderr)")
            digests.append(sha256(try Data(contentsOf: URL(fileURLWithPath: out + "/frame_00002.png"))))
        }
        #expect(digests[0] == digests[1], "the retried frame differs from one that never failed")
    }
}
