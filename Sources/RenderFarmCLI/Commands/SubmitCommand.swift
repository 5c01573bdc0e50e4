import Foundation
import RenderFarm
import RenderFarmJobs
import RenderFarmOutput

/// `renderfarm submit JOB … --slurm | --openjd DIR | --kubernetes DIR`: renders on a cluster as a prepare step,
/// a task per shard and a merge step.
struct SubmitCommand: Command {
    static let spec = CommandSpec(
        name: "submit",
        abstract: "Render on a cluster (Slurm, Open Job Description, Kubernetes): prepare, a task per shard, merge.",
        synopsis: "submit JOB …",
        examples: [
            "renderfarm submit jobs/live-hearts.json --slurm --tasks 8 --out /shared/renders/live-hearts",
            "renderfarm submit jobs/live-hearts.json --openjd bundle --tasks 4 --out /shared/renders/live-hearts",
            "renderfarm submit jobs/live-hearts.json --kubernetes k8s --image registry/renderfarm:1 --dry-run",
        ],
        discussion: """
            Checks the jobs, writes prepare.sbatch (runs `renderfarm prepare`, which fills the output
            folder's cache so that late shards of long physics jobs start at once; --no-prepare
            leaves it out), render.sbatch (an array job after it: task K runs `renderfarm render …
            --shard K/N`), merge.sbatch (runs `renderfarm merge` after every task succeeded) and
            submit.sh into OUTDIR/slurm/, submits them with `sbatch --parsable` and prints the job
            ids and how to watch them. The scripts call this renderfarm executable and its plugin
            folders by absolute path, so the nodes need the same paths (a shared file system), as
            they need the output folder. Submitting the same job again renders only the frames still
            missing. --wait waits for the merge job, then checks the folder like `merge` (stopping
            the wait leaves the jobs running).

            --openjd DIR writes an Open Job Description job bundle instead (template.yaml with the
            steps Prepare, Render with a task per shard, and Merge; parameter_values.yaml;
            asset_references.yaml) for `deadline bundle submit DIR` or `openjd run
            DIR/template.yaml --step Merge --run-dependencies`. --kubernetes DIR writes Kubernetes
            Jobs (prepare.yaml, render.yaml: an Indexed Job of --tasks pods, merge.yaml) that run
            --image with the volume claim --volume-claim mounted where the jobs and the output lie
            here, and submit.sh, which applies each after the one before completed. Neither submits.

            Exit codes: 0 submitted or written (with --wait: complete), 1 frames missing after
            --wait, 64 usage, 65 invalid job, 66 missing file, 69 sbatch not found or the
            submission refused, 73 / 74 cannot write the scripts.
            """,
        options: [
            slurm, openjd, kubernetes, image, volumeClaim, tasks, maxRunning, partition, time, cpusPerTask, out,
            outputRoot, frames, jobs,
            CommonOptions.shardMode, noPrepare, dryRun, wait, CommonOptions.pluginPath, CommonOptions.variants,
            RenderCommand.isolate, RenderCommand.frameTimeout, RenderCommand.sandbox,
        ],
        positionals: 1...Int.max)

    static let slurm = Flag("--slurm", help: "Submit to Slurm with sbatch.")
    static let openjd = Option("--openjd", value: "DIR", help: "Write an Open Job Description job bundle into DIR.")
    static let kubernetes = Option("--kubernetes", value: "DIR", help: "Write Kubernetes Jobs into DIR.")
    static let image = Option("--image", value: "IMAGE", help: "The container image of the Kubernetes Jobs.")
    static let volumeClaim = Option(
        "--volume-claim", value: "NAME", help: "The Kubernetes volume claim of jobs and output (default renderfarm).")
    static let tasks = Option("--tasks", value: "N", help: "Array tasks, one shard each (default 4).")
    static let maxRunning = Option("--max-running", value: "M", help: "Run at most M tasks at once (--array=…%M).")
    static let partition = Option("--partition", value: "P", help: "Slurm partition for both jobs.")
    static let time = Option("--time", value: "T", help: "Time limit of each job, e.g. 30 or 2:00:00.")
    static let cpusPerTask = Option("--cpus-per-task", value: "C", help: "CPUs per task; frames in flight follow it.")
    static let out = Option("--out", value: "DIR", help: "Output folder (default: the job's output.dir).")
    static let outputRoot = Option("--output-root", value: "DIR", help: "Allow output.dir anywhere inside DIR.")
    static let frames = Option("--frames", value: "SET", help: "Render these frames instead, e.g. 0-99.")
    static let jobs = Option("-j", "--jobs", value: "N", help: "Frames in flight per task (default: its CPUs).")
    static let noPrepare = Flag("--no-prepare", help: "Start the render array at once, without a prepare job.")
    static let dryRun = Flag("--dry-run", help: "Print the scripts or bundle; write and submit nothing.")
    static let wait = Flag("--wait", help: "Wait for the merge job and report the result.")

