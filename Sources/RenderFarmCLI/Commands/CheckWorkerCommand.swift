import Foundation
import RenderFarm
import RenderFarmJobs

/// `renderfarm check-worker LIB …` (hidden): the sandboxed worker process of `plugin check`. It loads
/// the library, locks itself in like a worker of `render --isolate`, runs the check and sends the
/// findings over file descriptor 3 (article UntrustedPlugins).
struct CheckWorkerCommand: Command {
    static let spec = CommandSpec(
        name: "check-worker",
        abstract: "The worker process of `plugin check` (started by plugin check, not by hand).",
        synopsis: "check-worker LIB",
        examples: [],
        options: [
            PluginCheckCommand.params, PluginCheckCommand.duration, PluginCheckCommand.frames,
            PluginCheckCommand.memoryFrames, RenderCommand.sandbox, scratch,
        ],
        positionals: 1...1)

    static let scratch = Option(
        "--scratch", value: "DIR", help: "The folder the worker may write (its temporary files), made by the check.")

    /// CPU time the whole check may take in a sandboxed worker (a hard limit: past it the kernel kills the worker).
    static let cpuSeconds = 3600.0

    let arguments: ParsedArguments
    let duration: Double?
    let memoryFrames: Int?
    let sandbox: SandboxMode

    init(_ arguments: ParsedArguments) throws(UsageError) {
        self.arguments = arguments
        duration = try PluginCheckCommand.parseDuration(arguments, command: "check-worker")
        memoryFrames = try PluginCheckCommand.parseMemoryFrames(arguments, command: "check-worker")
        sandbox = try RenderCommand.parseSandbox(arguments, command: "check-worker", needsIsolate: false)
    }

    /// The command line of the worker that checks `library` with the setting `check` (plugin check's
    /// arguments) asks for.
    static func arguments(library: String, check: ParsedArguments, sandbox: SandboxMode, scratch: String) -> [String] {
        var command = [spec.name, library]
        for option in [
            PluginCheckCommand.params, PluginCheckCommand.duration, PluginCheckCommand.frames,
            PluginCheckCommand.memoryFrames,
        ] {
            if let value = check[option] { command += option.words(value) }
        }
        return command + RenderCommand.sandbox.words(sandbox.rawValue) + Self.scratch.words(scratch)
    }

    func run(_ terminal: Terminal) -> ExitCode {
        guard let connection = WorkerServer.connect(), let scratch = arguments[Self.scratch] else {
            let problem = "`renderfarm check-worker` is started by `renderfarm plugin check`, not by hand"
            return .reporting(UsageError(message: problem, command: "check-worker"), to: terminal)
        }
        // plugin check reports the crash as a failed check and goes on: not fatal.
        LoadedPlugin.installFaultReport(hint: " (in the worker process of plugin check)", contained: true)
        // The namespaces first, while the process has one thread (a user namespace needs that).
        let (entered, missing) = sandbox != .off ? WorkerSandbox.enter() : ([], "")
        let plugin: LoadedPlugin
        do {
            plugin = try PluginCatalog.loadLibrary(arguments.positionals[0])
        } catch {
            connection.fail(error.description)
            return ExitCode(for: error)
        }
        switch PluginCheckCommand.setting(arguments, duration: duration, memoryFrames: memoryFrames) {
        case .success(var setting):
            // Each frame of the check's serial loops is announced, so the parent times it and names it.
            setting.progress = connection.frameProgress()
            let served = PluginCheck.serve(
                plugin, setting: setting, sandbox: sandbox, entered: entered, missing: missing, scratch: scratch,
                cpuSeconds: Self.cpuSeconds, connection: connection)
            return served ? .ok : .unavailable
        case .failure(let refusal):
            connection.fail(refusal.description)
            return ExitCode(for: refusal)
        }
    }
}
