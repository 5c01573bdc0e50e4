import Foundation
import RenderFarm
import RenderFarmJobs

/// A subcommand: static metadata, parsing from arguments, and `run`, in the shape of
/// swift-argument-parser's commands.
protocol Command {
    static var spec: CommandSpec { get }
    init(_ arguments: ParsedArguments) throws(UsageError)
    func run(_ terminal: Terminal) -> ExitCode
}

/// Options shared by every command that loads plugins.
enum CommonOptions {
    static let pluginPath = Option(
        "--plugin-path", value: "DIR", help: "Search DIR for plugins first (repeatable).", repeatable: true)

    static let variants = Option(
        "--variants", value: "NAMES",
        help: "Only these variants of jobs with variants: names or 0-based indexes, e.g. alice@2x,3,5-7.")

    static let progress = Option(
        "--progress", value: "MODE", help: "auto (bar on a terminal), plain, json, openjd or none.")

    static let shardMode = Option("--shard-mode", value: "MODE", help: "contiguous (default) or interleaved.")

    /// `--progress MODE` (default auto).
    static func progressMode(_ arguments: ParsedArguments, command: String) throws(UsageError) -> ProgressMode {
        let mode = try arguments.choice(
            progress, ProgressMode.allCases.map(\.rawValue), default: "auto", command: command)
        return ProgressMode(rawValue: mode) ?? .auto
    }

