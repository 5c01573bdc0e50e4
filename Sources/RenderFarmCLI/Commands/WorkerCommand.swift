import FileOutput
import Foundation
import Locking
import RenderFarm
import RenderFarmJobs
import RenderFarmOutput

/// `renderfarm worker …` (hidden): one worker process of `render --isolate`. It prepares the
/// same jobs as the render that started it, then draws and writes the frames it is sent over
/// file descriptor 3 until that render closes the connection.
struct WorkerCommand: Command {
    static let spec = CommandSpec(
        name: "worker",
        abstract: "A worker process of `render --isolate` (started by render, not by hand).",
        synopsis: "worker JOB|DIR …",
        examples: [],
        options: [CommonOptions.pluginPath, RenderCommand.scale, serveJob, planOnly, jobText] + forwarded,
        positionals: 1...Int.max)

    /// The options of `render` a worker is given as they are (the scale goes as a number).
    static let forwarded = [
        RenderCommand.out, RenderCommand.outputRoot, RenderCommand.frames, CommonOptions.variants,
        RenderCommand.sandbox,
    ]

    /// The one job (its position among the prepared jobs) whose frames this worker draws and whose files its
    /// sandbox reads, when the render has several.
    static let serveJob = Option(
        "--serve-job", value: "K",
        help: "Prepare and draw only the K-th job (from 0); the sandbox reads only its files.")

    /// A planning worker of `render --isolate` (`IsolatedPlanner`): it creates and verifies the instances of the
    /// jobs at the positions given, replies what that gave and ends.
    static let planOnly = Option(
        "--plan", value: "K,L,…",
        help: "Create and verify the instances of these jobs (positions from 0), reply what that gave, and end.")

    /// The job file's text comes on the socket (`IsolatedPlanner.jobText`, `Isolation.jobText`), not from the file.
    static let jobText = Flag(
        IsolatedPlanner.textOption, help: "Read the one job file's text from the render, not from the file.")

    let arguments: ParsedArguments
    let scale: Double?
    let sandbox: SandboxMode

    init(_ arguments: ParsedArguments) throws(UsageError) {
        self.arguments = arguments
        scale = try RenderCommand.parseScale(arguments, command: "worker")
        let mode = try RenderCommand.parseSandbox(arguments, command: "worker", needsIsolate: false)
        sandbox = mode == .strict && WorkerSandbox.underSanitizer ? .off : mode
    }

    /// The worker command line that prepares the jobs `render` prepared with `arguments`.
    static func arguments(for render: ParsedArguments, scale: Double?) -> [String] {
        var command = [spec.name] + render.positionals
        for folder in render.all(CommonOptions.pluginPath) { command += CommonOptions.pluginPath.words(folder) }
        for option in forwarded {
            if let value = render[option] { command += option.words(value) }
        }
        if let scale { command += RenderCommand.scale.words("\(scale)") }
        return command
    }

    /// The worker command line that prepares `jobFile` (its variant `variant`, nil: a job without variants) at
    /// `scale` with the plugins of `pluginFolders`, sandboxed by `sandbox`: the studio's preview workers.
    static func arguments(
        jobFile: String, variant: Int?, scale: Double?, pluginFolders: [String], sandbox: SandboxMode
    ) -> [String] {
        var command = [spec.name, jobFile]
        for folder in pluginFolders { command += CommonOptions.pluginPath.words(folder) }
        if let variant { command += CommonOptions.variants.words(String(variant)) }
        if let scale { command += RenderCommand.scale.words("\(scale)") }
        return command + RenderCommand.sandbox.words(sandbox.rawValue)
    }

