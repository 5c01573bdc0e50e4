import Foundation
import Locking
import RenderFarmJobs
import Testing

@testable import RenderFarmCLI

/// `RenderFarmCLI` run in this process with a captured terminal: what a command line prints and
/// returns, without launching the binary (the way swift-argument-parser's `AssertParse` and
/// `AssertHelp` test a parser). The engine runs here as it does in the binary — plans, locks,
/// renders, journals, encodes with ffmpeg — so engine behaviour is tested in process, with the
/// environment variables a test gives (`RENDERFARM_FFMPEG`, `PATH`, `SLURM_ARRAY_TASK_ID`, …);
/// `--isolate`'s workers, `plugin check`'s sandbox and `submit`'s scripts run the built binary.
/// Binary launches stay for what needs a process of its own: signals, the exit status of a crash
/// or a hang, what a crashing worker or a plugin writes to the standard streams it shares with its
/// parent, a library loaded twice, another working folder, the workers' environment, Slurm, pipes.
enum CLI {
    typealias Result = Binary.Result

    /// Runs the command line `arguments` (without the program name) in the package's folder, as
    /// `Binary.run` does, with the variables of `environment` set for it.
    @discardableResult
    static func run(_ arguments: [String], environment: [String: String] = [:]) -> Result {
        _ = inPackageFolder
        let out = Locked("")
        let err = Locked("")
        let terminal = Terminal(
            out: { text in out.withLock { $0 += text } }, err: { text in err.withLock { $0 += text } })
        let variables = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let code = RenderFarmCLI.run(arguments, terminal: terminal, environment: variables)
        return Result(status: code.rawValue, signal: nil, stdout: out.withLock { $0 }, stderr: err.withLock { $0 })
    }

    /// Relative paths of in-process commands (`jobs/…`) name the package's files, as they do for
    /// `Binary.run`'s processes: the test process works in the package's folder, set once. Worker processes
    /// (`--isolate`, `plugin check`'s sandbox) and `submit`'s scripts run the built binary, not this one.
    private static let inPackageFolder: Void = {
        _ = FileManager.default.changeCurrentDirectoryPath(Binary.packageRoot.path)
        PluginCatalog.runWorkers(with: Binary.executable)
    }()

    /// Every listed command's spec, with its name as typed (`plugin new` is two words).
    static var commands: [(words: [String], spec: CommandSpec)] {
        RenderFarmCLI.commands.map { ($0.spec.name.split(separator: " ").map(String.init), $0.spec) }
    }

    /// `--plugin-path folder` for the command `name` (one word) when its spec takes the option, else nothing.
    static func pluginPath(_ folder: String, for name: String) -> [String] {
        let option = CommonOptions.pluginPath
        let spec = commands.first { $0.words == [name] }?.spec
        return spec?.options.contains { $0.names == option.spec.names } == true ? option.words(folder) : []
    }

    /// A file of the repository, by an absolute path (an in-process test cannot change the folder).
    static func repositoryFile(_ path: String) -> String { Binary.packageRoot.appendingPathComponent(path).path }
}

/// Expects `arguments` to be refused before anything runs: exit 64, nothing on standard output, and
/// exactly `message` then the pointer to the command's help on standard error.
func expectUsageError(
    _ arguments: [String], _ message: String, command: String, sourceLocation: SourceLocation = #_sourceLocation
) {
    let result = CLI.run(arguments)
    #expect(result.status == 64, "\(arguments): \(result.stderr)", sourceLocation: sourceLocation)
    #expect(result.stdout.isEmpty, "\(arguments)", sourceLocation: sourceLocation)
    let expected = "renderfarm: error: \(message)\nrenderfarm: error: see `renderfarm \(command) --help`\n"
    #expect(result.stderr == expected, "\(arguments)", sourceLocation: sourceLocation)
}

/// Expects `words --help` and `help words` to print exactly `spec.help` and exit 0.
func expectHelp(_ words: [String], _ spec: CommandSpec, sourceLocation: SourceLocation = #_sourceLocation) {
    for arguments in [words + ["--help"], ["help"] + words, words + ["-h"]] {
        let result = CLI.run(arguments)
        #expect(result.status == 0, "\(arguments): \(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stdout == spec.help + "\n", "\(arguments)", sourceLocation: sourceLocation)
        #expect(result.stderr.isEmpty, "\(arguments)", sourceLocation: sourceLocation)
    }
}
