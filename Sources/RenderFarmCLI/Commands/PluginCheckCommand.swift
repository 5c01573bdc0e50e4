import FileInput
import Foundation
import RenderFarm
import RenderFarmJobs
import StrictJSON

/// `renderfarm plugin check LIB|ID`: the conformance check an author runs before shipping.
struct PluginCheckCommand: Command {
    static let spec = CommandSpec(
        name: "plugin check",
        abstract: "Check a plugin library against the plugin ABI's rules before shipping it.",
        synopsis: "plugin check LIB|ID",
        examples: [
            "renderfarm plugin check floating-heart",
            #"renderfarm plugin check physics-bounce --params '{"items": [{"at": [180, 100], "shape": "gift"}]}'"#,
            "renderfarm plugin check ./build/librenderfarm-sparkle.so --params params.json --frames all",
        ],
        discussion: """
            LIB is a path to a plugin library (it contains '/' or ends in .so); ID is looked up on
            the plugin search path like `renderfarm plugins ID`. The check reads the descriptor
            (id rule, semantic version, reverse-DNS identifier, struct_size, a parameter table
            whose defaults are inside their ranges and whose parameters are all documented),
            creates and destroys instances with the defaults and with each parameter at its
            range ends, renders frames at several times, on several threads when the plugin
            declares it thread-safe, renders them again to compare bytes, renders them at twice
            the scale (the same points must be covered) and over an opaque backdrop (which must
            survive wherever the layer draws nothing), compares trace items with the pixels drawn
            where the plugin traces, and fails when the plugin writes to stdout. When frames drawn
            again differ, determinism fails with the fix and the checks that compare renders say
            "not checked: frames are not deterministic". For a plugin with
            frame keys it edits each parameter in turn (a number a step each way, every other enum
            case, each colour channel, a list element, an event's time and fields, ...) and the
            job's duration: wherever the edited instance gives a frame the original's key, both
            must draw it with the same bytes. A plugin that declares RF_PLUGIN_KEYS_COVER_PARAMS
            fails when they do not; for others a note says whether the flag would hold. It prints
            one finding per line and the time per frame. A plugin whose defaults alone cannot make
            an instance is checked with --params, an object like a job layer's "params" (JSON
            text, or a file holding it). The setting is a 375×667 pt canvas at 30 fps for 4 s;
            --duration makes it longer, for plugins that keep a cache between runs (a physics
            checkpoint a minute), whose cache the check also exercises.

            The pixel checks compare five frames (0, the quarters and the last); --frames all (or a
            set such as 0-30,90) renders every frame of the set once more, in order, and a crash,
            an abort, an error or a hang (a frame past --frame-timeout, 30 s by default) on any of
            them fails the check naming the frame. The memory check then draws the checked frames
            over and over: after 30 renders to warm up (at least one pass), 300 more
            (--memory-frames N; 0 skips it) whose resident set size may not grow by more than
            64 MiB, nor by more than 4 MiB rising at each of its ten samples; a plugin that does
            fails with "leaks about N KiB per frame". Under a sanitizer (LD_PRELOAD of libasan for
            a plugin built with -fsanitize=address) the check runs in its own process and
            LeakSanitizer names each leak's allocation site when it exits.

            Every call into the plugin runs in a worker process locked into the sandbox of `render
            --isolate` (--sandbox strict, the default): it reads only the files the plugin names as
            inputs at the checked parameters, fonts and libraries, writes only a temporary folder,
            and has no network, programs or processes; a denied call fails the check with a finding
            naming it ("sandbox: plugin "x" tried to open …"). A crash or a hang ends only the
            worker. --sandbox require refuses (69) on a kernel without every protection; --sandbox
            off checks in this process (trusted code): there a crash ends the check with
            renderfarm's crash report naming the frame, and a hang prints its failure and exits 1.

            Exit status: 0 every rule holds (warnings allowed), 1 a rule is broken (or the sandbox
            denied a call), 64 usage, 66 no such file, 69 the library is not a usable plugin (or
            --sandbox require on a kernel without every protection).
            """,
        options: [
            params, duration, frames, frameTimeout, memoryFrames, RenderCommand.sandbox, CommonOptions.pluginPath,
        ],
        positionals: 1...1)

    static let params = Option(
        "--params", value: "JSON|FILE",
        help: "Parameters to check with, like a job layer's params (the defaults fill the rest).")

    static let duration = Option("--duration", value: "SECONDS", help: "Length of the checked setting (default 4).")

    static let frames = Option(
        "--frames", value: "all|SET", help: "Render these frames too, each once (default: the five compared frames).")

    static let frameTimeout = Option(
        "--frame-timeout", value: "SECONDS", help: "A checked frame taking longer is a hang (default 30).")

    static let memoryFrames = Option(
        "--memory-frames", value: "N",
        help: "Renders the memory check measures after its warm-up (default 300; 0: none).")

    let arguments: ParsedArguments
    let duration: Double?
    /// `--frame-timeout`: seconds a checked frame may take.
    let timeout: Double
    let memory: Int?
    /// `--sandbox`: how the worker that runs the check is locked in (off: the check runs in this process).
    let sandbox: SandboxMode

