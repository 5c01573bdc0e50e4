import Foundation
import Testing

/// `render --shard K/N` and `merge`, with the real binary (no Slurm needed). That the merged shards of
/// every example job equal its plain render is checked in ExampleJobsTests.
@Suite("Shards and merge")
struct ShardTests {
    @Test("interleaved shards take every N-th frame and still add up to the plain render")
    func interleaved() throws {
        let out = try TemporaryFolder()
        let one = CLI.run([
            "render", "jobs/live-hearts.json", "--frames", "0-9", "--out", out.path,
            "--shard", "1/3", "--shard-mode", "interleaved", "--progress", "none",
        ])
        #expect(one.status == 0, "\(one.stderr)")
        #expect(try frameChecksums(out).keys.sorted() == ["frame_00001.png", "frame_00004.png", "frame_00007.png"])
        for index in [0, 2] {
            let shard = CLI.run([
                "render", "jobs/live-hearts.json", "--frames", "0-9", "--out", out.path,
                "--shard", "\(index)/3", "--shard-mode", "interleaved", "--progress", "none",
            ])
            #expect(shard.status == 0, "\(shard.stderr)")
        }
        let merge = CLI.run(["merge", out.path])
        #expect(merge.status == 0, "\(merge.stderr)")
        let plain = try TemporaryFolder()
        CLI.run([
            "render", "jobs/live-hearts.json", "--frames", "0-9", "--out", plain.path,
            "--progress", "none",
        ])
        #expect(try frameChecksums(out) == frameChecksums(plain))
    }

    @Test("--shard auto reads SLURM_ARRAY_TASK_ID/COUNT, or JOB_COMPLETION_INDEX with auto/N")
    func auto() throws {
        let slurm = try TemporaryFolder()
        let fromSlurm = CLI.run(
            [
                "render", "jobs/live-hearts.json", "--frames", "0-8", "--out", slurm.path, "--shard", "auto",
                "--progress", "none",
            ],
            environment: ["SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "3", "JOB_COMPLETION_INDEX": ""])
        #expect(fromSlurm.status == 0, "\(fromSlurm.stderr)")
        #expect(try frameChecksums(slurm).keys.sorted() == ["frame_00003.png", "frame_00004.png", "frame_00005.png"])

        let kubernetes = try TemporaryFolder()
        let fromIndex = CLI.run(
            [
                "render", "jobs/live-hearts.json", "--frames", "0-8", "--out", kubernetes.path, "--shard", "auto/3",
                "--progress", "none",
            ],
            environment: ["SLURM_ARRAY_TASK_ID": "", "SLURM_ARRAY_TASK_COUNT": "", "JOB_COMPLETION_INDEX": "2"])
        #expect(fromIndex.status == 0, "\(fromIndex.stderr)")
        #expect(
            try frameChecksums(kubernetes).keys.sorted()
                == ["frame_00006.png", "frame_00007.png", "frame_00008.png"])

        let without = CLI.run(
            ["render", "jobs/live-hearts.json", "--out", kubernetes.path, "--shard", "auto"],
            environment: ["SLURM_ARRAY_TASK_ID": "", "SLURM_ARRAY_TASK_COUNT": "", "JOB_COMPLETION_INDEX": ""])
        #expect(without.status == 64)
        #expect(without.stderr.contains("SLURM_ARRAY_TASK_ID"))
    }

    @Test(
        "invalid --shard values are usage errors (exit 64)",
        arguments: ["3/3", "-1/2", "1/0", "abc", "1/2/3", "1", "auto/0", "x/4"])
    func invalidShard(value: String) throws {
        let out = try TemporaryFolder()
        let result = CLI.run(
            ["render", "jobs/live-hearts.json", "--out", out.path, "--shard", value],
            environment: ["JOB_COMPLETION_INDEX": "0"])
        #expect(result.status == 64, "\(value): \(result.stderr)")
        #expect(result.stderr.contains("--shard"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).isEmpty, "no output on a usage error")
    }

    @Test("merge lists missing and corrupt frames compressed, exits 1, and completes after the shard runs again")
    func mergeReportsMissingFrames() throws {
        let out = try TemporaryFolder()
        for index in 0..<2 {
            CLI.run([
                "render", "jobs/live-hearts.json", "--frames", "0-19", "--out", out.path,
                "--shard", "\(index)/2", "--progress", "none",
            ])
        }
        for name in ["frame_00003.png", "frame_00007.png", "frame_00009.png"] {
            try FileManager.default.removeItem(at: out.url.appendingPathComponent(name))
        }
        let corrupt = out.url.appendingPathComponent("frame_00008.png")
        var bytes = try Data(contentsOf: corrupt)
        bytes[bytes.count - 1] ^= 0xFF
        try bytes.write(to: corrupt)

        let merge = CLI.run(["merge", out.path])
        #expect(merge.status == 1)
        #expect(merge.stderr.contains("4 frames missing, failed or corrupt: 3,7-9"), "\(merge.stderr)")
        let manifest = try Manifest(folder: out.url)
        #expect(!manifest.complete)
        #expect(manifest.missing == "3,7-9")

        let again = CLI.run([
            "render", "jobs/live-hearts.json", "--frames", "0-19", "--out", out.path,
            "--shard", "0/2", "--progress", "none",
        ])
        #expect(again.stdout.contains("4 frames rendered, 6 already done"), "\(again.stdout)")
        #expect(
            !FileManager.default.fileExists(atPath: out.url.appendingPathComponent("manifest.json").path),
            "a shard that changes frames removes the stale manifest")
        let complete = CLI.run(["merge", out.path])
        #expect(complete.status == 0, "\(complete.stderr)")
        #expect(try Manifest(folder: out.url).complete)
    }