    /// Every `--plugin-path` must be a folder: a mistyped one would otherwise be searched in vain, silently.
    static func checkPluginPaths(_ arguments: ParsedArguments, command: String) throws(UsageError) {
        for folder in arguments.all(pluginPath) {
            var isFolder: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder)
            guard !exists || !isFolder.boolValue else { continue }
            throw UsageError(
                message: "--plugin-path \"\(folder)\" is \(exists ? "not a folder" : "no such folder"); "
                    + "give a folder that holds plugin libraries (librenderfarm-*.so)",
                command: command)
        }
    }

    /// The plugins on the search path `arguments` give; for jobs whose layers use `ids`, only the libraries they
    /// need are loaded (`discover(searchPath:using:)`).
    static func catalog(_ arguments: ParsedArguments, using ids: Set<String>? = nil) -> PluginCatalog {
        let searchPath = PluginCatalog.searchPath(extra: arguments.all(pluginPath), environment: arguments.environment)
        guard let ids else { return PluginCatalog.discover(searchPath: searchPath) }
        return PluginCatalog.discover(searchPath: searchPath, using: ids)
    }

    /// A job file to load: given on the command line, or found by scanning a folder.
    struct JobFile: Equatable {
        var path: String
        var scanned: Bool
    }

    /// Expands job arguments: files as given, folders into their `*.json` entries, sorted. What an entry
    /// is gets decided when it is opened (`JobLoader`), not here.
    static func jobFiles(_ paths: [String]) -> [JobFile] {
        paths.flatMap { path -> [JobFile] in
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue,
                let names = try? FileManager.default.contentsOfDirectory(atPath: path)
            else { return [JobFile(path: path, scanned: false)] }
            return names.filter { $0.hasSuffix(".json") }.sorted().map {
                JobFile(path: (path as NSString).appendingPathComponent($0), scanned: true)
            }
        }
    }

    /// The jobs a command was given, with the files they came from and the problems of files that did not load.
    struct LoadedRun {
        var files: [String]
        var jobs: [LoadedJob]
        var errors: [JobError]
    }

    /// Loads every job of `paths` (the variants `--variants` picks). A folder's entry that is not a regular file
    /// (a named pipe, a socket, a device, a folder) is skipped with a warning. `refusesScaledMatrix: false` lets
    /// --scale replace a `canvas.scale` matrix (the studio's preview workers, which prepare one variant at the
    /// page's scale, as the studio does).
    /// `text`: the contents of the one job file, read in its place (a planning worker of the studio, which checks
    /// an edit before saving it).
    static func loadJobs(
        _ paths: [String], arguments: ParsedArguments, scale: Double?, terminal: Terminal,
        refusesScaledMatrix: Bool = true, text: [UInt8]? = nil
    ) -> Result<LoadedRun, ExitCode> {
        var run = LoadedRun(files: [], jobs: [], errors: [])
        var skipped = 0
        for file in text == nil ? jobFiles(paths) : paths.map({ JobFile(path: $0, scanned: false) }) {
            do throws(JobError) {
                if let text {
                    run.jobs += try JobLoader.loadAll(text, file: file.path)
                } else {
                    run.jobs += try JobLoader.loadAll(file.path)
                }
            } catch {
                if case .notAFile = error, file.scanned {
                    terminal.note("renderfarm: warning: \(error.description); skipped")
                    skipped += 1
                    continue
                }
                run.errors.append(error)
            }
            run.files.append(file.path)
        }
        guard !run.files.isEmpty else {
            let also = skipped > 0 ? " (\(skipped) skipped)" : ""
            let refusal = CommandRefusal.noJobFiles(
                "no job files found in \(paths.map(ShownPath.of).joined(separator: " "))\(also)")
            return .failure(.reporting(refusal, to: terminal))
        }
        if let selection = arguments[variants] {
            switch VariantSelection.pick(selection, from: run.jobs) {
            case .success(let picked): run.jobs = picked
            case .failure(let error):
                let usage = UsageError(message: error.message, command: arguments.spec.name)
                return .failure(.reporting(usage, to: terminal))
            }
        }
        // --scale would give the variants of a canvas.scale matrix one scale: their folders would hold the same frames.
        if refusesScaledMatrix, scale != nil,
            let job = run.jobs.first(where: { $0.variant?.matrixSets("canvas.scale") == true })
        {
            let problem =
                "--scale replaces canvas.scale, which variants.matrix \"canvas.scale\" of \(ShownPath.of(job.file)) "
                + "varies: every variant would render at one scale; leave out --scale"
            return .failure(.reporting(UsageError(message: problem, command: arguments.spec.name), to: terminal))
        }
        return .success(run)
    }

    /// How every command that has them spells the options that set a plan's frame set, scale and output folder.
    static let planOptionNames = (frames: "--frames", scale: "--scale", out: "--out")

    /// `options` with the names the command line gives the frame set, scale and output folder.
    static func named(_ options: PlanOptions) -> PlanOptions {
        var options = options
        (options.names.frames, options.names.scale, options.names.out) = planOptionNames
        return options
    }

    /// Loads every job (`loadJobs`) and runs the first phases on it (plan, open, warm up: `RenderEngine`), and
    /// prints every problem of every job in one pass, in file order (see `JobReport`);
    /// `describeValid` is what a valid job prints on standard output. `beforeCreating` runs once the jobs and
    /// their plugin libraries are loaded, before any instance is created (a worker locks itself in there); an
    /// exit code from it ends the run. `text`, given, is the one job file's text (a worker's `--job-text`).
    static func planJobs(
        _ paths: [String], arguments: ParsedArguments, options: PlanOptions, terminal: Terminal,
        describeValid: ((PlannedJob) -> String)? = nil,
        beforeCreating: (([LoadedJob], PluginCatalog) -> ExitCode?)? = nil,
        beforeWarmUp: ((PlannedRun) -> ExitCode?)? = nil, refusesScaledMatrix: Bool = true, text: [UInt8]? = nil
    ) -> Result<ReadyRun, ExitCode> {
        let options = named(options)
        let loaded = loadJobs(
            paths, arguments: arguments, scale: options.scale, terminal: terminal,
            refusesScaledMatrix: refusesScaledMatrix, text: text)
        guard case .success(let files) = loaded else { return loaded.map { _ in .nothing } }
        let (jobs, loadErrors) = (files.jobs, files.errors)
        var ready = ReadyRun.nothing
        if !jobs.isEmpty {
            let used = Set(jobs.flatMap { $0.spec.layers.map(\.effect) })
            let catalog = catalog(arguments, using: used)
            if catalog.plugins.isEmpty {
                for error in loadErrors { terminal.error(error.description) }
                let code = ExitCode.reporting(CommandRefusal.noPlugins(searchPath: catalog.searchPath), to: terminal)
                reportDiagnostics(catalog, usedIDs: [], terminal: terminal)
                return .failure(code)
            }
            reportDiagnostics(catalog, usedIDs: used, terminal: terminal)
            if let beforeCreating, let code = beforeCreating(jobs, catalog) { return .failure(code) }
            let plan = RenderEngine(catalog: catalog, options: options).plan(jobs)
            // A check of the whole run (the memory budget) before anything is locked or written.
            if loadErrors.isEmpty && plan.errors.isEmpty, let beforeWarmUp, let code = beforeWarmUp(plan) {
                return .failure(code)
            }
            // A file that did not load is a problem of the run too: it writes nothing then.
            ready = plan.openAndWarmUp(otherProblems: !loadErrors.isEmpty)
        }
        let report = JobReport(
            files: files.files, errors: loadErrors + ready.errors, prepared: ready.jobs, terminal: terminal)
        return report.print(describeValid: describeValid).map { _ in ready }
    }

    /// Warns about every library on the search path that was skipped, and about each id the jobs
    /// use that another library also provides (the first on the search path wins).
    static func reportDiagnostics(_ catalog: PluginCatalog, usedIDs: Set<String>, terminal: Terminal) {
        for diagnostic in catalog.diagnostics {
            if case .duplicateID(let id, let path, let firstPath) = diagnostic {
                guard usedIDs.contains(id) else { continue }
                terminal.note(
                    "renderfarm: warning: plugin id \"\(id)\" is provided by \(firstPath) and by \(path); "
                        + "using \(firstPath) (first on the search path)")
            } else {
                terminal.note("renderfarm: warning: skipped \(diagnostic)")
            }
        }
    }
}
