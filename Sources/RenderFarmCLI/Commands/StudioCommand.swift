import Dispatch
import FileInput
import Foundation
import RenderFarm
import RenderFarmJobs
import RenderFarmStudio

/// `renderfarm studio [JOB|DIR]`: a local web page to author a job live and watch renders.
struct StudioCommand: Command {
    static let spec = CommandSpec(
        name: "studio",
        abstract: "Serve a local web page to author a job live and watch the renders under a folder.",
        synopsis: "studio [JOB|DIR]",
        examples: [
            "renderfarm studio jobs/live-hearts.json",
            "renderfarm studio jobs/live-hearts.json --root . --port 8090",
        ],
        discussion: """
            Prints the page's URL and serves until SIGINT or SIGTERM. The author view shows the job
            file with live validation (validate's messages), controls generated from each layer's
            plugin parameters, and a timeline of frames drawn on demand; a change that validates is
            written to the job file atomically. The farm view shows every render folder under the
            root as `status --json` reads it, updated live; its render button runs `render` on the
            timeline's in/out range. With a folder, its first job file is
            edited. Binds 127.0.0.1 unless --host is given; any other address needs a token, which
            every request must then carry (Authorization: Bearer, the X-RenderFarm-Token header, or
            the cookie the printed URL sets, named after the port). Give the token in a file
            (--token-file) or the environment variable RENDERFARM_STUDIO_TOKEN rather than --token,
            which other users can read in ps. Only files under the root (default: the job's folder)
            are read or written. The installed documentation (make install) is served at /docs/.
            Plugins are third-party code: by default the timeline's frames are drawn by worker
            processes sandboxed like the workers of `render --isolate` (--sandbox strict), and the render
            button runs `render --isolate --sandbox strict`. --sandbox require refuses to start without
            every protection; --sandbox off opts out: frames drawn in the studio's own process and a
            plain `render` (trusted code; with --isolate, unsandboxed workers). The studio still loads
            the plugins and makes their instances itself to validate and plan the job (article
            UntrustedPlugins).
            Exit codes: 0 stopped by a signal, 64 bad options, 66 no job file, 69 cannot listen (or
            --sandbox require on a kernel without every protection).
            """,
        options: [
            port, host, token, tokenFile, root, docs, sandbox, isolate,
            CommonOptions.pluginPath,
        ],
        positionals: 0...1)

    static let port = Option("--port", value: "N", help: "Port to listen on (default 8080; 0 picks a free one).")
    static let host = Option("--host", value: "ADDR", help: "Numeric address to bind (default 127.0.0.1).")
    static let token = Option(
        "--token", value: "T", help: "Require T on every request (needed off loopback; visible in ps).")
    static let tokenFile = Option(
        "--token-file", value: "F", help: "Require the token in file F (its first line) on every request.")
    /// The environment variable a token may come from instead of the command line.
    static let tokenVariable = "RENDERFARM_STUDIO_TOKEN"
    static let root = Option(
        "--root", value: "DIR", help: "Folder served and searched for renders (default: the job's).")

    static let docs = Option(
        "--docs", value: "DIR",
        help: "Folder whose docs/<Module>/ the page serves at /docs/ (default: <prefix>/share/doc/renderfarm).")

    /// The studio's own spelling of render's `--sandbox` (same name and words, parsed by
    /// `RenderCommand.parseSandbox`): here it needs no --isolate, and `off` means previews in this process.
    static let sandbox = Option(
        "--sandbox", value: "MODE",
        help: "Previews and render button: strict (default: sandboxed workers), require (every protection, "
            + "or exit 69), off (in this process, trusted).")
    static let isolate = Flag(
        "--isolate", help: "Workers even with --sandbox off (then unsandboxed: crash containment only).")

