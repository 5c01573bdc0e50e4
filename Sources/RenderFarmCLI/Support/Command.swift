import Foundation
import RenderFarm

/// A subcommand: static metadata, parsing from arguments, and `run`, in the shape of
/// swift-argument-parser's commands.
protocol Command {
    static var spec: CommandSpec { get }
    init(_ arguments: ParsedArguments) throws(UsageError)
    func run(_ terminal: Terminal) -> ExitCode
}

/// Options shared by every command that loads plugins.
enum CommonOptions {
    static let pluginPath = OptionSpec(
        names: ["--plugin-path"], value: "DIR", help: "Search DIR for plugins first (repeatable).", repeatable: true)

    static func catalog(_ arguments: ParsedArguments) -> PluginCatalog {
        PluginCatalog.discover(searchPath: PluginCatalog.searchPath(extra: arguments.all("--plugin-path")))
    }

    /// Expands job arguments: files as given, folders into their `*.json` files, sorted.
    static func jobFiles(_ paths: [String]) -> [String] {
        paths.flatMap { path -> [String] in
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue,
                let names = try? FileManager.default.contentsOfDirectory(atPath: path)
            else { return [path] }
            return names.filter { $0.hasSuffix(".json") }.sorted().map { (path as NSString).appendingPathComponent($0) }
        }
    }

    /// Loads and prepares every job against the catalog, and prints every problem of every job in one
    /// pass, in file order (see `JobReport`); `describeValid` is what a valid job prints on standard output.
    static func prepare(
        _ paths: [String], arguments: ParsedArguments, options: PlanOptions, terminal: Terminal,
        describeValid: ((PreparedJob) -> String)? = nil
    ) -> Result<[PreparedJob], ExitCode> {
        let files = jobFiles(paths)
        guard !files.isEmpty else {
            terminal.error("no job files found in \(paths.map(ShownPath.of).joined(separator: " "))")
            return .failure(.noInput)
        }
        let loads = files.map { file in Result { () throws(JobError) in try JobLoader.load(file) } }
        let loaded = loads.compactMap { try? $0.get() }
        var plans: [Result<PreparedJob, JobError>] = []
        if !loaded.isEmpty {
            let catalog = catalog(arguments)
            if catalog.plugins.isEmpty {
                for case .failure(let error) in loads { terminal.error(error.description) }
                terminal.error("no plugins found; searched: \(catalog.searchPath.joined(separator: ", "))")
                catalog.diagnostics.forEach { terminal.note("renderfarm: warning: \($0)") }
                return .failure(.unavailable)
            }
            plans = RenderPlan.prepareEach(loaded, catalog: catalog, options: options)
        }
        // Back into file order: a file that did not load has its load error, the others their plan.
        var remaining = plans[...]
        let results = loads.map { load -> Result<PreparedJob, JobError> in
            switch load {
            case .failure(let error): return .failure(error)
            case .success: return remaining.popFirst() ?? .failure(.missing(file: ""))
            }
        }
        return JobReport(results: results, terminal: terminal).print(describeValid: describeValid)
    }
}
