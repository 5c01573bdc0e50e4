import Foundation
import RenderFarm
import Testing

@testable import RenderFarmCLI

/// `renderfarm submit --slurm` without a cluster: the scripts it would submit, and its errors.
@Suite("Submit to Slurm (no cluster)")
struct SubmitTests {
    @Test("--dry-run prints an array job of shards and a merge job after it, with absolute paths")
    func dryRun() throws {
        let folder = try TemporaryFolder()
        let out = folder.url.appendingPathComponent("out")
        let result = try Binary.run([
            "submit", "jobs/live-hearts.json", "--slurm", "--tasks", "3", "--max-running", "2",
            "--partition", "render", "--time", "30:00", "--cpus-per-task", "2",
            "--out", out.path, "--frames", "0-59", "--dry-run",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let script = result.stdout
        let executable = URL(fileURLWithPath: Binary.executable).resolvingSymlinksInPath().path
        let job = Binary.packageRoot.appendingPathComponent("jobs/live-hearts.json").path
        for expected in [
            "#SBATCH --array=0-2%2", "#SBATCH --output=\(out.path)/slurm/render-%A_%a.log",
            "#SBATCH --partition=render", "#SBATCH --time=30:00", "#SBATCH --cpus-per-task=2",
            "--dependency=afterok:", "#SBATCH --kill-on-invalid-dep=yes",
            "exec \(executable) \\", "render \(job) --out \(out.path)", "--shard \"$SLURM_ARRAY_TASK_ID/3\"",
            "--frames 0-59", "--plugin-path ", "\(executable) merge \(out.path)",
        ] {
            #expect(script.contains(expected), "missing \(expected) in:\n\(script)")
        }
        #expect(!FileManager.default.fileExists(atPath: out.path), "a dry run writes nothing")
    }

    @Test("a relative --out becomes absolute in the scripts")
    func relativeOut() throws {
        let folder = try TemporaryFolder()
        let job = Binary.packageRoot.appendingPathComponent("jobs/burst.json").path
        let result = try Binary.run(["submit", job, "--slurm", "--out", "frames", "--dry-run"], in: folder.url)
        #expect(result.status == 0, "\(result.stderr)")
        let absolute = URL(fileURLWithPath: folder.path).resolvingSymlinksInPath().appendingPathComponent("frames").path
        #expect(result.stdout.contains("--out \(absolute)"), "\(result.stdout)")
        #expect(result.stdout.contains("#SBATCH --array=0-3\n"), "default: 4 tasks, no %M limit")
    }

    @Test("without sbatch on PATH, submit exits 69 with a clear message and writes nothing")
    func missingSbatch() throws {
        let folder = try TemporaryFolder()
        let out = folder.url.appendingPathComponent("out")
        let result = try Binary.run(
            ["submit", "jobs/live-hearts.json", "--slurm", "--out", out.path],
            environment: ["PATH": folder.path])
        #expect(result.status == 69)
        #expect(result.stderr.contains("sbatch not found: install Slurm (Debian: slurm-client)"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    @Test(
        "usage errors exit 64 (in process)",
        arguments: [
            ["submit", "jobs/live-hearts.json", "--dry-run"],
            ["submit", "jobs/live-hearts.json", "--slurm", "--tasks", "0", "--dry-run"],
            ["submit", "jobs/live-hearts.json", "--slurm", "--partition", "a b", "--dry-run"],
            ["submit", "jobs/live-hearts.json", "jobs/burst.json", "--slurm", "--dry-run"],
        ])
    func usage(arguments: [String]) {
        let result = CLI.run(arguments.map { $0.hasPrefix("jobs/") ? CLI.repositoryFile($0) : $0 })
        #expect(result.status == 64, "\(arguments): \(result.stderr)")
        #expect(result.stdout.isEmpty, "a refused submission prints no script")
    }

    @Test("an invalid job is refused before anything is submitted (exit 65)")
    func invalidJob() throws {
        let folder = try TemporaryFolder()
        let job = try folder.write(
            "{\"duration\": 1, \"layers\": [{\"effect\": \"floating-heart\", "
                + "\"params\": {\"rate\": 500}}]}", to: "bad.json")
        let result = try Binary.run(["submit", job, "--slurm", "--dry-run"])
        #expect(result.status == 65, "\(result.stderr)")
    }

    @Test("submit --help lists its options (in process)")
    func help() {
        let result = CLI.run(["submit", "--help"])
        #expect(result.status == 0)
        for option in [
            "--slurm", "--tasks", "--max-running", "--partition", "--time", "--cpus-per-task", "--dry-run",
            "--wait", "--out", "--frames", "-j",
        ] {
            #expect(result.stdout.contains(option), "missing \(option)")
        }
    }

    @Test("the logs submit names are the #SBATCH --output patterns with Slurm's placeholders filled in")
    func logNames() throws {
        let commands = ClusterCommandLines(
            jobFiles: ["/shared/job.json"], output: "/shared/out", jobFolders: ["/shared/out"], pluginPath: [])
        let scripts = try SlurmScripts(
            commands.request(
                executable: "/opt/renderfarm", scriptFolder: "/shared/out/slurm", name: "job", tasks: 2))
        #expect(scripts.render.contains("#SBATCH --output=/shared/out/slurm/render-%A_%a.log"))
        #expect(scripts.renderLog(array: "41", task: "1") == "/shared/out/slurm/render-41_1.log")
        #expect(scripts.merge.contains("#SBATCH --output=/shared/out/slurm/merge-%j.log"))
        #expect(scripts.mergeLog(job: "42") == "/shared/out/slurm/merge-42.log")
    }

    @Test("squeue's states: which end a job, and their names kept for messages")
    func jobStates() {
        for name in ["PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "REQUEUED", "SUSPENDED"] {
            #expect(!SlurmJobState(name).isFinal, "\(name)")
            #expect(SlurmJobState(name).description == name)
        }
        for name in ["COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY"] {
            #expect(SlurmJobState(name).isFinal, "\(name)")
            #expect(SlurmJobState(name).description == name)
        }
        #expect(SlurmJobState("COMPLETED") == .completed && SlurmJobState("FAILED") != .completed)
    }
}
