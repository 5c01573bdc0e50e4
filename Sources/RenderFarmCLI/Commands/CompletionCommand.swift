import FileInput
import Foundation
import RenderFarm
import RenderFarmManual
import RenderFarmOutput

/// `renderfarm completion bash|zsh|fish`: prints a completion script generated from the specs.
struct CompletionCommand: Command {
    static let spec = CommandSpec(
        name: "completion",
        abstract: "Print the shell completion script for bash, zsh or fish.",
        synopsis: "completion bash|zsh|fish",
        examples: [
            "renderfarm completion bash",
            "renderfarm completion zsh",
        ],
        discussion: """
            `make install` installs all three. To try one in the current shell:
              bash: source <(renderfarm completion bash)
              zsh:  source <(renderfarm completion zsh)
              fish: renderfarm completion fish | source
            """,
        options: [],
        positionals: 1...1)

    let shell: ShellCompletion.Shell

    init(_ arguments: ParsedArguments) throws(UsageError) {
        let name = arguments.positionals.first ?? ""
        guard let shell = ShellCompletion.Shell(rawValue: name) else {
            throw UsageError(
                message: "unknown shell \"\(name)\" (expected bash, zsh or fish)", command: Self.spec.name)
        }
        self.shell = shell
    }

    func run(_ terminal: Terminal) -> ExitCode {
        terminal.print(
            withoutFinalNewline(ShellCompletion.script(for: shell, commands: CommandList.listed.map { $0.spec })))
        return .ok
    }
}

/// `renderfarm man-page`: prints renderfarm(1) in roff, generated from the commands' help, or one topic of
/// the manual as its page (`renderfarm docs --man DIR` writes them all).
struct ManPageCommand: Command {
    static let spec = CommandSpec(
        name: "man-page",
        abstract: "Print the renderfarm(1) manual page (roff), generated from the commands' help.",
        synopsis: "man-page",
        examples: [
            "renderfarm man-page",
            "renderfarm man-page --article composing-layers",
            "renderfarm man-page --article my-notes.md --name my-notes --section 7",
        ],
        discussion: """
            With --article, prints a topic of the manual (`renderfarm docs` lists them) as its manual
            page instead, or any Markdown FILE written as DocC writes articles. `make install` installs
            every page with `renderfarm docs --man`.
            """,
        options: [article, name, section],
        positionals: 0...0)

    static let article = Option(
        "--article", value: "TOPIC|FILE", help: "A topic of the manual, or a Markdown file, to print as a manual page.")
    static let name = Option("--name", value: "NAME", help: "The page's name with --article (default: the topic's).")
    static let section = Option("--section", value: "N", help: "The page's manual section with --article (1-9).")

    let arguments: ParsedArguments
    let sectionNumber: Int?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        self.arguments = arguments
        sectionNumber = try arguments.number(Self.section, in: 1...9, command: "man-page").map { Int($0) }
    }

    func run(_ terminal: Terminal) -> ExitCode {
        guard let article = arguments[Self.article] else {
            let page = ManPage.render(commands: CommandList.listed.map { $0.spec }, version: rendererVersion)
            terminal.print(withoutFinalNewline(page))
            return .ok
        }
        let topic: ManualTopic
        if let known = Manual.topic(named: article) {
            topic = known
        } else {
            do {
                let markdown = String(decoding: try InputFile.read(article, limit: 1 << 22), as: UTF8.self)
                let file = (article as NSString).lastPathComponent
                topic = ManualTopic(module: "", file: file, markdown: markdown)
            } catch {
                return .reporting(CommandRefusal.unreadableOption("--article", error), to: terminal)
            }
        }
        let page = topic.man(version: rendererVersion, name: arguments[Self.name], section: sectionNumber)
        terminal.print(withoutFinalNewline(page))
        return .ok
    }
}

/// `Terminal.print` adds the final newline itself.
private func withoutFinalNewline(_ text: String) -> String {
    text.hasSuffix("\n") ? String(text.dropLast()) : text
}
