import Testing

@testable import RenderFarm
@testable import RenderFarmOutput

@Suite("Slurm scripts")
struct SlurmScriptsTests {
    /// A request whose words are what `renderfarm submit` gives; the engine writes any words as given.
    static func request(tasks: Int = 3, maxRunning: Int? = 2, scriptFolder: String = "/shared/out/slurm")
        -> SlurmScripts.Request
    {
        let jobs = [
            "/shared/jobs/live hearts.json", "--out", "/shared/out", "--plugin-path", "/opt/renderfarm/lib/plugins",
        ]
        return SlurmScripts.Request(
            executable: "/opt/renderfarm/bin/renderfarm", scriptFolder: scriptFolder, name: "live-hearts",
            tasks: tasks, maxRunning: maxRunning, partition: "gpu", time: "1:00:00", cpusPerTask: 4,
            prepare: (["prepare"] + jobs).map(ScriptWord.value),
            render: (["render"] + jobs).map(ScriptWord.value) + [
                .value("--shard"), .taskShard, .value("-j"), .taskCPUs, .value("--progress"), .value("plain"),
            ],
            merge: [.value("merge"), .value("/shared/out")])
    }

    @Test("the render script is an array job whose task K renders shard K/N with per-task logs")
    func renderScript() throws {
        let scripts = try SlurmScripts(Self.request())
        let render = scripts.render
        #expect(render.hasPrefix("#!/bin/bash\n"))
        for line in [
            "#SBATCH --array=0-2%2", "#SBATCH --output=/shared/out/slurm/render-%A_%a.log",
            "#SBATCH --job-name=renderfarm-live-hearts", "#SBATCH --partition=gpu", "#SBATCH --time=1:00:00",
            "#SBATCH --cpus-per-task=4", "set -euo pipefail",
        ] {
            #expect(render.contains(line + "\n"), "missing \(line)")
        }
        #expect(render.contains("exec /opt/renderfarm/bin/renderfarm \\\n"))
        #expect(render.contains("render '/shared/jobs/live hearts.json' --out /shared/out"), "paths are shell-quoted")
        #expect(render.contains("--shard \"$SLURM_ARRAY_TASK_ID/3\""))
        #expect(render.contains("--plugin-path /opt/renderfarm/lib/plugins"))
        #expect(render.contains("-j \"${SLURM_CPUS_ON_NODE:-1}\""), "frames in flight follow the CPUs Slurm gave")
        #expect(render.split(separator: "\n").allSatisfy { $0.count <= 120 })
    }

    @Test("the merge job waits for every task, and is cancelled when one failed")
    func mergeScript() throws {
        let scripts = try SlurmScripts(Self.request())
        #expect(scripts.merge.contains("#SBATCH --kill-on-invalid-dep=yes\n"))
        #expect(scripts.merge.contains("#SBATCH --output=/shared/out/slurm/merge-%j.log\n"))
        #expect(scripts.merge.hasSuffix("exec /opt/renderfarm/bin/renderfarm merge /shared/out"))
        #expect(
            scripts.submit.contains(
                "sbatch --parsable --dependency=afterok:\"$array\" /shared/out/slurm/merge.sbatch"))
        #expect(scripts.mergePath == "/shared/out/slurm/merge.sbatch")
    }

    @Test("no %M without --max-running; the render words are written in order, each quoted")
    func options() throws {
        var request = Self.request(tasks: 8, maxRunning: nil)
        request.render += ["--shard-mode", "interleaved", "--frames", "0-99:2", "-j", "3", "a b"].map(ScriptWord.value)
        let render = try SlurmScripts(request).render
        #expect(render.contains("#SBATCH --array=0-7\n"))
        #expect(render.contains("--shard-mode interleaved"))
        #expect(render.contains("--frames 0-99:2"))
        #expect(render.contains("-j 3 'a b'"))
    }

    @Test("without prepare words there is no prepare job, and the array waits for none")
    func noPrepare() throws {
        var request = Self.request()
        request.prepare = nil
        let scripts = try SlurmScripts(request)
        #expect(scripts.prepare == nil)
        #expect(!scripts.render.contains("--kill-on-invalid-dep"))
        #expect(scripts.submit.contains("array=$(sbatch --parsable /shared/out/slurm/render.sbatch)\n"))
        #expect(!scripts.submit.contains("prepare"))
    }

    @Test("values that #SBATCH lines or Slurm cannot carry are refused")
    func refused() {
        #expect(throws: SlurmScriptError.unsafePath("/my out/slurm")) {
            try SlurmScripts(Self.request(scriptFolder: "/my out/slurm"))
        }
        #expect(throws: SlurmScriptError.unsafePath("/out%1/slurm")) {
            try SlurmScripts(Self.request(scriptFolder: "/out%1/slurm"))
        }
        var request = Self.request()
        request.partition = "gpu; rm -rf /"
        #expect(throws: SlurmScriptError.invalidValue(option: "--partition", value: "gpu; rm -rf /")) {
            try SlurmScripts(request)
        }
    }

    @Test(
        "shell quoting",
        arguments: [
            ("/plain/path-1.json", "/plain/path-1.json"), ("a b", "'a b'"), ("it's", "'it'\\''s'"), ("", "''"),
            ("$HOME", "'$HOME'"), ("a\nb", "$'a\\nb'"), ("it's\t\u{1B}", "$'it\\'s\\t\\x1B'"),
            ("\u{85}\\", "$'\\u0085\\\\'"),
        ])
    func quoting(text: String, quoted: String) {
        #expect(ShellWord.quoted(text) == quoted)
    }
}
