import Foundation
import Testing

/// ABI `verify`: a layer's costly checks of its input run once per run, in the process that checks the
/// job (`render --isolate`: its planning worker), and never in the worker processes that draw its frames. The test plugin `test-probe` appends a
/// line to `verifyLog` each time it is verified.
@Suite("verify: once per run, never in workers")
struct VerifyTests {
    static let plugins = ["--plugin-path", Binary.testPluginDirectory]

    /// How many times `command` (run on a job of one probe layer, 6 frames) verified the layer.
    static func verifications(_ command: [String]) throws -> Int {
        let folder = try TemporaryFolder()
        try folder.write(
            """
            {"version": 1, "name": "verified", "canvas": {"width": 32, "height": 32}, "fps": 6, "duration": 1,
             "output": {"dir": "out"}, "layers": [{"effect": "test-probe", "params": {"verifyLog": "log.txt"}}]}
            """, to: "job.json")
        let job = folder.url.appendingPathComponent("job.json").path
        let words = command.map { $0 == "JOB" ? job : $0 } + Self.plugins
        let result = CLI.run(words)
        #expect(result.status == 0, "\(command): \(result.stderr)")
        let log = (try? String(contentsOf: folder.url.appendingPathComponent("log.txt"), encoding: .utf8)) ?? ""
        return log.split(separator: "\n").count
    }

    /// With `--isolate` the planning worker verifies and the frame workers do not; in its sandbox the probe could
    /// not write its log, so the render is counted with `--sandbox off` (the same workers, unsandboxed).
    @Test(
        "validate, render at -j 2, render --isolate -j 2 (its planning and two frame workers) and each shard verify once",
        arguments: [
            ["validate", "JOB"], ["render", "JOB", "-j", "2", "--progress", "none"],
            ["render", "JOB", "--isolate", "--sandbox", "off", "-j", "2", "--progress", "none"],
            ["render", "JOB", "--shard", "1/2", "--progress", "none"],
        ])
    func once(_ command: [String]) throws {
        #expect(try Self.verifications(command) == 1)
    }
}
