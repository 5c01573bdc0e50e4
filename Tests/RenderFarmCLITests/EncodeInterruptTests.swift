import Foundation
import Testing

/// SIGINT and SIGTERM stop `encode` as they stop `render`: ffmpeg is stopped, the unfinished
/// video is removed, nothing is recorded, and the command exits 130 for either signal.
@Suite("encode interrupted", .enabled(if: Tools.hasFFmpeg, "ffmpeg/ffprobe not installed: apt-get install ffmpeg"))
struct EncodeInterruptTests {
    struct Interruption: Sendable, CustomTestStringConvertible {
        var preset: String
        var file: String
        var signal: Int32
        var testDescription: String { "\(preset), \(signal == SIGINT ? "SIGINT" : "SIGTERM")" }
    }

    /// Frames piped in the encoder's format (mp4) and PNGs read by ffmpeg itself (apng), each
    /// interrupted by either signal.
    static let interruptions = [SIGINT, SIGTERM].flatMap { signal in
        [
            Interruption(preset: "mp4", file: "v.mp4", signal: signal),
            Interruption(preset: "apng", file: "v.apng", signal: signal),
        ]
    }

    @Test(
        "a signal mid-encode stops ffmpeg, removes the staged video, records nothing, exits 130",
        arguments: interruptions)
    func interrupted(_ case: Interruption) throws {
        let folder = try TemporaryFolder()
        // 40 frames at 2 fps; ffmpeg below reads its input in real time (-re), so the encode takes 20 s.
        let job = try folder.write(
            #"""
            {"duration": 20, "fps": 2, "seed": 1, "canvas": {"width": 40, "height": 40, "scale": 1},
             "output": {"dir": "out"}, "layers": [{"effect": "floating-heart", "params": {"times": [0]}}]}
            """#, to: "job.json")
        let render = try Binary.run(["render", job, "--progress", "none"])
        try #require(render.status == 0, "\(render.stderr)")
        let out = folder.url.appendingPathComponent("out")
        let manifest = try Data(contentsOf: out.appendingPathComponent("manifest.json"))
        let pidFile = folder.url.appendingPathComponent("ffmpeg.pid").path
        let ffmpeg = try #require(Tools.find("ffmpeg"))
        let slow = try folder.write(
            "#!/bin/sh\necho $$ > '\(pidFile)'\nexec '\(ffmpeg)' -re \"$@\"\n", to: "bin/ffmpeg")
        chmod(slow, 0o755)

        let run = try Binary.Running(
            [
                "encode", out.path, "--preset", `case`.preset, "-o", out.appendingPathComponent(`case`.file).path,
                "--progress", "none",
            ],
            environment: ["RENDERFARM_FFMPEG": slow])
        // ffmpeg runs and has opened its (temporary) output.
        try Binary.waitUntil("ffmpeg writes the video", running: run) {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: out.path)) ?? []
            return FileManager.default.fileExists(atPath: pidFile) && names.contains { $0.hasPrefix(".rf-tmp-") }
        }
        let pid = try #require(
            Int32(
                (try String(contentsOfFile: pidFile, encoding: .utf8)).trimmingCharacters(in: .whitespacesAndNewlines)))
        defer { kill(pid, SIGKILL) }
        run.signal(`case`.signal)
        let result = run.wait(timeout: 10)
        #expect(
            result.status == 130 && result.signal == nil,
            "\(result.status) \(String(describing: result.signal)): \(result.stderr)")
        #expect(result.stderr.contains("interrupted after"), "\(result.stderr)")
        #expect(result.stderr.contains("no video written"), "\(result.stderr)")
        // ffmpeg was stopped (and reaped), not left running on its own.
        let deadline = ContinuousClock.now + .seconds(2)
        while kill(pid, 0) == 0 && ContinuousClock.now < deadline { usleep(10_000) }
        #expect(kill(pid, 0) != 0, "ffmpeg (pid \(pid)) still runs")
        let names = try FileManager.default.contentsOfDirectory(atPath: out.path)
        #expect(!names.contains(`case`.file))
        #expect(!names.contains { $0.hasPrefix(".rf-tmp-") }, "\(names)")
        #expect(try Data(contentsOf: out.appendingPathComponent("manifest.json")) == manifest)
    }
}
