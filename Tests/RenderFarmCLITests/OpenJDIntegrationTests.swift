import Foundation
import Testing

/// `renderfarm submit --openjd` run for real by the Open Job Description reference runtime, and `--kubernetes`
/// checked against the Kubernetes schemas. Runs only with RENDERFARM_OPENJD_VENV naming a virtual environment
/// that has `openjd-cli` and `kubernetes-validate` (PyPI): `make openjd-test` makes it and runs this suite.
@Suite(
    "Open Job Description and Kubernetes", .serialized,
    .enabled(if: ProcessInfo.processInfo.environment["RENDERFARM_OPENJD_VENV"] != nil, "needs make openjd-test"))
struct OpenJDIntegrationTests {
    static var venv: String { ProcessInfo.processInfo.environment["RENDERFARM_OPENJD_VENV"] ?? "" }
    static var openjd: String { venv + "/bin/openjd" }

    /// Writes the bundle of `arguments` (after `submit`) and checks and runs it (`checkAndRun`); returns the
    /// template and `openjd run`'s output.
    static func runBundle(_ arguments: [String], in folder: TemporaryFolder) throws -> (template: String, log: String) {
        let bundle = folder.url.appendingPathComponent("bundle").path
        let submit = try Binary.run(["submit"] + arguments + ["--openjd", bundle])
        try #require(submit.status == 0, "\(submit.stderr)")
        return (try String(contentsOfFile: bundle + "/template.yaml", encoding: .utf8), try checkAndRun(bundle))
    }

    /// Checks `bundle` with `openjd check` and runs its Merge step with every step before it, given the values
    /// of its parameter_values.yaml; returns `openjd run`'s output.
    static func checkAndRun(_ bundle: String) throws -> String {
        let template = bundle + "/template.yaml"
        let check = try Tools.run(openjd, ["check", template])
        #expect(check.status == 0, "\(check.text)\n\(check.stderr)")
        // parameter_values.yaml (Deadline Cloud's list of name/value) as the mapping `openjd run -p` reads.
        let parameters = (bundle as NSString).deletingLastPathComponent + "/parameters.json"
        let convert = try Tools.run(
            venv + "/bin/python3",
            [
                "-c",
                "import json, sys, yaml; d = yaml.safe_load(open(sys.argv[1])); "
                    + "json.dump({p['name']: p['value'] for p in d['parameterValues']}, open(sys.argv[2], 'w'))",
                bundle + "/parameter_values.yaml", parameters,
            ])
        try #require(convert.status == 0, "\(convert.stderr)")
        let run = try Tools.run(
            openjd, ["run", template, "--step", "Merge", "--run-dependencies", "-p", "file://" + parameters])
        #expect(run.status == 0, "\(run.text)\n\(run.stderr)")
        return run.text + run.stderr
    }

    @Test("openjd run of a plain job's bundle: Prepare, 3 Render tasks and Merge give a local render's frames")
    func plainJob() throws {
        let folder = try TemporaryFolder()
        let out = folder.url.appendingPathComponent("openjd")
        let (template, log) = try Self.runBundle(
            ["jobs/live-hearts.json", "--tasks", "3", "-j", "2", "--frames", "0-89", "--out", out.path], in: folder)
        #expect(template.contains("- name: \"Prepare\"") && template.contains("range: \"0-2\""), "\(template)")
        #expect(template.contains("name: \"amount.worker.vcpu\"\n          min: 2"), "\(template)")
        #expect(log.contains("Running step 'Prepare'") && log.contains("Running step 'Merge'"), "\(log)")
        #expect(log.contains("openjd_progress: 100.0") && log.contains("openjd_status: "), "\(log)")
        #expect(log.contains("live-hearts: complete, 90 frames verified (3 journals)"), "\(log)")

        let local = try TemporaryFolder()
        let render = try Binary.run(
            ["render", "jobs/live-hearts.json", "--frames", "0-89", "--out", local.path, "--progress", "none"])
        try #require(render.status == 0, "\(render.stderr)")
        let expected = try frameChecksums(local)
        #expect(expected.count == 90)
        #expect(try frameChecksums(out) == expected)
        let merged = try Manifest(folder: out)
        #expect(merged.complete)
        #expect(merged.frames.map(\.sha256) == (try Manifest(folder: local.url)).frames.map(\.sha256))
    }

