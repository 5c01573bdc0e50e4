import Foundation
import Locking
import Testing

@testable import RenderFarmCLI

/// `RenderFarmCLI` run in this process with a captured terminal: what a command line prints and
/// returns, without launching the binary (the way swift-argument-parser's `AssertParse` and
/// `AssertHelp` test a parser). Binary launches stay for what needs a real process: signals,
/// exit statuses of a crash, plugins in workers, ffmpeg, Slurm, pipes.
enum CLI {
    struct Result: Sendable {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs the command line `arguments` (without the program name).
    static func run(_ arguments: [String]) -> Result {
        let out = Locked("")
        let err = Locked("")
        let terminal = Terminal(
            out: { text in out.withLock { $0 += text } }, err: { text in err.withLock { $0 += text } })
        let code = RenderFarmCLI.run(arguments, terminal: terminal)
        return Result(status: code.rawValue, stdout: out.withLock { $0 }, stderr: err.withLock { $0 })
    }

    /// Every listed command's spec, with its name as typed (`plugin new` is two words).
    static var commands: [(words: [String], spec: CommandSpec)] {
        RenderFarmCLI.commands.map { ($0.spec.name.split(separator: " ").map(String.init), $0.spec) }
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
