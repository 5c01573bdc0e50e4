import Foundation
import Locking
import RenderFarm
import RenderFarmJobs

/// `renderfarm worker …` (hidden): one worker process of `render --isolate`. It prepares the
/// same jobs as the render that started it, then draws and writes the frames it is sent over
/// file descriptor 3 until that render closes the connection.
struct WorkerCommand: Command {
    static let spec = CommandSpec(
        name: "worker",
        abstract: "A worker process of `render --isolate` (started by render, not by hand).",
        synopsis: "worker JOB|DIR …",
        examples: [],
        options: [CommonOptions.pluginPath, RenderCommand.scale, serveJob] + forwarded,
        positionals: 1...Int.max)

    /// The options of `render` a worker is given as they are (the scale goes as a number).
    static let forwarded = [
        RenderCommand.out, RenderCommand.outputRoot, RenderCommand.frames, CommonOptions.variants,
        RenderCommand.sandbox,
    ]

    /// The one job (its position among the prepared jobs) whose frames this worker draws and whose files its
    /// sandbox reads, when the render has several.
    static let serveJob = Option(
        "--serve-job", value: "K", help: "Prepare and draw only the K-th job (from 0); the sandbox reads only its files.")

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
        // The process that started this worker verified the layers' input (ABI `verify`).
        plan.verifies = false
        // A worker of one job of several plans and prepares only that one, and its sandbox reads only its files.
        let served = arguments[Self.serveJob].flatMap { Int($0) }
        if arguments[Self.serveJob] != nil && served == nil {
            connection.fail("--serve-job takes a job's position")
            return .usage
        }
        plan.plansOnly = served
        // `render` refused --scale over a canvas.scale matrix already; the studio previews any variant at any scale.
        switch CommonOptions.planJobs(
            arguments.positionals, arguments: arguments, options: plan, terminal: quiet, refusesScaledMatrix: false)
        {
        case .success(let jobs):
            let redraw = ProcessInfo.processInfo.environment["RENDERFARM_STATIC_LAYERS"] == "redraw"
            guard served == nil || jobs.count == 1 else {
                connection.fail("--serve-job names no job of the render")
                return .usage
            }
            guard sandbox != .off else {
                connection.serve(jobs, serving: served, cacheStaticLayers: !redraw)
                return .ok
            }
            // Plugins are loaded and created: from here on the worker reads and writes only what
            // its jobs need (article UntrustedPlugins).
            let (applied, problems) = WorkerSandbox.apply(to: jobs, entered: entered)
            if sandbox == .require && applied != .all {
                let names = SandboxLayers.all.subtracting(applied).names.joined(separator: ", ")
                let why = [missing, problems].filter { !$0.isEmpty }.joined(separator: "; ")
                let refusal = CommandRefusal.sandboxIncomplete(
                    "--sandbox require: this worker could not apply \(names) (\(why))")
                connection.fail(refusal.description)
                return ExitCode(for: refusal)
            }
            connection.serve(
                jobs, serving: served, cacheStaticLayers: !redraw, beforeFrame: WorkerSandbox.hasTimeForAFrame,
                failureNote: WorkerSandbox.memoryNote)
            return .ok
        case .failure(let code):
            connection.fail(messages.withLock { $0.joined() })
            return code
        }
    }
}