    let arguments: ParsedArguments
    let port: Int
    let givenToken: String?
    /// How the previews' workers are locked in (`--sandbox`, strict by default); nil: previews in this
    /// process (`--sandbox off` without `--isolate`).
    let sandbox: SandboxMode?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        self.arguments = arguments
        let mode = try RenderCommand.parseSandbox(arguments, command: "studio", needsIsolate: false)
        sandbox = mode == .off && !arguments[Self.isolate] ? nil : mode
        let text = arguments[Self.port] ?? "8080"
        guard let port = Int(text), (0...65535).contains(port) else {
            throw UsageError(message: "--port \(text) is not a port number (0-65535)", command: "studio")
        }
        self.port = port
        givenToken = try Self.token(arguments, environment: ProcessInfo.processInfo.environment)
    }

    /// The token from --token, --token-file or `RENDERFARM_STUDIO_TOKEN`, in that order; nil for none.
    static func token(_ arguments: ParsedArguments, environment: [String: String]) throws(UsageError) -> String? {
        if arguments[token] != nil && arguments[tokenFile] != nil {
            throw UsageError(message: "give --token or --token-file, not both", command: "studio")
        }
        if let given = arguments[token] { return given }
        if let file = arguments[tokenFile] {
            guard let bytes = try? InputFile.read(file, limit: 4096) else {
                throw UsageError(
                    message: "--token-file \(file): cannot read it (a file of at most 4096 bytes)", command: "studio")
            }
            let line = String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline).first ?? ""
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty else {
                throw UsageError(message: "--token-file \(file): its first line is empty", command: "studio")
            }
            return trimmed
        }
        return environment[tokenVariable].flatMap { $0.isEmpty ? nil : $0 }
    }

    func run(_ terminal: Terminal) -> ExitCode {
        let given = arguments.positionals.first ?? "."
        guard let jobFile = CommonOptions.jobFiles([given]).first?.path, FileManager.default.fileExists(atPath: jobFile)
        else {
            return .reporting(CommandRefusal.noJobFile(given), to: terminal)
        }
        var isDirectory: ObjCBool = false
        let folder = FileManager.default.fileExists(atPath: given, isDirectory: &isDirectory) && isDirectory.boolValue
        if let sandbox, let code = RenderCommand.checkSandbox(sandbox, terminal: terminal) { return code }
        // The installed layout: <prefix>/bin/renderfarm, <prefix>/share/doc/renderfarm.
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var options = StudioOptions(
            jobFile: jobFile, root: arguments[Self.root] ?? (folder ? given : nil),
            host: arguments[Self.host] ?? "127.0.0.1", port: port, token: givenToken,
            pluginSearchPath: PluginCatalog.searchPath(
                extra: arguments.all(CommonOptions.pluginPath), environment: arguments.environment),
            render: Self.renderCommand(executable: executable.path, sandbox: sandbox),
            docsFolder: arguments[Self.docs]
                ?? executable.deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("share/doc/renderfarm").path,
            historyFolder: StudioHistory.defaultFolder(environment: arguments.environment),
            environment: arguments.environment)
        if let sandbox {
            options.previewWorker = { jobFile, variant, scale, folders in
                WorkerCommand.arguments(
                    jobFile: jobFile, variant: variant, scale: scale, pluginFolders: folders, sandbox: sandbox)
            }
        }
        let server: StudioServer
        do {
            server = try StudioServer(options)
        } catch {
            return .reporting(error, to: terminal)
        }
        // Listening for the signals before the URL is printed: whoever reads it may signal at once.
        let stop = DispatchSemaphore(value: 0)
        let queue = DispatchQueue(label: "renderfarm.studio.signals")
        let sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { stop.signal() }
            source.resume()
            return source
        }
        terminal.print(server.url)
        terminal.note("renderfarm studio: editing \(options.jobFile), renders under \(options.root); Ctrl-C stops")
        stop.wait()
        server.stop()
        for source in sources { source.cancel() }
        terminal.note("renderfarm studio: stopped")
        return .ok
    }

    /// The render button's command lines, from render's and encode's option tables: progress as JSON
    /// lines, in workers sandboxed as the previews are (`sandbox`; nil: a plain render). A video is
    /// `render --video`, or, since workers draw PNG frames, the frames into the request's scratch folder
    /// and then `encode` of them.
    static func renderCommand(executable: String, sandbox: SandboxMode?) -> RenderCommandLine {
        let isolation = sandbox.map {
            [RenderCommand.isolate.spec.commandLineName] + RenderCommand.sandbox.words($0.rawValue)
        }
        return RenderCommandLine(executable: executable) { request in
            let progress = CommonOptions.progress.words(ProgressMode.json.rawValue)
            let plugins = request.pluginFolders.flatMap(CommonOptions.pluginPath.words)
            let render =
                [RenderCommand.spec.name, request.jobFile] + progress + (isolation ?? [])
                + (request.frames.map(RenderCommand.frames.words) ?? []) + plugins
            guard let video = request.video else { return [render] }
            let preset = EncodeCommand.preset.words(video.preset)
            guard isolation != nil else { return [render + RenderCommand.video.words(video.file) + preset] }
            return [
                render + RenderCommand.out.words(request.scratch),
                [EncodeCommand.spec.name, request.scratch] + EncodeCommand.output.words(video.file) + preset
                    + [EncodeCommand.allowMissing.spec.commandLineName] + progress + plugins,
            ]
        }
    }
}