    @Test("openjd run of a variants job's bundle: the 3 tasks split the whole batch and Merge merges every variant")
    func variantsJob() throws {
        let folder = try TemporaryFolder()
        let out = folder.url.appendingPathComponent("openjd")
        let (_, log) = try Self.runBundle(
            ["jobs/streamer-badges.json", "--tasks", "3", "-j", "2", "--out", out.path], in: folder)
        #expect(log.contains("Session ended successfully"), "\(log)")
        let local = try TemporaryFolder()
        let render = try Binary.run(["render", "jobs/streamer-badges.json", "--out", local.path, "--progress", "none"])
        try #require(render.status == 0, "\(render.stderr)")
        let expected = try VariantTests.frames(under: local.url)
        #expect(expected.count == 8 * 60)
        #expect(try VariantTests.frames(under: out) == expected)
        let folders = ExampleJobsTests.renderFolders(out)
        #expect(folders.count == 8)
        for variant in folders { #expect(try Manifest(folder: variant).complete, "\(variant.path)") }
    }

    @Test("--no-prepare: a bundle without the Prepare step, whose Render step starts at once, gives the same frames")
    func noPrepare() throws {
        let folder = try TemporaryFolder()
        let out = folder.url.appendingPathComponent("openjd")
        let (template, log) = try Self.runBundle(
            ["jobs/burst.json", "--tasks", "2", "--no-prepare", "--out", out.path], in: folder)
        #expect(!template.contains("Prepare") && !template.contains("dependsOn: \"Prepare\""), "\(template)")
        #expect(!log.contains("Running step 'Prepare'") && log.contains("Running step 'Render'"), "\(log)")
        let local = try TemporaryFolder()
        let render = try Binary.run(["render", "jobs/burst.json", "--out", local.path, "--progress", "none"])
        try #require(render.status == 0, "\(render.stderr)")
        let expected = try frameChecksums(local)
        #expect(!expected.isEmpty)
        #expect(try frameChecksums(out) == expected)
        #expect(try Manifest(folder: out).complete)
    }

    @Test("hostile paths: PyYAML reads every value back unchanged, and openjd runs the bundle to a local render's frames")
    func hostilePaths() throws {
        let folder = try TemporaryFolder()
        let hostile = "a \"b\" 'c' #d: e - [f] {g} & *h ! % @ ` \\ $(x) ü 💜 \u{85} \t"
        let source = try String(contentsOfFile: CLI.repositoryFile("jobs/burst.json"), encoding: .utf8)
        let job = try folder.write(source, to: "\(hostile)/job.json")
        let out = folder.url.appendingPathComponent("out \(hostile)").path
        let bundle = folder.url.appendingPathComponent("bundle").path
        let submit = try Binary.run(["submit", job, "--openjd", bundle, "--out", out, "--frames", "0-3"])
        try #require(submit.status == 0, "\(submit.stderr)")
        let log = try Self.checkAndRun(bundle)
        #expect(log.contains("burst: complete, 4 frames verified"), "\(log)")
        let local = try TemporaryFolder()
        let render = try Binary.run(["render", job, "--frames", "0-3", "--out", local.path, "--progress", "none"])
        try #require(render.status == 0, "\(render.stderr)")
        #expect(try frameChecksums(URL(fileURLWithPath: out)) == frameChecksums(local))
        let read = try Tools.run(
            Self.venv + "/bin/python3",
            [
                "-c",
                "import json, sys, yaml; print(json.dumps([yaml.safe_load(open(sys.argv[1] + '/' + n)) "
                    + "for n in ('template.yaml', 'parameter_values.yaml', 'asset_references.yaml')]))",
                bundle,
            ])
        try #require(read.status == 0, "\(read.stderr)")
        let documents = try #require(
            try JSONSerialization.jsonObject(with: read.stdout) as? [[String: Any]])
        let values = (documents[1]["parameterValues"] as? [[String: String]]) ?? []
        #expect(values.map { $0["value"] ?? "" } == [job, out])
        let inputs = ((documents[2]["assetReferences"] as? [String: Any])?["inputs"] as? [String: [String]]) ?? [:]
        #expect(inputs["filenames"] == [job])
        let steps = (documents[0]["steps"] as? [[String: Any]]) ?? []
        let renderStep: [String: Any] = steps.first { $0["name"] as? String == "Render" } ?? [:]
        let script = renderStep["script"] as? [String: Any] ?? [:]
        let actions = script["actions"] as? [String: Any] ?? [:]
        let onRun = actions["onRun"] as? [String: Any] ?? [:]
        let arguments = onRun["args"] as? [String] ?? []
        #expect(arguments.prefix(4) == ["render", "{{Param.JobFile}}", "--out", "{{Param.OutputDir}}"], "\(arguments)")
    }

