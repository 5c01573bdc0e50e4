import Foundation
import Testing

/// `renderfarm submit --slurm` against a real Slurm cluster. Runs only with RENDERFARM_SLURM=1 and
/// SLURM_CONF pointing at a cluster: `make slurm-test` starts a one-node cluster on loopback
/// (Tests/Slurm/local-cluster.sh), runs this suite and stops the cluster again.
@Suite(
    "Slurm integration", .serialized,
    .enabled(if: ProcessInfo.processInfo.environment["RENDERFARM_SLURM"] == "1", "needs make slurm-test (a one-node cluster)"))
struct SlurmIntegrationTests {
    @Test(
        "3 array tasks and the merge job give the same frames and manifest as a local render",
        .timeLimit(.minutes(5)))
    func threeTasks() throws {
        let folder = try TemporaryFolder()
        let out = folder.url.appendingPathComponent("cluster")
        let submit = try Binary.run([
            "submit", "jobs/live-hearts.json", "--slurm", "--tasks", "3", "--max-running", "3",
            "--out", out.path, "--wait",
        ])
        #expect(submit.status == 0, "\(submit.stdout)\n\(submit.stderr)")
        #expect(submit.stdout.contains("submitted 3 render tasks as array job"))
        #expect(submit.stdout.contains("live-hearts: complete, 480 frames verified (3 journals)"), "\(submit.stdout)")
        #expect(submit.stderr.contains("COMPLETED"), "the merge job ran: \(submit.stderr)")
        let logs = try FileManager.default.contentsOfDirectory(atPath: out.appendingPathComponent("slurm").path)
        #expect(logs.filter { $0.hasPrefix("render-") && $0.hasSuffix(".log") }.count == 3, "\(logs)")
        #expect(logs.contains { $0.hasPrefix("merge-") && $0.hasSuffix(".log") }, "\(logs)")
        let prepareLog = try #require(logs.first { $0.hasPrefix("prepare-") && $0.hasSuffix(".log") }, "\(logs)")
        let prepared = try String(
            contentsOf: out.appendingPathComponent("slurm").appendingPathComponent(prepareLog), encoding: .utf8)
        #expect(prepared.contains("prepared: ") && prepared.contains("up to frame 479"), "\(prepared)")

        let local = try TemporaryFolder()
        let render = try Binary.run(["render", "jobs/live-hearts.json", "--out", local.path, "--progress", "none"])
        try #require(render.status == 0, "\(render.stderr)")
        #expect(try frameChecksums(out) == frameChecksums(local))
        let merged = try Manifest(folder: out)
        let reference = try Manifest(folder: local.url)
        #expect(merged.complete)
        #expect(merged.frameCount == 480)
        #expect(merged.frames.map(\.sha256) == reference.frames.map(\.sha256))
        #expect(merged.frames.map(\.file) == reference.frames.map(\.file))
    }

    @Test(
        "a failing task: merge reports exactly its frames; a second submit renders only those",
        .timeLimit(.minutes(5)))
    func failingTask() throws {
        let folder = try TemporaryFolder()
        let marker = try folder.write("", to: "failing")
        let job = try folder.write(FaultJob.json(failFrames: [12, 15, 16], marker: marker), to: "faults.json")
        let out = folder.url.appendingPathComponent("cluster")
        let arguments = [
            "submit", job, "--slurm", "--tasks", "3", "--out", out.path, "--wait",
            "--plugin-path", Binary.testPluginDirectory,
        ]

        let first = try Binary.run(arguments)
        #expect(first.status == 1, "\(first.stdout)\n\(first.stderr)")
        #expect(first.stderr.contains("render task") && first.stderr.contains("_1: FAILED"), "\(first.stderr)")
        #expect(first.stderr.contains("3 frames missing, failed or corrupt: 12,15-16"), "\(first.stderr)")
        let merge = try Binary.run(["merge", out.path])
        #expect(merge.status == 1)
        #expect(merge.stderr.contains(": 12,15-16\n"), "\(merge.stderr)")
        #expect(try Manifest(folder: out).missing == "12,15-16")
        let before = try journalCounts(out)
        #expect(before == [0: 10, 1: 10, 2: 10])

        try FileManager.default.removeItem(atPath: marker)
        let second = try Binary.run(arguments)
        #expect(second.status == 0, "\(second.stdout)\n\(second.stderr)")
        #expect(second.stdout.contains("faults: complete, 30 frames verified"), "\(second.stdout)")
        // Only the three missing frames were rendered again, all by task 1.
        #expect(try journalCounts(out) == [0: 10, 1: 13, 2: 10])
        let logs = out.appendingPathComponent("slurm")
        let taskLogs = try FileManager.default.contentsOfDirectory(atPath: logs.path).filter { $0.hasPrefix("render-") }
        let texts = try taskLogs.map { try String(contentsOf: logs.appendingPathComponent($0), encoding: .utf8) }
        #expect(texts.contains { $0.contains("shard 1/3: 3 frames rendered, 7 already done") }, "\(texts)")
        #expect(texts.filter { $0.contains("0 frames rendered, 10 already done") }.count == 2, "\(texts)")

        let local = try TemporaryFolder()
        try Binary.run([
            "render", job, "--out", local.path, "--progress", "none",
            "--plugin-path", Binary.testPluginDirectory,
        ])
        #expect(try frameChecksums(out) == frameChecksums(local))
    }

