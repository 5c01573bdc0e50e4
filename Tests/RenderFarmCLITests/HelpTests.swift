import Foundation
import Testing

/// Issue 12, item 6: every command's help has a complete usage line and examples that parse (in process).
@Suite("help")
struct HelpTests {
    /// The command names listed by `renderfarm --help`.
    static func commands() -> [String] {
        let overview = CLI.run(["--help"]).stdout
        let section = overview.components(separatedBy: "COMMANDS:\n").last ?? ""
        // A name is one word or a group's two (`plugin new`), then two spaces or more before the abstract.
        return section.split(separator: "\n").prefix { $0.hasPrefix("  ") }.compactMap {
            $0.dropFirst(2).components(separatedBy: "  ").first
        }
    }

    @Test("every command: usage lists every option, 1 to 3 examples, help COMMAND equals COMMAND --help")
    func complete() {
        let commands = Self.commands()
        #expect(commands.count >= 11, "\(commands)")
        for command in commands {
            let words = command.split(separator: " ").map(String.init)
            let help = CLI.run(words + ["--help"])
            #expect(help.status == 0, "\(command): \(help.stderr)")
            #expect(CLI.run(["help"] + words).stdout == help.stdout)
            let usage = help.stdout.components(separatedBy: "\n\n").first { $0.hasPrefix("USAGE:") } ?? ""
            let options =
                help.stdout.components(separatedBy: "OPTIONS:\n").last?
                .components(separatedBy: "\n\n").first ?? ""
            for line in options.split(separator: "\n") {
                let name = String(line.dropFirst(2).prefix { $0 != " " && $0 != "," })
                guard name != "-h" else { continue }
                #expect(
                    usage.contains("[\(name)") || usage.contains(" \(name) "), "\(command): \(name) not in \(usage)")
            }
            let examples =
                help.stdout.components(separatedBy: "EXAMPLES:\n").dropFirst().first?
                .split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) } ?? []
            #expect((1...3).contains(examples.count), "\(command): \(examples)")
            for example in examples {
                // With --help the parser checks every option of the example and runs nothing.
                let exampleWords = example.split(separator: " ").map(String.init)
                #expect(exampleWords.first == "renderfarm" && exampleWords.dropFirst().starts(with: words))
                let parsed = CLI.run(Array(exampleWords.dropFirst()) + ["--help"])
                #expect(parsed.status == 0, "\(example): \(parsed.stderr)")
            }
        }
    }

    @Test("render's usage names the options it used to leave out")
    func renderUsage() {
        let help = CLI.run(["help", "render"]).stdout
        for option in ["--output-root DIR", "--shard-mode MODE", "--plugin-path DIR", "--verbose"] {
            #expect(help.contains("[\(option)"), "\(option)")
        }
    }

    @Test("help with an unknown command exits 64 with a suggestion")
    func unknown() {
        let result = CLI.run(["help", "rendr"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("did you mean render?"))
    }
}
