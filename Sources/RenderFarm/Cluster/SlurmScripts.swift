import FileOutput
import Foundation
import RenderFarmOutput

/// The batch scripts of a Slurm render (<doc:RunningOnACluster>): a prepare job that fills the jobs'
/// caches (`renderfarm prepare`, unless turned off), an array job after it whose task K renders shard
/// K/N of the jobs into the shared output folder, and a merge job that runs after every task
/// succeeded. Pure string building from the command words `renderfarm submit` gives (see `ScriptWord`);
/// it writes and submits them.
package struct SlurmScripts: Sendable, Equatable {
    /// The commands each job runs and how to ask Slurm for them.
    package struct Request: Sendable, Equatable {
        /// Absolute path of the `renderfarm` executable the jobs run.
        package var executable: String
        /// Folder of the scripts and logs.
        package var scriptFolder: String
        /// Name shown by `squeue`.
        package var name: String
        package var tasks: Int
        /// At most this many tasks at once (`%M`), nil for no limit.
        package var maxRunning: Int?
        package var partition: String?
        package var time: String?
        package var cpusPerTask: Int?
        /// The arguments of the prepare job's `renderfarm` (`prepare …`), nil for no prepare job: the
        /// array then starts at once.
        package var prepare: [ScriptWord]?
        /// The arguments of each array task's `renderfarm` (`render …`), where `.taskShard` and
        /// `.taskCPUs` become the task's own shard and CPUs.
        package var render: [ScriptWord]
        /// The arguments of the merge job's `renderfarm` (`merge …`).
        package var merge: [ScriptWord]

        package init(
            executable: String, scriptFolder: String, name: String, tasks: Int, maxRunning: Int? = nil,
            partition: String? = nil, time: String? = nil, cpusPerTask: Int? = nil, prepare: [ScriptWord]?,
            render: [ScriptWord], merge: [ScriptWord]
        ) {
            self.executable = executable
            self.scriptFolder = scriptFolder
            self.name = name
            self.tasks = tasks
            self.maxRunning = maxRunning
            self.partition = partition
            self.time = time
            self.cpusPerTask = cpusPerTask
            self.prepare = prepare
            self.render = render
            self.merge = merge
        }
    }

    package static let prepareScriptName = "prepare.sbatch"
    package static let renderScriptName = "render.sbatch"
    package static let mergeScriptName = "merge.sbatch"
    package static let submitScriptName = "submit.sh"

    /// The prepare job (`renderfarm prepare …`), nil when the request turned it off; the array job is
    /// submitted with `--dependency=afterok:<prepare job id>`.
    package let prepare: String?
    /// The array job: task K runs `renderfarm render … --shard K/N`.
    package let render: String
    /// The merge job, submitted with `--dependency=afterok:<array job id>`.
    package let merge: String
    /// What `renderfarm submit` runs, as a shell script a user can run again by hand.
    package let submit: String
    /// Where each script goes.
    package let preparePath: String
    package let renderPath: String
    package let mergePath: String
    package let submitPath: String
    /// Log file patterns (`%A` array job id, `%a` task, `%j` job id), as the `#SBATCH --output` lines give them.
    package let prepareLog: String
    package let renderLog: String
    package let mergeLog: String

    /// The log of render task `task` (a number, or a placeholder such as `K`) of array job `array`.
    package func renderLog(array: String, task: String) -> String {
        Self.expand(renderLog, ["%A": array, "%a": task])
    }

    /// The log of merge job `job`.
    package func mergeLog(job: String) -> String { Self.expand(mergeLog, ["%j": job]) }

    /// The log of prepare job `job`.
    package func prepareLog(job: String) -> String { Self.expand(prepareLog, ["%j": job]) }

    /// `pattern` with each of Slurm's `%` placeholders in `values` replaced.
    private static func expand(_ pattern: String, _ values: [String: String]) -> String {
        values.reduce(pattern) { $0.replacingOccurrences(of: $1.key, with: $1.value) }
    }

    package init(_ request: Request) throws(SlurmScriptError) {
        let folder = request.scriptFolder
        let unsafe = { (c: Character) in
            " \"'\\%#$".contains(c) || c.unicodeScalars.contains(where: ShellWord.isControl)
        }
        if folder.contains(where: unsafe) { throw .unsafePath(folder) }
        for (label, value) in [("--partition", request.partition), ("--time", request.time)] {
            guard let value else { continue }
            guard !value.isEmpty, value.allSatisfy({ ShellWord.isPlain($0, or: "-_.,:") }) else {
                throw .invalidValue(option: label, value: value)
            }
        }
        preparePath = (folder as NSString).appendingPathComponent(Self.prepareScriptName)
        renderPath = (folder as NSString).appendingPathComponent(Self.renderScriptName)
        mergePath = (folder as NSString).appendingPathComponent(Self.mergeScriptName)
        submitPath = (folder as NSString).appendingPathComponent(Self.submitScriptName)
        prepareLog = (folder as NSString).appendingPathComponent("prepare-%j.log")
        renderLog = (folder as NSString).appendingPathComponent("render-%A_%a.log")
        mergeLog = (folder as NSString).appendingPathComponent("merge-%j.log")
        let prepares = request.prepare != nil
        let name = Self.jobName(request.name)
        // Comments name the job as --job-name does: user text reaches a script only through ShellWord.quoted.
        let shownName = ShellWord.plain(request.name)

        var renderHeader = [
            "--job-name=\(name)",
            "--array=0-\(request.tasks - 1)" + (request.maxRunning.map { "%\($0)" } ?? ""),
            "--output=\(renderLog)",
            "--ntasks=1",
        ]
        // Without --kill-on-invalid-dep a job would wait forever after the one it depends on failed.
        if prepares { renderHeader.append("--kill-on-invalid-dep=yes") }
        var prepareHeader = ["--job-name=\(name)-prepare", "--output=\(prepareLog)", "--ntasks=1"]
        var mergeHeader = [
            "--job-name=\(name)-merge", "--output=\(mergeLog)", "--ntasks=1", "--kill-on-invalid-dep=yes",
        ]
        if let cpus = request.cpusPerTask { renderHeader.append("--cpus-per-task=\(cpus)") }
        for extra in [request.partition.map { "--partition=\($0)" }, request.time.map { "--time=\($0)" }] {
            guard let extra else { continue }
            renderHeader.append(extra)
            prepareHeader.append(extra)
            mergeHeader.append(extra)
        }

        let word = { (word: ScriptWord) in
            switch word {
            case .value, .jobFile, .output: ShellWord.quoted(word.literal ?? "")
            case .taskShard: "\"$SLURM_ARRAY_TASK_ID/\(request.tasks)\""
            case .taskCPUs: "\"${SLURM_CPUS_ON_NODE:-1}\""
            }
        }
        let executable = ShellWord.quoted(request.executable)

        render = Self.script(
            purpose: "Array job: task K renders shard K/\(request.tasks) of \(shownName) "
                + "(renderfarm submit --slurm).",
            header: renderHeader,
            body: [
                "echo \"renderfarm: shard $SLURM_ARRAY_TASK_ID/\(request.tasks) on $(hostname)\"",
                "exec " + executable + " \\\n    " + Self.wrap(request.render.map(word)),
            ])
        prepare = request.prepare.map { arguments in
            Self.script(
                purpose: "Fills the caches of \(shownName) (renderfarm prepare) before the render array starts.",
                header: prepareHeader,
                body: ["exec " + executable + " \\\n    " + Self.wrap(arguments.map(word))])
        }
        merge = Self.script(
            purpose: "Merges the shards' journals into manifest.json once every render task has succeeded.",
            header: mergeHeader,
            body: ["exec " + ([executable] + request.merge.map(word)).joined(separator: " ")])
        let prepareLines =
            prepares
            ? [
                "prepare=$(sbatch --parsable \(ShellWord.quoted(preparePath)))", "prepare=${prepare%%;*}",
                "array=$(sbatch --parsable --dependency=afterok:\"$prepare\" \(ShellWord.quoted(renderPath)))",
            ] : ["array=$(sbatch --parsable \(ShellWord.quoted(renderPath)))"]
        let jobs = prepares ? "$prepare,$array,$merge" : "$array,$merge"
        submit =
            ([
                "#!/bin/bash",
                "# Submits "
                    + (prepares ? "the prepare job, then the render array after it, " : "the render array, ")
                    + "then the merge job that waits for all of its tasks to succeed.",
                "# `renderfarm submit --slurm` did the same; run this to submit again by hand.",
                "set -euo pipefail",
            ] + prepareLines + [
                "array=${array%%;*}",
                "merge=$(sbatch --parsable --dependency=afterok:\"$array\" \(ShellWord.quoted(mergePath)))",
                "merge=${merge%%;*}",
                "echo \"" + (prepares ? "prepare job $prepare, " : "")
                    + "render array job $array, merge job $merge\"",
                "echo \"watch: squeue -j \(jobs)\"",
            ]).joined(separator: "\n")
    }

    /// The job name Slurm shows: `renderfarm-<name>`, limited to letters, digits and `-_.`.
    static func jobName(_ name: String) -> String {
        let safe = ShellWord.plain(name)
        return "renderfarm-" + (safe.isEmpty ? "job" : safe)
    }

    private static func script(purpose: String, header: [String], body: [String]) -> String {
        (["#!/bin/bash", "# " + purpose] + header.map { "#SBATCH " + $0 } + ["set -euo pipefail"] + body)
            .joined(separator: "\n")
    }

    /// Arguments as `option value` pairs, one pair per continued line.
    private static func wrap(_ arguments: [String]) -> String {
        var lines: [String] = []
        var line = ""
        for argument in arguments {
            if argument.hasPrefix("-") && !line.isEmpty && line.count + argument.count > 60 {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + argument
        }
        lines.append(line)
        return lines.joined(separator: " \\\n    ")
    }

    /// Writes the scripts into the script folder (`slurm/` of the output folder), creating it. Like the
    /// output folder's records, the script folder and the scripts are opened without following a link: a
    /// link planted as `slurm` or as a script is refused, so no script is written outside.
    package func write() throws(OutputError) {
        let folder = (renderPath as NSString).deletingLastPathComponent
        let parent = (folder as NSString).deletingLastPathComponent
        try AtomicFile.createDirectory(parent)
        let scripts = try FolderDescriptor(opening: parent).subfolder(making: (folder as NSString).lastPathComponent)
        if let prepare {
            try scripts.write(prepare, to: Self.prepareScriptName)
        } else {
            // A script of an earlier submission that `submit.sh` no longer runs.
            try scripts.remove(Self.prepareScriptName)
        }
        try scripts.write(render, to: Self.renderScriptName)
        try scripts.write(merge, to: Self.mergeScriptName)
        try scripts.write(submit, to: Self.submitScriptName)
    }
}

/// A value cannot go into a Slurm script.
package enum SlurmScriptError: Error, Equatable, CustomStringConvertible {
    /// `#SBATCH --output=` lines cannot quote: the folder must not hold spaces, quotes, `%`, `#`, `$` or
    /// control characters.
    case unsafePath(String)
    case invalidValue(option: String, value: String)

    package var description: String {
        switch self {
        case .unsafePath(let path):
            "the Slurm logs go to \(ShellWord.quoted(path)), which holds a space, quote, %, #, $ or control "
                + "character that #SBATCH lines cannot carry; "
                + "choose an output folder (--out) without them"
        case .invalidValue(let option, let value):
            "\(option) \"\(value)\" may only hold letters, digits and - _ . , :"
        }
    }
}