    let arguments: ParsedArguments
    let engine: Engine
    let tasks: Int
    let maxRunning: Int?
    let cpusPerTask: Int?
    let concurrency: Int?
    let interleaved: Bool
    let frameTimeout: Double?
    /// `--sandbox` of each task's `render --isolate` (nil: not given, the render's default).
    let sandbox: SandboxMode?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        self.arguments = arguments
        frameTimeout = try RenderCommand.parseFrameTimeout(arguments, command: "submit")
        let mode = try RenderCommand.parseSandbox(arguments, command: "submit")
        sandbox = arguments[RenderCommand.sandbox] == nil ? nil : mode
        engine = try Engine(arguments)
        tasks = try arguments.integer(Self.tasks, in: 1...100_000, command: "submit") ?? 4
        maxRunning = try arguments.integer(Self.maxRunning, in: 1...100_000, command: "submit")
        cpusPerTask = try arguments.integer(Self.cpusPerTask, in: 1...1024, command: "submit")
        concurrency = try arguments.integer(Self.jobs, in: 1...1024, command: "submit")
        interleaved =
            try arguments.choice(
                CommonOptions.shardMode, ["contiguous", "interleaved"], default: "contiguous",
                command: "submit") == "interleaved"
    }

    func run(_ terminal: Terminal) -> ExitCode {
        let out = arguments[Self.out].map { URL(fileURLWithPath: $0).standardizedFileURL.path }
        let plan = PlanOptions(
            outputOverride: out, outputRoot: arguments[Self.outputRoot],
            frames: arguments[Self.frames], warmUp: .none)
        let jobs: [PlannedJob]
        switch CommonOptions.planJobs(arguments.positionals, arguments: arguments, options: plan, terminal: terminal) {
        case .success(let ready): jobs = ready.jobs
        case .failure(let code): return code
        }
        guard let first = jobs.first else { return .reporting(CommandRefusal.noJob, to: terminal) }
        // The variants of one job file each have their own folder; other batches need --out.
        let files = jobs.map(\.job.file).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        let variants = files.count == 1 && first.job.variant != nil
        guard jobs.count == 1 || out != nil || variants else {
            let problem = "submitting \(jobs.count) jobs needs --out DIR (each job renders into DIR/<name>)"
            return .reporting(UsageError(message: problem, command: "submit"), to: terminal)
        }
        let folder =
            out ?? (variants ? (first.outputDirectory as NSString).deletingLastPathComponent : first.outputDirectory)
        let scripts: SlurmScripts
        let name =
            jobs.count == 1 || variants
            ? first.job.variant?.batch.name ?? first.job.spec.name : "\(first.job.spec.name)+\(jobs.count - 1)"
        var commands = ClusterCommandLines(
            jobFiles: files, output: variants && out == nil ? nil : folder,
            outputRoot: out == nil ? arguments[Self.outputRoot].map(Self.absolute) : nil,
            jobFolders: jobs.map(\.outputDirectory),
            pluginPath: Self.pluginFolders(arguments.all(CommonOptions.pluginPath)),
            frames: arguments[Self.frames], variants: arguments[CommonOptions.variants], concurrency: concurrency,
            interleaved: interleaved, isolate: arguments[RenderCommand.isolate], frameTimeout: frameTimeout,
            sandbox: sandbox, prepares: !arguments[Self.noPrepare])
        if engine != .slurm {
            commands.schedulerGivesCPUs = false
            if case .openjd = engine { commands.progress = .openjd }
            return describe(commands, name: name, terminal: terminal)
        }
        do {
            scripts = try SlurmScripts(
                commands.request(
                    executable: Self.executable(),
                    scriptFolder: (folder as NSString).appendingPathComponent(FolderLayout.slurm),
                    name: name, tasks: tasks, maxRunning: maxRunning, partition: arguments[Self.partition],
                    time: arguments[Self.time], cpusPerTask: cpusPerTask))
        } catch {
            return .reporting(UsageError(message: error.description, command: "submit"), to: terminal)
        }
        if arguments[Self.dryRun] {
            let prepare = scripts.prepare.map { [(scripts.preparePath, $0)] } ?? []
            for (path, text) in prepare + [
                (scripts.renderPath, scripts.render), (scripts.mergePath, scripts.merge),
                (scripts.submitPath, scripts.submit),
            ] {
                terminal.print("# ---- \(path)\n\(text)\n")
            }
            terminal.print("# dry run: nothing written or submitted; without --dry-run, submit runs:")
            if scripts.prepare != nil {
                terminal.print("#   sbatch --parsable \(ShellWord.quoted(scripts.preparePath))")
            }
            terminal.print(
                "#   sbatch --parsable " + (scripts.prepare == nil ? "" : "--dependency=afterok:<prepare job id> ")
                    + ShellWord.quoted(scripts.renderPath))
            terminal.print(
                "#   sbatch --parsable --dependency=afterok:<array job id> "
                    + ShellWord.quoted(scripts.mergePath))
            return .ok
        }
        guard let slurm = SlurmClient(environment: arguments.environment) else {
            return .reporting(CommandRefusal.slurmMissing, to: terminal)
        }
        return submit(scripts, jobs: jobs, slurm: slurm, terminal: terminal)
    }

    private func submit(_ scripts: SlurmScripts, jobs: [PlannedJob], slurm: SlurmClient, terminal: Terminal)
        -> ExitCode
    {
        do {
            try scripts.write()
        } catch {
            return .reporting(error, to: terminal)
        }
        let scriptFolder = (scripts.renderPath as NSString).deletingLastPathComponent
        // Each job after the one before it; a refused submission names what is queued already.
        var queued: [String] = []
        func submitNext(_ path: String) throws(SlurmClient.Failure) -> String {
            let id = try slurm.submit(
                path, extra: queued.last.map { ["--dependency=afterok:\($0)"] } ?? [], in: scriptFolder)
            queued.append(id)
            return id
        }
        let prepare: String?
        let array: String
        let merge: String
        do {
            prepare = try scripts.prepare.map { _ throws(SlurmClient.Failure) in try submitNext(scripts.preparePath) }
            array = try submitNext(scripts.renderPath)
            merge = try submitNext(scripts.mergePath)
        } catch {
            let cancel =
                queued.isEmpty
                ? ""
                : "\n\(queued.joined(separator: ", ")) queued; cancel with `scancel \(queued.joined(separator: " "))`"
            terminal.error(error.description + cancel)
            return ExitCode(for: error)
        }
        terminal.print(
            "submitted \(tasks) render task\(tasks == 1 ? "" : "s") as array job \(array)"
                + (prepare.map { " (after prepare job \($0))" } ?? "") + ", merge job \(merge) after them")
        terminal.print("  scripts: \(scriptFolder)/")
        let logs =
            (prepare.map { [scripts.prepareLog(job: $0)] } ?? []) + [
                scripts.renderLog(array: array, task: "K"), scripts.mergeLog(job: merge),
            ]
        terminal.print("  logs:    \(logs.joined(separator: ", "))")
        let ids = queued.joined(separator: ",")
        terminal.print("  watch:   squeue -j \(ids)")
        terminal.print("           sacct -j \(ids) --format=JobID,JobName,State,ExitCode,Elapsed")
        for job in jobs {
            terminal.print(
                "  result:  \((job.outputDirectory as NSString).appendingPathComponent(FolderLayout.manifest))")
        }
        guard arguments[Self.wait] else { return .ok }
        return wait(
            prepare: prepare, array: array, merge: merge, jobs: jobs, scripts: scripts, slurm: slurm, terminal: terminal
        )
    }

    /// Polls the merge job until it has ended, names the render tasks that did not complete,
    /// then checks every output folder like `merge` does.
    private func wait(
        prepare: String?, array: String, merge: String, jobs: [PlannedJob], scripts: SlurmScripts,
        slurm: SlurmClient, terminal: Terminal
    ) -> ExitCode {
        var last = ""
        var final: SlurmJobState?
        do {
            while true {
                guard let state = try slurm.states(of: merge).first else { break }
                let line = "\(state.state)" + (state.reason == "None" ? "" : " (\(state.reason))")
                if line != last { terminal.note("renderfarm: merge job \(merge): \(line)") }
                last = line
                if state.state.isFinal {
                    final = state.state
                    break
                }
                sleep(2)
            }
            if let prepare, let state = try slurm.states(of: prepare).first, state.state != .completed {
                terminal.note(
                    "renderfarm: prepare job \(prepare): \(state.state); log: \(scripts.prepareLog(job: prepare))")
            }
            for task in try slurm.states(of: array) where task.state != .completed {
                let index = task.job.split(separator: "_").last.map(String.init) ?? "K"
                let log = scripts.renderLog(array: array, task: index)
                terminal.note("renderfarm: render task \(task.job): \(task.state); log: \(log)")
            }
        } catch {
            return .reporting(error, to: terminal)
        }
        if let final, final != .completed {
            terminal.note("renderfarm: the merge job did not complete (\(final)); checking the output here")
        }
        var worst = ExitCode.ok
        for job in jobs {
            let code = MergeCommand.merge(job.outputDirectory, terminal: terminal)
            if worst == .ok || (worst == .framesFailed && code != .ok) { worst = code }
        }
        return worst
    }

    /// The `renderfarm` binary by absolute path (`PluginCatalog.workerExecutable`): the nodes run the same one.
    static func executable() -> String {
        URL(fileURLWithPath: PluginCatalog.workerExecutable).standardizedFileURL.path
    }

    /// The plugin search path that exists here, absolute and in order, for the tasks' --plugin-path.
    static func absolute(_ path: String) -> String { URL(fileURLWithPath: path).standardizedFileURL.path }

    static func pluginFolders(_ extra: [String]) -> [String] {
        PluginCatalog.searchPath(extra: extra).filter { folder in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) && isDirectory.boolValue
        }
    }
}
