import Foundation
import Testing

@testable import RenderFarmJobs
@testable import RenderFarmMedia
@testable import RenderFarmSound

/// In a process that keeps decoded sounds (the studio), a sound file is decoded once per content and length
/// (`DecodedSounds`): loading it again starts no ffmpeg and gives the same samples; an edited file, or another
/// length, is decoded again.
@Suite("Decoded sounds are kept by content")
struct DecodedSoundsTests {
    /// A 16-bit stereo WAV at the mix rate of `seconds` of random samples (the mixer's own WAV writer):
    /// content no other test has.
    static func randomWAV(seconds: Double, _ random: inout SystemRandomNumberGenerator) -> [UInt8] {
        let count = Int(seconds * Double(SoundMixer.rate))
        let samples = (0..<count * 2).map { _ in Int16.random(in: -20_000...20_000, using: &random) }
        return SoundTrack(samples: samples, inputs: [], span: 0..<count).wav
    }

    @Test("random loads of random files start ffmpeg once per content and length, and give the decoded samples")
    func oncePerContent() throws {
        // As the studio does (other tests' loads then keep their samples too, with the same results).
        DecodedSounds.keep()
        let real = try FFmpeg.locate()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rf-decoded-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // ffmpeg behind a script that notes each start.
        let starts = folder.appendingPathComponent("starts").path
        let wrapper = folder.appendingPathComponent("ffmpeg").path
        try "#!/bin/sh\necho started >> '\(starts)'\nexec '\(real.executable)' \"$@\"\n"
            .write(toFile: wrapper, atomically: true, encoding: .utf8)
        #expect(chmod(wrapper, 0o755) == 0)
        let ffmpeg = FFmpeg(executable: wrapper, probe: real.probe)
        func started() -> Int {
            ((try? String(contentsOfFile: starts, encoding: .utf8)) ?? "").split(separator: "\n").count
        }
        var random = SystemRandomNumberGenerator()
        struct Load: Hashable {
            var bytes: [UInt8]
            var seconds: Double
        }
        var decoded: [Load: [Float]] = [:]
        for round in 0..<12 {
            // A new file now and then, else the current one edited or loaded again, for one of two lengths.
            let name = "sound.wav"
            let path = folder.appendingPathComponent(name).path
            if round == 0 || Int.random(in: 0..<3, using: &random) == 0 {
                try Data(Self.randomWAV(seconds: 0.2, &random)).write(to: URL(fileURLWithPath: path))
            }
            let seconds = [0.1, 0.15].randomElement(using: &random) ?? 0.1
            let key = Load(bytes: Array(try Data(contentsOf: URL(fileURLWithPath: path))), seconds: seconds)
            let before = started()
            let file = try SoundFile.load(name, jobDirectory: folder.path, seconds: seconds, ffmpeg: ffmpeg).get()
            #expect(started() == before + (decoded[key] == nil ? 1 : 0), "round \(round)")
            #expect(file.samples.count == Int(seconds * Double(SoundMixer.rate)) * 2, "round \(round)")
            if let earlier = decoded[key] { #expect(file.samples == earlier, "round \(round)") }
            decoded[key] = file.samples
        }
        #expect(started() == decoded.count)
    }
}