    @Test("a value holding }} is refused before openjd check would reject it; single braces pass openjd check")
    func closingBraces() throws {
        let folder = try TemporaryFolder()
        let out = folder.url.appendingPathComponent("out").path
        for (name, refused) in [("plugins }} here", true), ("plugins {a} }b{ } }", false)] {
            let plugins = folder.url.appendingPathComponent(name).path
            try FileManager.default.createDirectory(atPath: plugins, withIntermediateDirectories: true)
            let bundle = folder.url.appendingPathComponent("bundle \(name)").path
            let submit = try Binary.run([
                "submit", "jobs/burst.json", "--openjd", bundle, "--out", out, "--plugin-path", plugins,
            ])
            guard !refused else {
                #expect(submit.status == 64 && submit.stderr.contains("holds \"}}\""), "\(submit.stderr)")
                #expect(!FileManager.default.fileExists(atPath: bundle))
                continue
            }
            try #require(submit.status == 0, "\(submit.stderr)")
            let check = try Tools.run(Self.openjd, ["check", bundle + "/template.yaml"])
            #expect(check.status == 0, "\(check.text)\n\(check.stderr)")
        }
    }

    @Test("the Kubernetes Jobs validate against the Kubernetes schemas, and a broken one does not")
    func kubernetesManifests() throws {
        let folder = try TemporaryFolder()
        let source = try String(contentsOfFile: CLI.repositoryFile("jobs/live-hearts.json"), encoding: .utf8)
        let job = try folder.write(source, to: "jobs/live-hearts.json")
        let manifests = folder.url.appendingPathComponent("k8s")
        let submit = try Binary.run([
            "submit", job, "--kubernetes", manifests.path, "--image", "registry.example/renderfarm:1", "--tasks", "4",
            "--max-running", "2", "-j", "2", "--out", folder.url.appendingPathComponent("out").path,
        ])
        try #require(submit.status == 0, "\(submit.stderr)")
        let files = ["prepare.yaml", "render.yaml", "merge.yaml"].map { manifests.appendingPathComponent($0).path }
        let validate = try Tools.run(Self.venv + "/bin/kubernetes-validate", ["--strict"] + files)
        #expect(validate.status == 0, "\(validate.text)\n\(validate.stderr)")
        #expect(validate.text.components(separatedBy: " passed for resource job/").count == 4, "\(validate.text)")
        let render = try String(contentsOfFile: files[1], encoding: .utf8)
        for expected in [
            "completionMode: \"Indexed\"", "completions: 4", "parallelism: 2", "\"$(RENDERFARM_SHARD)/4\"",
            "batch.kubernetes.io/job-completion-index", "claimName: \"renderfarm\"",
            "mountPath: \"\(folder.path)\"",
        ] {
            #expect(render.contains(expected), "missing \(expected) in:\n\(render)")
        }
        let syntax = try Tools.run("/bin/bash", ["-n", manifests.appendingPathComponent("submit.sh").path])
        #expect(syntax.status == 0, "\(syntax.stderr)")

        // The validator is no rubber stamp: a count written as a string fails it.
        let broken = try folder.write(
            render.replacingOccurrences(of: "completions: 4", with: "completions: \"four\""), to: "broken.yaml")
        let refused = try Tools.run(Self.venv + "/bin/kubernetes-validate", ["--strict", broken])
        #expect(refused.status != 0, "\(refused.text)")
    }
}
