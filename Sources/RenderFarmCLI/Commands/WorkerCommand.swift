import Foundation
import RenderFarm
import Synchronization

/// `renderfarm worker …` (hidden): one worker process of `render --isolate`. It prepares the
/// same jobs as the render that started it, then draws and writes the frames it is sent over
/// file descriptor 3 until that render closes the connection.
struct WorkerCommand: Command {
    static let spec = CommandSpec(
        name: "worker",
        abstract: "A worker process of `render --isolate` (started by render, not by hand).",
        synopsis: "worker JOB|DIR …",
        examples: [],
        options: [
            CommonOptions.pluginPath, CommonOptions.variants,
            OptionSpec(names: ["--out"], value: "DIR", help: "As render's."),
            OptionSpec(names: ["--output-root"], value: "DIR", help: "As render's."),
            OptionSpec(names: ["--frames"], value: "SET", help: "As render's."),
            RenderCommand.scaleOption,
        ],
        positionals: 1...Int.max)

    let arguments: ParsedArguments
    let scale: Double?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        self.arguments = arguments
        scale = try RenderCommand.scale(arguments, command: "worker")
    }

    /// The worker command line that prepares the jobs `render` prepared with `arguments`.
    static func arguments(for render: ParsedArguments, scale: Double?) -> [String] {
        var command = [spec.name] + render.positionals
        for folder in render.all("--plugin-path") { command += ["--plugin-path", folder] }
        for name in ["--out", "--output-root", "--frames", "--variants"] {
            if let value = render.value(name) { command += [name, value] }
        }
        if let scale { command += ["--scale", "\(scale)"] }
        return command
    }

    func run(_ terminal: Terminal) -> ExitCode {
        guard let connection = WorkerServer.connect() else {
            terminal.error("`renderfarm worker` is started by `renderfarm render --isolate`, not by hand")
            return .usage
        }
        // The render records the frame as failed and retries it in a new worker.
        LoadedPlugin.installFaultReport(hint: " (in a worker process of render --isolate)")
        // Ctrl-C reaches the whole process group: the render decides when its workers stop.
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        // The render has reported every problem and warning already: the worker keeps them.
        let messages = Mutex<[String]>([])
        let quiet = Terminal(out: { _ in }, err: { text in messages.withLock { $0.append(text) } })
        let plan = PlanOptions(
            outputOverride: arguments.value("--out"), outputRoot: arguments.value("--output-root"),
            frames: arguments.value("--frames"), scale: scale)
        switch CommonOptions.prepare(arguments.positionals, arguments: arguments, options: plan, terminal: quiet) {
        case .success(let jobs):
            let redraw = ProcessInfo.processInfo.environment["RENDERFARM_STATIC_LAYERS"] == "redraw"
            connection.serve(jobs, cacheStaticLayers: !redraw)
            return .ok
        case .failure(let code):
            connection.fail(messages.withLock { $0.joined() })
            return code
        }
    }
}
