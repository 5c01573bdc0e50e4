import Foundation
import RenderFarm
import Testing

@testable import RenderFarmCLI
@testable import RenderFarmOutput

/// Generated cluster scripts carry user text only through `ShellWord.quoted`: a job name or path that holds
/// line breaks, quotes, `$()`, backticks or `#SBATCH` adds no line, directive or command.
@Suite("Scripts never carry user data raw")
struct ScriptQuotingTests {
    /// Text that would add a directive, a command or a line if a script carried it raw.
    static let hostile = "x\n#SBATCH --uid=0\necho pwned $(touch pwned) `touch pwned` 'q' \"d\" \\ \t\r\u{1B}[31m\u{85}"

    /// The values a request carries, by the placeholder a plain request uses for each.
    static func values(_ folder: String) -> [(placeholder: String, value: String)] {
        [
            ("/P/EXE", folder + "/bin \(hostile)/renderfarm"), ("/P/JOB.json", "/jobs/\(hostile).json"),
            ("/P/OUT", "/out/\(hostile)"), ("/P/ROOT", "/root/\(hostile)"), ("FRAMES", "0-9 \(hostile)"),
            ("/P/PLUGINS", "/plugins/\(hostile)"), ("VARIANTS", "alice,\(hostile)"), ("/P/FOLDER", "/f/\(hostile)"),
        ]
    }

    static func request(_ values: [String: String], name: String) -> SlurmScripts.Request {
        let value = { (key: String) in values[key] ?? key }
        let commands = ClusterCommandLines(
            jobFiles: [value("/P/JOB.json")], output: value("/P/OUT"), outputRoot: value("/P/ROOT"),
            jobFolders: [value("/P/FOLDER")], pluginPath: [value("/P/PLUGINS")], frames: value("FRAMES"),
            variants: value("VARIANTS"))
        return commands.request(
            executable: value("/P/EXE"), scriptFolder: "/shared/out/slurm", name: name, tasks: 3)
    }

    /// Lines with their `\`-continuations joined: one command per line.
    static func logicalLines(_ script: String) -> [String] {
        script.replacingOccurrences(of: " \\\n    ", with: " ").components(separatedBy: "\n")
    }

    @Test("a hostile name and hostile paths change only the words that carry them, and bash reads each script")
    func onlyQuotedWordsChange() throws {
        let folder = try TemporaryFolder()
        let values = Self.values(folder.path)
        // The plain request: placeholders for every value, and the name the comments show.
        let plain = try SlurmScripts(Self.request([:], name: ShellWord.plain(Self.hostile)))
        let hostile = try SlurmScripts(
            Self.request(
                Dictionary(uniqueKeysWithValues: values.map { ($0.placeholder, $0.value) }), name: Self.hostile))
        let pairs = [
            ("prepare", plain.prepare ?? "", hostile.prepare ?? ""), ("render", plain.render, hostile.render),
            ("merge", plain.merge, hostile.merge), ("submit", plain.submit, hostile.submit),
        ]
        for (label, plainScript, hostileScript) in pairs {
            #expect(!plainScript.isEmpty)
            let expected = Self.logicalLines(plainScript).map { line in
                values.reduce(line) { $0.replacingOccurrences(of: $1.placeholder, with: ShellWord.quoted($1.value)) }
            }
            #expect(Self.logicalLines(hostileScript) == expected, "\(label):\n\(hostileScript)")
            #expect(!hostileScript.contains("\n#SBATCH --uid"), "\(label)")
            #expect(!hostileScript.unicodeScalars.contains { $0 != "\n" && $0.properties.generalCategory == .control })
            let file = try folder.write(hostileScript, to: "\(label).sh")
            let check = try Tools.run("/bin/bash", ["-n", file])
            #expect(check.status == 0, "\(label): \(check.stderr)")
        }
    }

