import Foundation
import RenderFarm
import Testing

@testable import RenderFarmCLI

/// `renderfarm submit` without a cluster: the Slurm scripts it would submit, the OpenJD bundle and Kubernetes Jobs
/// it would write, and its errors.
@Suite("Submit (no cluster)")
struct SubmitTests {
    @Test("--dry-run prints an array job of shards and a merge job after it, with absolute paths")
    func dryRun() throws {
        let folder = try TemporaryFolder()
        let out = folder.url.appendingPathComponent("out")
        let result = CLI.run([
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

    @Test("--openjd --dry-run prints a bundle of Prepare, a Render task per shard and Merge, and writes nothing")
    func openJDDryRun() throws {
        let folder = try TemporaryFolder()
        let out = folder.url.appendingPathComponent("out").path
        let bundle = folder.url.appendingPathComponent("bundle").path
        let result = CLI.run([
            "submit", "jobs/live-hearts.json", "--openjd", bundle, "--tasks", "3", "-j", "4", "--out", out,
            "--frames", "0-59", "--dry-run",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let job = Binary.packageRoot.appendingPathComponent("jobs/live-hearts.json").path
        for expected in [
            "# ---- \(bundle)/template.yaml\n", "# ---- \(bundle)/parameter_values.yaml\n",
            "# ---- \(bundle)/asset_references.yaml\n", "specificationVersion: \"jobtemplate-2023-09\"",
            "- name: \"Prepare\"", "- name: \"Render\"", "- name: \"Merge\"", "dependsOn: \"Render\"",
            "type: \"PATH\"\n    objectType: \"FILE\"\n    dataFlow: \"IN\"",
            "type: \"PATH\"\n    objectType: \"DIRECTORY\"\n    dataFlow: \"OUT\"",
            "range: \"0-2\"", "- \"{{Task.Param.Shard}}/3\"", "- \"openjd\"", "min: 4",
            "name: \"attr.worker.os.family\"", "value: \"\(job)\"", "value: \"\(out)\"",
            "#   deadline bundle submit \(bundle)",
            "--step Merge --run-dependencies -p JobFile=\(job) -p OutputDir=\(out)",
        ] {
            #expect(result.stdout.contains(expected), "missing \(expected) in:\n\(result.stdout)")
        }
        #expect(!FileManager.default.fileExists(atPath: bundle) && !FileManager.default.fileExists(atPath: out))
    }

    @Test("--kubernetes --dry-run prints an Indexed Job between the prepare and merge Jobs, and writes nothing")
    func kubernetesDryRun() throws {
        let folder = try TemporaryFolder()
        let job = try folder.write(
            try String(contentsOfFile: CLI.repositoryFile("jobs/burst.json"), encoding: .utf8), to: "jobs/burst.json")
        let manifests = folder.url.appendingPathComponent("k8s").path
        let result = CLI.run([
            "submit", job, "--kubernetes", manifests, "--image", "registry.example/renderfarm:2", "--tasks", "5",
            "--max-running", "2", "--volume-claim", "renders", "--out", folder.path + "/out", "--dry-run",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        for expected in [
            "# ---- \(manifests)/prepare.yaml\n", "# ---- \(manifests)/render.yaml\n",
            "# ---- \(manifests)/merge.yaml\n",
            "# ---- \(manifests)/submit.sh\n", "completionMode: \"Indexed\"", "completions: 5", "parallelism: 2",
            "- \"$(RENDERFARM_SHARD)/5\"", "image: \"registry.example/renderfarm:2\"", "claimName: \"renders\"",
            "mountPath: \"\(folder.path)\"", "kubectl apply -f render.yaml\nwait_for renderfarm-burst-render",
            "#   bash \(manifests)/submit.sh",
        ] {
            #expect(result.stdout.contains(expected), "missing \(expected) in:\n\(result.stdout)")
        }
        #expect(!FileManager.default.fileExists(atPath: manifests))
    }

    @Test("every Kubernetes Job runs as user 10001, not root, without privilege, on a read-only root with a /tmp")
    func kubernetesSecurityContext() throws {
        let folder = try TemporaryFolder()
        let job = try folder.write(
            try String(contentsOfFile: CLI.repositoryFile("jobs/burst.json"), encoding: .utf8), to: "jobs/burst.json")
        let manifests = folder.url.appendingPathComponent("k8s")
        let result = CLI.run([
            "submit", job, "--kubernetes", manifests.path, "--image", "registry.example/renderfarm:2", "--out",
            folder.path + "/out",
        ])
        try #require(result.status == 0, "\(result.stderr)")
        let pod = """
                  restartPolicy: "Never"
                  securityContext:
                    runAsNonRoot: true
                    runAsUser: 10001
                    runAsGroup: 10001
                    fsGroup: 10001
                    fsGroupChangePolicy: "OnRootMismatch"
                    seccompProfile:
                      type: "RuntimeDefault"
                  containers:
            """
        let container = """
                      securityContext:
                        allowPrivilegeEscalation: false
                        readOnlyRootFilesystem: true
                        capabilities:
                          drop:
                            - "ALL"
                      volumeMounts:
                        - name: "shared"
                          mountPath: "\(folder.path)"
                        - name: "tmp"
                          mountPath: "/tmp"
            """
        let scratch = """
                    - name: "tmp"
                      emptyDir: {}
            """
        for name in ["prepare.yaml", "render.yaml", "merge.yaml"] {
            let text = try String(contentsOf: manifests.appendingPathComponent(name), encoding: .utf8)
            for expected in [pod, container, scratch] {
                #expect(text.contains(expected), "\(name) lacks\n\(expected)\nin:\n\(text)")
            }
        }
    }

    @Test("--openjd writes the bundle; {{ or }} in a value, and Kubernetes paths without a shared folder, are refused")
    func writeAndRefuse() throws {
        let folder = try TemporaryFolder()
        let bundle = folder.url.appendingPathComponent("bundle").path
        let out = folder.url.appendingPathComponent("out").path
        let written = CLI.run(["submit", "jobs/burst.json", "--openjd", bundle, "--out", out, "--no-prepare"])
        #expect(written.status == 0, "\(written.stderr)")
        #expect(written.stdout.contains("wrote template.yaml, parameter_values.yaml, asset_references.yaml into"))
        let template = try String(contentsOfFile: bundle + "/template.yaml", encoding: .utf8)
        #expect(!template.contains("Prepare") && !template.contains("dependencies:\n      - dependsOn: \"Prepare\""))

        let braces = folder.url.appendingPathComponent("plugins {{Param.OutputDir}}").path
        try FileManager.default.createDirectory(atPath: braces, withIntermediateDirectories: true)
        let refused = CLI.run([
            "submit", "jobs/burst.json", "--openjd", bundle + "2", "--out", out, "--plugin-path", braces,
        ])
        #expect(refused.status == 64, "\(refused.stderr)")
        #expect(
            refused.stderr.contains("holds \"{{\", which an Open Job Description template reads"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: bundle + "2"))
        // A lone "}}" is refused the same way: `openjd check` rejects it (OpenJDIntegrationTests).
        let closing = folder.url.appendingPathComponent("plugins }}").path
        try FileManager.default.createDirectory(atPath: closing, withIntermediateDirectories: true)
        let closed = CLI.run([
            "submit", "jobs/burst.json", "--openjd", bundle + "3", "--out", out, "--plugin-path", closing,
        ])
        #expect(closed.status == 64, "\(closed.stderr)")
        #expect(
            closed.stderr.contains("holds \"}}\", which an Open Job Description template reads as the end of"),
            "\(closed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: bundle + "3"))

        // An output folder under another top-level folder than the repository's (which holds the job)
        // shares only / with it, wherever the repository lies.
        let top = Binary.packageRoot.pathComponents.dropFirst().first ?? ""
        let elsewhere = (top == "var" ? "/tmp" : "/var/tmp") + "/renderfarm-apart-\(UUID().uuidString)/out"
        let apart = CLI.run([
            "submit", "jobs/burst.json", "--kubernetes", folder.path + "/k8s", "--image", "i", "--out", elsewhere,
        ])
        #expect(apart.status == 64, "\(apart.stderr)")
        #expect(apart.stderr.contains("must lie in one folder that the volume claim holds"), "\(apart.stderr)")
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
        let result = CLI.run(
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
            ["submit", "jobs/live-hearts.json", "--slurm", "--sandbox", "off", "--dry-run"],
            ["submit", "jobs/live-hearts.json", "--slurm", "--isolate", "--sandbox", "loose", "--dry-run"],
        ])
    func usage(arguments: [String]) {
        let result = CLI.run(arguments.map { $0.hasPrefix("jobs/") ? CLI.repositoryFile($0) : $0 })
        #expect(result.status == 64, "\(arguments): \(result.stderr)")
        #expect(result.stdout.isEmpty, "a refused submission prints no script")
    }

    @Test("--isolate --sandbox MODE reaches each render task's command line, and the render's workers")
    func sandbox() throws {
        let out = try TemporaryFolder().url.appendingPathComponent("out").path
        let result = CLI.run([
            "submit", CLI.repositoryFile("jobs/live-hearts.json"), "--slurm", "--out", out, "--isolate",
            "--sandbox", "off", "--dry-run",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("--isolate --sandbox off"), "\(result.stdout)")
        // Without --sandbox, the tasks keep render's default (strict) and the option is not spelt.
        let plain = CLI.run([
            "submit", CLI.repositoryFile("jobs/live-hearts.json"), "--slurm", "--out", out, "--isolate", "--dry-run",
        ])
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(plain.stdout.contains("--isolate") && !plain.stdout.contains("--sandbox"), "\(plain.stdout)")
    }

    @Test("an invalid job is refused before anything is submitted (exit 65)")
    func invalidJob() throws {
        let folder = try TemporaryFolder()
        let job = try folder.write(
            "{\"duration\": 1, \"layers\": [{\"effect\": \"floating-heart\", "
                + "\"params\": {\"rate\": 500}}]}", to: "bad.json")
        let result = CLI.run(["submit", job, "--slurm", "--dry-run"])
        #expect(result.status == 65, "\(result.stderr)")
    }

    @Test("submit --help lists its options (in process)")
    func help() {
        let result = CLI.run(["submit", "--help"])
        #expect(result.status == 0)
        for option in [
            "--slurm", "--tasks", "--max-running", "--partition", "--time", "--cpus-per-task", "--dry-run",
            "--wait", "--out", "--frames", "-j", "--openjd", "--kubernetes", "--image", "--volume-claim",
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