    init(_ arguments: ParsedArguments) throws(UsageError) {
        self.arguments = arguments
        duration = try Self.parseDuration(arguments, command: "plugin check")
        timeout =
            try arguments.number(Self.frameTimeout, in: 0.1...86400, command: "plugin check")
            ?? PluginCheck.frameTimeout
        memory = try Self.parseMemoryFrames(arguments, command: "plugin check")
        let mode = try RenderCommand.parseSandbox(arguments, command: "plugin check", needsIsolate: false)
        sandbox = mode == .strict && WorkerSandbox.underSanitizer ? .off : mode
    }

    /// `--duration SECONDS`, from 0.1 s to an hour.
    static func parseDuration(_ arguments: ParsedArguments, command: String) throws(UsageError) -> Double? {
        try arguments.number(duration, in: 0.1...3600, command: command)
    }

    /// `--memory-frames N`, from 0 (no memory check) to 100,000.
    static func parseMemoryFrames(_ arguments: ParsedArguments, command: String) throws(UsageError) -> Int? {
        try arguments.integer(memoryFrames, in: 0...100_000, command: command)
    }

    /// The setting `arguments` ask for: `--duration`, `--memory-frames`, `--frames` and `--params` (a JSON object,
    /// or a file holding one).
    static func setting(_ arguments: ParsedArguments, duration: Double?, memoryFrames: Int?)
        -> Result<PluginCheck.Setting, CommandRefusal>
    {
        var setting = PluginCheck.Setting()
        if let duration { setting.duration = duration }
        if let memoryFrames { setting.memoryFrames = memoryFrames }
        if let text = arguments[Self.frames] {
            switch checkedFrames(text, count: setting.frameCount) {
            case .success(let frames): setting.extraFrames = frames
            case .failure(let refusal): return .failure(refusal)
            }
        }
        guard let params = arguments[Self.params] else { return .success(setting) }
        var text = params
        if !params.hasPrefix("{") {
            do {
                text = String(decoding: try InputFile.read(params, limit: JobLoader.maxFileBytes), as: UTF8.self)
            } catch {
                return .failure(.invalidValue("--params: \(error.description)"))
            }
        }
        guard case .object(let object)? = try? JSONParser.parse(text) else {
            return .failure(
                .invalidValue("--params expects a JSON object or a file holding one, got \"\(params.prefix(60))\""))
        }
        setting.params = object
        return .success(setting)
    }

    /// `--frames all|SET` for a setting of `count` frames: every frame of the set must be one of them.
    static func checkedFrames(_ text: String, count: Int) -> Result<[Int], CommandRefusal> {
        if text == "all" { return .success(Array(0..<count)) }
        do {
            let frames = try FrameSet(parsing: text, limit: count).frames
            if let outside = frames.first(where: { !(0..<count).contains($0) }) {
                return .failure(
                    .invalidValue(
                        "--frames: frame \(outside) is not in the checked setting's frames 0-\(count - 1) "
                            + "(--duration makes it longer)"))
            }
            return .success(frames)
        } catch {
            return .failure(.invalidValue("--frames expects all or a frame set such as 0-30,90: \(error)"))
        }
    }

    func run(_ terminal: Terminal) -> ExitCode {
        if let code = RenderCommand.checkSandbox(sandbox, terminal: terminal) { return code }
        let target = arguments.positionals[0]
        let plugin: LoadedPlugin
        if target.contains("/") || target.hasSuffix(".so") {
            guard FileManager.default.fileExists(atPath: target) else {
                return .reporting(CommandRefusal.noSuchFile(target, what: "file"), to: terminal)
            }
            do {
                plugin = try PluginCatalog.loadLibrary(target)
            } catch {
                return .reporting(error, to: terminal)
            }
        } else {
            let catalog = CommonOptions.catalog(arguments)
            guard let found = catalog[target] else {
                return .reporting(CommandRefusal.noSuchPlugin(target, in: catalog), to: terminal)
            }
            plugin = found
        }
        let setting: PluginCheck.Setting
        switch Self.setting(arguments, duration: duration, memoryFrames: memory) {
        case .success(let made): setting = made
        case .failure(let refusal):
            return .reporting(refusal, to: terminal)
        }
        let info = plugin.info
        terminal.print("checking \(info.id) \(info.version) (\(info.path))")
        let findings: [PluginFinding]
        if sandbox == .off {
            var watched = setting
            watched.progress = FrameProgress.watchdog(timeout: timeout)
            findings = PluginCheck(plugin, setting: watched).run()
        } else {
            // The worker keeps its temporary files here, the one folder it may write; removed after.
            guard let scratch = ScratchFolder.make(prefix: "renderfarm-check-") else {
                return .reporting(CommandRefusal.noScratchFolder(String(cString: strerror(errno))), to: terminal)
            }
            defer { try? FileManager.default.removeItem(atPath: scratch) }
            findings = PluginCheck.runInWorker(
                arguments: CheckWorkerCommand.arguments(
                    library: info.path, check: arguments, sandbox: sandbox, scratch: scratch),
                environment: arguments.environment, frameTimeout: timeout)
        }
        for finding in findings { terminal.print("  \(finding)") }
        let failures = findings.filter { $0.level == .failure }.count
        let warnings = findings.filter { $0.level == .warning }.count
        let passes = findings.filter { $0.level == .pass }.count
        terminal.print(
            "\(info.id): \(passes) passed, \(warnings) warning\(warnings == 1 ? "" : "s"), "
                + "\(failures) failure\(failures == 1 ? "" : "s")")
        return PluginCheck.passed(findings) ? .ok : .framesFailed
    }
}