    @Test(
        "a variants job: 3 array tasks split the whole batch, and the merge job merges every variant",
        .timeLimit(.minutes(5)))
    func variants() throws {
        let folder = try TemporaryFolder()
        let out = folder.url.appendingPathComponent("cluster")
        let submit = try Binary.run([
            "submit", "jobs/streamer-badges.json", "--slurm", "--tasks", "3", "--out", out.path, "--wait",
        ])
        #expect(submit.status == 0, "\(submit.stdout)\n\(submit.stderr)")
        let local = try TemporaryFolder()
        let render = try Binary.run(["render", "jobs/streamer-badges.json", "--out", local.path, "--progress", "none"])
        try #require(render.status == 0, "\(render.stderr)")
        let expected = try VariantTests.frames(under: local.url)
        #expect(expected.count == 8 * 60)
        #expect(try VariantTests.frames(under: out).filter { !$0.key.hasPrefix("slurm/") } == expected)
        let folders = ExampleJobsTests.renderFolders(out)
        #expect(folders.count == 8)
        for variant in folders {
            let manifest = try Manifest(folder: variant)
            #expect(manifest.complete, "\(variant.path)")
        }
    }

    @Test(
        "a long physics job: the prepare job leaves checkpoints, and 3 tasks after it write a local render's bytes",
        .timeLimit(.minutes(5)))
    func physicsCheckpoints() throws {
        let folder = try TemporaryFolder()
        let job = try PhysicsCacheTests.job(in: folder)
        let out = folder.url.appendingPathComponent("cluster")
        let frames = "7680-7799"
        let submit = try Binary.run([
            "submit", job, "--slurm", "--tasks", "3", "--out", out.path, "--frames", frames, "--wait",
        ])
        #expect(submit.status == 0, "\(submit.stdout)\n\(submit.stderr)")
        #expect(submit.stdout.contains("(after prepare job "), "\(submit.stdout)")
        let cache = out.appendingPathComponent("renderfarm.cache/physics-bounce")
        let checkpoints = try FileManager.default.contentsOfDirectory(atPath: cache.path).filter { !$0.hasPrefix(".") }
        #expect(checkpoints.count == 2, "\(checkpoints)")

        let local = try TemporaryFolder()
        let render = try Binary.run(["render", job, "--out", local.path, "--frames", frames, "--progress", "none"])
        try #require(render.status == 0, "\(render.stderr)")
        let expected = try frameChecksums(local)
        #expect(expected.count == 120)
        #expect(try frameChecksums(out) == expected)
    }

    /// Lines per shard journal: shard index → count.
    private func journalCounts(_ folder: URL) throws -> [Int: Int] {
        var counts: [Int: Int] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path)
        where name.hasPrefix("renderfarm.journal.shard-") {
            let index = Int(name.dropFirst("renderfarm.journal.shard-".count).prefix { $0.isNumber }) ?? -1
            counts[index] = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
                .split(separator: "\n").count
        }
        return counts
    }
}