    @Test("merge exits 66 for a missing or never-rendered folder and 65 for a damaged job record")
    func mergeErrors() throws {
        let missing = CLI.run(["merge", "/nonexistent/renderfarm-output"])
        #expect(missing.status == 66)
        let empty = try TemporaryFolder()
        let nothing = CLI.run(["merge", empty.path])
        #expect(nothing.status == 66)
        #expect(nothing.stderr.contains("renderfarm.job.json"))
        try empty.write("{\"format\": \"renderfarm.job\", \"version\": 1}", to: "renderfarm.job.json")
        try empty.write("", to: "renderfarm.journal.jsonl")
        let damaged = CLI.run(["merge", empty.path])
        #expect(damaged.status == 65, "\(damaged.stderr)")
        let help = CLI.run(["merge", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("USAGE: renderfarm merge OUTDIR"))
    }

    @Test("a shard whose frames fail: merge names exactly them; running the shard again renders only them")
    func failingShard() throws {
        let folder = try TemporaryFolder()
        let marker = try folder.write("", to: "failing")
        let job = try folder.write(FaultJob.json(failFrames: [12, 15, 16], marker: marker), to: "faults.json")
        let out = folder.url.appendingPathComponent("out")
        let render = { (index: Int) in
            CLI.run([
                "render", job, "--out", out.path, "--shard", "\(index)/3", "--progress", "none",
                "--plugin-path", Binary.testPluginDirectory,
            ])
        }
        #expect(render(0).status == 0)
        #expect(render(1).status == 1)
        #expect(render(2).status == 0)
        let merge = CLI.run(["merge", out.path])
        #expect(merge.status == 1)
        #expect(merge.stderr.contains("3 frames missing, failed or corrupt: 12,15-16"), "\(merge.stderr)")
        #expect(merge.stderr.contains("injected failure on frame 12"))

        try FileManager.default.removeItem(atPath: marker)
        let again = render(1)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.contains("3 frames rendered, 7 already done"), "\(again.stdout)")
        #expect(CLI.run(["merge", out.path]).status == 0)
    }
}

/// A job for the fault-injecting test plugin: 30 frames of 64×64, no retries.
enum FaultJob {
    static func json(failFrames: [Int], marker: String) -> String {
        """
        { "name": "faults", "fps": 30, "duration": 1, "retries": 0,
          "canvas": { "width": 64, "height": 64, "scale": 1 },
          "layers": [ { "effect": "test-faults",
            "params": { "failFrames": \(failFrames), "failWhileFileExists": "\(marker)" } } ] }
        """
    }
}

/// The sha256 of every PNG in `folder`, by file name.
func frameChecksums(_ folder: URL) throws -> [String: String] {
    var sums: [String: String] = [:]
    for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name.hasSuffix(".png") {
        sums[name] = sha256(try Data(contentsOf: folder.appendingPathComponent(name)))
    }
    return sums
}

func frameChecksums(_ folder: TemporaryFolder) throws -> [String: String] { try frameChecksums(folder.url) }

/// Lines in all journals of `folder`.
func journalLines(_ folder: TemporaryFolder) throws -> Int {
    try FileManager.default.contentsOfDirectory(atPath: folder.path)
        .filter { $0.hasPrefix("renderfarm.journal") }
        .map { try String(contentsOf: folder.url.appendingPathComponent($0), encoding: .utf8) }
        .reduce(0) { $0 + $1.split(separator: "\n").count }
}