    func run(_ terminal: Terminal) -> ExitCode {
        guard let connection = WorkerServer.connect() else {
            let problem = "`renderfarm worker` is started by `renderfarm render --isolate`, not by hand"
            return .reporting(UsageError(message: problem, command: "worker"), to: terminal)
        }
        // The render records the attempt as failed and retries the frame in a new worker: not fatal.
        LoadedPlugin.installFaultReport(
            hint: " (in a worker process of render --isolate: that attempt at the frame fails, the render goes on)",
            contained: true)
        // Ctrl-C reaches the whole process group: the render decides when its workers stop.
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        // The namespaces first, while the process has one thread (a user namespace needs that).
        let (entered, missing) = sandbox != .off ? WorkerSandbox.enter() : ([], "")
        // The render has reported every problem and warning already: the worker keeps them.
        let messages = Locked<[String]>([])
        let quiet = Terminal(out: { _ in }, err: { text in messages.withLock { $0.append(text) } })
        var plan = PlanOptions(
            outputOverride: arguments[RenderCommand.out], outputRoot: arguments[RenderCommand.outputRoot],
            frames: arguments[RenderCommand.frames], scale: scale, warmUp: .framesWithCache)
        // The planning worker verified the layers' input (ABI `verify`).
        plan.verifies = false
        // A worker of one job of several plans and prepares only that one, and its sandbox reads only its files.
        let served = arguments[Self.serveJob].flatMap { Int($0) }
        if arguments[Self.serveJob] != nil && served == nil {
            connection.fail("--serve-job takes a job's position")
            return .usage
        }
        plan.plansOnly = served
        let planned = arguments[Self.planOnly].map { $0.split(separator: ",").map { Int($0) ?? -1 } }
        var text: [UInt8]?
        if arguments[Self.jobText] {
            text = connection.receiveJobText(limit: JobLoader.maxFileBytes)
            guard text != nil, arguments.positionals.count == 1 else {
                connection.fail("--job-text needs one job file and its text from the render")
                return .usage
            }
        }
        // Its plugin libraries loaded, before any instance is created, the worker locks itself in with everything
        // its jobs may name, so that what `create` and `verify` parse is parsed inside (article UntrustedPlugins).
        let lockIn = { (jobs: [LoadedJob], catalog: PluginCatalog) -> ExitCode? in
            guard sandbox != .off else { return nil }
            let own = (planned ?? served.map { [$0] } ?? Array(jobs.indices)).filter(jobs.indices.contains).map {
                jobs[$0]
            }
            let (applied, problems) = WorkerSandbox.lockIn(
                scope(of: own, jobCount: jobs.count, plan: plan, catalog: catalog, writingCache: planned == nil),
                entered: entered)
            return refuse(applied, missing: SandboxLayers.all, why: [missing, problems], connection)
        }
        if let planned {
            return self.plan(
                jobs: arguments.positionals, text: text, positions: planned, lockIn: lockIn, connection, quiet,
                messages)
        }
        // `render` refused --scale over a canvas.scale matrix already; the studio previews any variant at any scale.
        switch CommonOptions.planJobs(
            arguments.positionals, arguments: arguments, options: plan, terminal: quiet, beforeCreating: lockIn,
            refusesScaledMatrix: false, text: text)
        {
        case .success(let ready):
            let jobs = ready.jobs
            let redraw = ProcessInfo.processInfo.environment["RENDERFARM_STATIC_LAYERS"] == "redraw"
            guard served == nil || jobs.count == 1 else {
                connection.fail("--serve-job names no job of the render")
                return .usage
            }
            guard sandbox != .off else {
                connection.serve(jobs, serving: served, cacheStaticLayers: !redraw)
                return .ok
            }
            // Planned and prepared: from here on the worker reads only its plugins and the files they named.
            let (narrowed, problems) = WorkerSandbox.narrow(to: jobs)
            if let code = refuse(narrowed, missing: [.landlock, .seccomp], why: [problems], connection) { return code }
            connection.serve(
                jobs, serving: served, cacheStaticLayers: !redraw, beforeFrame: WorkerSandbox.hasTimeForAFrame,
                failureNote: WorkerSandbox.memoryNote)
            return .ok
        case .failure(let code):
            connection.fail(messages.withLock { $0.joined() })
            return code
        }
    }

    /// Under `--sandbox require`, a worker without every layer of `wanted` in force says which and why (exit 69).
    private func refuse(
        _ applied: SandboxLayers, missing wanted: SandboxLayers, why: [String], _ connection: WorkerConnection
    )
        -> ExitCode?
    {
        guard sandbox == .require, !applied.isSuperset(of: wanted) else { return nil }
        let names = wanted.subtracting(applied).names.joined(separator: ", ")
        let reasons = why.filter { !$0.isEmpty }.joined(separator: "; ")
        let refusal = CommandRefusal.sandboxIncomplete(
            "--sandbox require: this worker could not apply \(names) (\(reasons))")
        connection.fail(refusal.description)
        return ExitCode(for: refusal)
    }

    /// What a worker of `jobs` may reach once locked in (`WorkerScope`): their folders, their event logs and the
    /// plugin folders; a worker that draws frames reads the jobs' output folders and writes their
    /// `renderfarm.cache` folders, made now where the output folder exists (the render locked it; a plugin makes
    /// its own folder in it).
    private func scope(
        of jobs: [LoadedJob], jobCount: Int, plan: PlanOptions, catalog: PluginCatalog, writingCache: Bool
    ) -> WorkerScope {
        let outputs =
            writingCache
            ? jobs.compactMap { job -> FolderDescriptor? in
                guard
                    let output = RenderEngine(catalog: catalog, options: plan).outputFolder(
                        of: job, jobCount: jobCount),
                    let folder = try? FolderDescriptor(opening: output),
                    (try? folder.subfolder(making: FolderLayout.cache)) != nil
                else { return nil }
                return folder
            } : []
        let folders = PluginCatalog.searchPath(extra: arguments.all(CommonOptions.pluginPath)) + outputs.map(\.path)
        return WorkerScope(
            jobs: jobs, catalog: catalog, pluginFolders: folders,
            cacheFolders: outputs.map { $0.file(FolderLayout.cache) },
            scale: scale)
    }

    /// `--plan K,L,…`: locks the worker in, creates and verifies the instances of the jobs at those positions,
    /// replies what that gave.
    private func plan(
        jobs paths: [String], text: [UInt8]?, positions: [Int], lockIn: ([LoadedJob], PluginCatalog) -> ExitCode?,
        _ connection: WorkerConnection, _ quiet: Terminal, _ messages: Locked<[String]>
    ) -> ExitCode {
        let loaded = CommonOptions.loadJobs(
            paths, arguments: arguments, scale: scale, terminal: quiet, refusesScaledMatrix: false, text: text)
        let run: CommonOptions.LoadedRun
        switch loaded {
        case .success(let loaded): run = loaded
        case .failure(let code):
            connection.fail(messages.withLock { $0.joined() })
            return code
        }
        guard !positions.isEmpty, positions.allSatisfy(run.jobs.indices.contains) else {
            connection.fail("--plan names no job of the render")
            return .usage
        }
        let jobs = positions.map { run.jobs[$0] }
        let catalog = CommonOptions.catalog(arguments, using: Set(jobs.flatMap { $0.spec.layers.map(\.effect) }))
        if let code = lockIn(run.jobs, catalog) { return code }
        let engine = RenderEngine(catalog: catalog, options: PlanOptions(scale: scale))
        var created: [Int: [Int: CreatedLayer]] = [:]
        for (position, job) in zip(positions, jobs) {
            created[position] = engine.createdLayers(job)
        }
        connection.reply(planned: created)
        return .ok
    }
}
