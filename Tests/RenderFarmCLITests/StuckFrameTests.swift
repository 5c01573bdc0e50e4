import Foundation
import Testing

/// A frame that hangs without `--isolate` is named while it hangs, with its layer, and the progress
/// line counts the frames that did finish.
@Suite("Stuck frames")
struct StuckFrameTests {
    @Test("a frame still drawing after --stuck-after is named with its layer; progress shows the finished frames")
    func stuckFrameNamed() throws {
        let folder = try TemporaryFolder()
        let gate = try folder.write("", to: "gate")
        let job = try OutputTrustTests.job(
            in: folder, params: #"{"waitFrames": [1], "waitWhileFileExists": "\#(gate)"}"#, frames: 12)
        let running = try Binary.Running(
            ["render", job, "--progress", "plain", "-j", "2", "--stuck-after", "1"] + OutputTrustTests.plugins)
        let stderr = { (try? String(contentsOf: running.stderrURL, encoding: .utf8)) ?? "" }
        // Seconds as the watch saw them: 1, or more on a loaded machine.
        let notice =
            #/renderfarm: frame 1 of job is still drawing after \d+ s in layer 0 \(test-faults\); if a plugin hangs, render with --isolate --frame-timeout SECONDS/#
        try Binary.waitUntil("the stuck frame is named", running: running) { stderr().contains(notice) }
        // The other lane drew the 11 other frames; the line says so while frame 1 still hangs.
        try Binary.waitUntil("the progress line counts 11 finished frames", running: running) {
            stderr().contains("91%  11/12 frames")
        }
        try FileManager.default.removeItem(atPath: gate)
        let result = running.wait(timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        // Named once, however long it hung.
        #expect(result.stderr.components(separatedBy: "is still drawing").count == 2, "\(result.stderr)")
    }

    @Test("under --isolate the notice says the worker is killed at the frame timeout, 300 s unless given")
    func stuckFrameIsolated() throws {
        let folder = try TemporaryFolder()
        let job = try OutputTrustTests.job(in: folder, params: #"{"delayMs": 2500}"#, frames: 1)
        let cases = [
            (
                [] as [String],
                "if a plugin hangs, its worker is killed at --frame-timeout 300 s and that attempt fails"
            ),
            (
                ["--frame-timeout", "30"],
                "if a plugin hangs, its worker is killed at --frame-timeout 30 s and that attempt fails"
            ),
        ]
        for (extra, hint) in cases {
            let result = CLI.run(
                ["render", job, "--progress", "plain", "-j", "1", "--stuck-after", "1", "--isolate", "--force"] + extra
                    + OutputTrustTests.plugins)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("frame 0 of job is still drawing after"), "\(result.stderr)")
            // A worker draws the frame: the notice cannot name its layer.
            #expect(result.stderr.contains(" s; " + hint + "\n"), "\(extra): \(result.stderr)")
            #expect(!result.stderr.contains("render with --isolate"), "\(result.stderr)")
        }
    }

    @Test("--stuck-after 0 names nothing; a bad value is a usage error")
    func options() throws {
        let folder = try TemporaryFolder()
        let job = try OutputTrustTests.job(in: folder, params: #"{"delayMs": 1200}"#, frames: 2)
        let quiet = CLI.run(
            ["render", job, "--progress", "plain", "-j", "1", "--stuck-after", "0"] + OutputTrustTests.plugins)
        #expect(quiet.status == 0 && !quiet.stderr.contains("still drawing"), "\(quiet.stderr)")
        let bad = CLI.run(["render", job, "--stuck-after", "soon"] + OutputTrustTests.plugins)
        #expect(bad.status == 64 && bad.stderr.contains("--stuck-after expects seconds"), "\(bad.stderr)")
    }
}