    @Test("run by bash, the scripts hand every value to renderfarm unchanged and run nothing else")
    func valuesArriveIntact() throws {
        let folder = try TemporaryFolder()
        let values = Dictionary(uniqueKeysWithValues: Self.values(folder.path).map { ($0.placeholder, $0.value) })
        let executable = try #require(values["/P/EXE"])
        // A stand-in for renderfarm that records its arguments, NUL-separated.
        try folder.write(
            "#!/bin/sh\nprintf '%s\\0' \"$@\" > \"$ARGS_FILE\"\n",
            to: String(executable.dropFirst(folder.path.count + 1)))
        #expect(chmod(executable, 0o755) == 0)
        let scripts = try SlurmScripts(Self.request(values, name: Self.hostile))
        let value = { (key: String) in values[key] ?? "" }
        let shared = [
            value("/P/JOB.json"), "--out", value("/P/OUT"), "--output-root", value("/P/ROOT"), "--frames",
            value("FRAMES"), "--plugin-path", value("/P/PLUGINS"), "--variants", value("VARIANTS"),
        ]
        let cases = [
            (scripts.render, ["render"] + shared + ["--shard", "1/3", "-j", "1", "--progress", "plain"]),
            (scripts.prepare ?? "", ["prepare"] + shared), (scripts.merge, ["merge", value("/P/FOLDER")]),
        ]
        for (script, expected) in cases {
            let file = try folder.write(script, to: "script.sh")
            let argsFile = folder.url.appendingPathComponent("args").path
            let run = try Tools.run(
                "/usr/bin/env",
                ["ARGS_FILE=\(argsFile)", "SLURM_ARRAY_TASK_ID=1", "SLURM_CPUS_ON_NODE=1", "/bin/bash", file],
                in: folder.url)
            #expect(run.status == 0, "\(run.stderr)\n\(script)")
            let recorded = try String(contentsOfFile: argsFile, encoding: .utf8)
            #expect(
                recorded.split(separator: "\0", omittingEmptySubsequences: false).dropLast().map(String.init)
                    == expected)
            #expect(!FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("pwned").path))
        }
    }

    @Test("submit --dry-run: a job named with quotes, $(), backticks and #SBATCH gives scripts bash reads")
    func submitDryRun() throws {
        let folder = try TemporaryFolder()
        let name = "a'b\"c $(touch pwned) `touch pwned` #SBATCH --uid=0"
        let source = try String(contentsOfFile: CLI.repositoryFile("jobs/burst.json"), encoding: .utf8)
        var job = try #require(JSONSerialization.jsonObject(with: Data(source.utf8)) as? [String: Any])
        job["name"] = name
        job["output"] = nil
        let data = try JSONSerialization.data(withJSONObject: job)
        let path = try folder.write(
            String(decoding: data, as: UTF8.self), to: "jobs $(touch pwned) `x` 'q'\n#SBATCH --uid=0/job.json")
        let out = folder.url.appendingPathComponent("out").path
        let result = try Binary.run(["submit", path, "--slurm", "--out", out, "--dry-run"], in: folder.url)
        #expect(result.status == 0, "\(result.stderr)")
        let scripts = result.stdout.components(separatedBy: "# ---- ").dropFirst()
        #expect(scripts.count == 4, "\(result.stdout)")
        for (index, text) in scripts.enumerated() {
            let body = text.components(separatedBy: "\n").dropFirst().joined(separator: "\n")
            let file = try folder.write(body, to: "script-\(index).sh")
            let check = try Tools.run("/bin/bash", ["-n", file])
            #expect(check.status == 0, "\(check.stderr)\n\(body)")
            let directives = body.components(separatedBy: "\n").filter { $0.hasPrefix("#SBATCH") }
            #expect(!directives.contains { $0.hasPrefix("#SBATCH --uid") }, "\(body)")
            for comment in body.components(separatedBy: "\n") where comment.hasPrefix("# ") {
                #expect(!comment.contains("$(") && !comment.contains("`touch"), "\(comment)")
            }
        }
        #expect(result.stdout.contains(ShellWord.quoted(path)), "the job file, quoted")
        #expect(!FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("pwned").path))
    }

    @Test("submit refuses the issue's job name, a line break and #SBATCH in it, before printing a script (exit 65)")
    func lineBreakInName() throws {
        let folder = try TemporaryFolder()
        let job = try folder.write(
            #"{"name": "x\n#SBATCH --uid=0\necho pwned", "duration": 0.1, "layers": [{"effect": "gradient"}]}"#,
            to: "job.json")
        let result = CLI.run(["submit", job, "--slurm", "--dry-run", "--out", folder.path + "/out"])
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains(#"name: "x\n#SBATCH --uid=0\necho pwned" cannot name a folder"#))
    }
}
