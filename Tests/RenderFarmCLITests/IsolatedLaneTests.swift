import EffectKit
import Foundation
import Testing

/// `render --isolate` of one job whose layers report frame keys and that draws every frame (a new folder, or
/// `--force`): while the first worker computes the keys, the workers of the other lanes start, and the lanes take
/// them. Into a folder with frames recorded, a lane starts its own when it has a frame to draw. The test plugin
/// `test-probe` appends a line to `createLog` for each instance made: one in the planning worker, one in each frame
/// worker. In its sandbox the probe could not write its log, so the renders run with `--sandbox off` (the same
/// workers, unsandboxed).
@Suite("render --isolate: one worker per lane, started while the frame keys are computed")
struct IsolatedLaneTests {
    /// Lanes (`-j`) and frames of a generated case (fixed seed, so a failure reruns as it failed).
    static let cases: [(lanes: Int, frames: Int)] = {
        var random = SeededRandom(seed: 47)
        return (0..<5).map { _ in (1 + Int(random.uniform(4)), 1 + Int(random.uniform(7))) } + [(4, 2), (2, 1)]
    }()

    @Test(
        "instances: the planning worker's and one per lane with a frame, no more; frames as in process; none left",
        arguments: cases)
    func oneWorkerPerLane(lanes: Int, frames: Int) throws {
        let folder = try TemporaryFolder()
        try folder.write(
            """
            {"version": 1, "name": "lanes", "canvas": {"width": 24, "height": 24}, "fps": 6, "duration": 2,
             "output": {"dir": "out"}, "layers": [{"effect": "test-probe",
             "params": {"showTime": true, "keyed": true, "createLog": "created.txt"}}]}
            """, to: "job.json")
        let job = folder.url.appendingPathComponent("job.json").path
        let range = ["--frames", "0-\(frames - 1)", "--progress", "none", "--plugin-path", Binary.testPluginDirectory]
        let isolated = folder.url.appendingPathComponent("isolated").path
        let render = ["render", job, "--isolate", "--sandbox", "off", "-j", String(lanes), "--out", isolated] + range
        let first = CLI.run(render)
        #expect(first.status == 0, "\(first.stderr)")
        let log = folder.url.appendingPathComponent("created.txt")
        let made = { (try? String(contentsOf: log, encoding: .utf8))?.split(separator: "\n").count ?? 0 }
        #expect(made() == 1 + min(lanes, frames), "-j \(lanes), \(frames) frames")

        // The same frames as a render in this process (which adds its own instance to the log).
        let inProcess = folder.url.appendingPathComponent("in-process").path
        let plain = CLI.run(["render", job, "-j", String(lanes), "--out", inProcess] + range)
        #expect(plain.status == 0, "\(plain.stderr)")
        try Self.expectSameFrames(isolated, inProcess, count: frames)

        // Every frame done: only the planning worker and the one that computes the keys start, and none is left.
        try FileManager.default.removeItem(at: log)
        let again = CLI.run(render)
        #expect(again.status == 0 && made() == 2, "-j \(lanes), \(frames) frames: \(again.stderr)")
        let running = AttackScene.leftovers(of: isolated)
        #expect(running.isEmpty, "workers still running: \(running)")

        // --force draws every frame again: the lanes' workers start with the keys' again, and draw the same bytes.
        try FileManager.default.removeItem(at: log)
        let forced = CLI.run(render + ["--force"])
        #expect(forced.status == 0 && made() == 1 + min(lanes, frames), "-j \(lanes), \(frames) frames")
        try Self.expectSameFrames(isolated, inProcess, count: frames)
    }

    /// Expects `count` frames in `folder`, byte for byte those in `reference`, by name.
    static func expectSameFrames(_ folder: String, _ reference: String, count: Int) throws {
        let drawn = try pngFiles(in: URL(fileURLWithPath: folder))
        let expected = try pngFiles(in: URL(fileURLWithPath: reference))
        #expect(drawn.count == count && drawn.map(\.0) == expected.map(\.0) && drawn.map(\.1) == expected.map(\.1))
    }
}
