import Foundation
import RenderFarm
import RenderFarmJobs
import RenderFarmManual
import RenderFarmOutput
import StrictJSON

/// The `renderfarm` command line: parses arguments, runs one command, returns its exit code.
package enum RenderFarmCLI {
    static var commands: [any Command.Type] { CommandList.listed }
    static var hiddenCommands: [any Command.Type] { CommandList.hidden }

    static var overview: String {
        let width = (commands.map { $0.spec.name.count }.max() ?? 0) + 2
        let list = commands.map {
            "  " + $0.spec.name.padding(toLength: width, withPad: " ", startingAt: 0) + $0.spec.abstract
        }
        return """
            OVERVIEW: RenderFarm renders programmatic motion graphics (iOS-style effects) into PNG frames.

            USAGE: renderfarm COMMAND [OPTIONS]

            COMMANDS:
            \(list.joined(separator: "\n"))

            Run `renderfarm COMMAND --help` or `renderfarm help COMMAND` for a command's options and examples,
            and `renderfarm docs` for the manual's topics (`renderfarm help TOPIC` prints one).
            `renderfarm --version` prints the version. A command whose output is closed by its reader
            (piped into `head`) stops quietly with exit status 141.
            """
    }

    /// Runs the command line `arguments` (without the program name).
    package static func run(
        _ arguments: [String], terminal: Terminal = .standard,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> ExitCode {
        guard let name = arguments.first else {
            terminal.note(overview)
            return .usage
        }
        switch name {
        case "-h", "--help", "help":
            guard arguments.count > 1 else {
                terminal.print(overview)
                return .ok
            }
            // `help plugin new` names a group's subcommand by two words, like the command itself.
            let (helpName, _) = groupedCommand(Array(arguments.dropFirst()))
            guard let command = commands.first(where: { $0.spec.name == helpName }) else {
                if arguments.count == 2, let help = groupHelp(arguments[1]) {
                    terminal.print(help)
                    return .ok
                }
                // `help composing-layers [--width N]`: a topic of the manual, as `docs` prints it.
                if Manual.topic(named: arguments[1]) != nil {
                    return run(["docs"] + arguments.dropFirst(), terminal: terminal)
                }
                terminal.error(groupUsage(arguments[1]) ?? unknownCommand(arguments[1]))
                return .usage
            }
            terminal.print(command.spec.help)
            return .ok
        case "--version", "version":
            // The plugin ABI beside the version: what a plugin must be built for (WritingAPlugin, "Compatibility").
            terminal.print("renderfarm \(rendererVersion) (plugin ABI v\(LoadedPlugin.abiVersion))")
            return .ok
        default:
            break
        }
        if arguments.count == 2, ["-h", "--help"].contains(arguments[1]), let help = groupHelp(name) {
            terminal.print(help)
            return .ok
        }
        // `plugin new`, `plugin check`: a group's subcommand is named by its first two words.
        let (commandName, arguments) = groupedCommand(arguments)
        guard let command = (commands + hiddenCommands).first(where: { $0.spec.name == commandName }) else {
            if let usage = groupUsage(name) {
                terminal.error(usage)
                return .usage
            }
            terminal.error(unknownCommand(name))
            return .usage
        }
        do {
            let parsed = try ParsedArguments(Array(arguments.dropFirst()), spec: command.spec, environment: environment)
            if parsed.wantsHelp {
                terminal.print(command.spec.help)
                return .ok
            }
            try CommonOptions.checkPluginPaths(parsed, command: command.spec.name)
            return try command.init(parsed).run(terminal)
        } catch {
            return .reporting(error, to: terminal)
        }
    }

    static func unknownCommand(_ name: String) -> String {
        let hint =
            Suggestion.closest(to: name, in: commands.map { $0.spec.name }).map { " (did you mean \($0)?)" } ?? ""
        return "unknown command \"\(name)\"\(hint); run `renderfarm --help` for the list"
    }

    /// Runs the process's own command line and exits with the command's code. Process-wide signal
    /// dispositions are set here, by the command line only: SIGPIPE is ignored, so a closed pipe is a
    /// write error (EPIPE) where it happens: `Terminal.standard` then exits 141, and a pipe to ffmpeg
    /// or a worker reports a failed write instead of ending the render. Results get a descriptor of their
    /// own before any plugin loads, and plugins' standard output goes to standard error (`ResultsOutput`).
    package static func main() -> Never {
        signal(SIGPIPE, SIG_IGN)
        _ = ResultsOutput.descriptor
        LoadedPlugin.installFaultReport(
            hint: "; finished frames are kept (run again to resume), and `render --isolate` contains such crashes")
        exit(run(Array(CommandLine.arguments.dropFirst())).rawValue)
    }
}
