import FileInput
import RenderFarm
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

/// `renderfarm man-page`: prints renderfarm(1) in roff, generated from the commands' help.
struct ManPageCommand: Command {
    static let spec = CommandSpec(
        name: "man-page",
        abstract: "Print the renderfarm(1) manual page (roff), generated from the commands' help.",
        synopsis: "man-page",
        examples: [
            "renderfarm man-page",
            "renderfarm man-page --article JobFileReference.md --name renderfarm-job --section 5",
        ],
        discussion: """
            `make install` writes it to <prefix>/share/man/man1/renderfarm.1. With --article, prints
            that DocC article as a manual page instead: `make install` makes renderfarm-job(5) from
            the job file reference and renderfarm-plugin(7) from the guide to writing a plugin.
            """,
        options: [article, name, section],
        positionals: 0...0)

    static let article = Option(
        "--article", value: "FILE", help: "A DocC article (Markdown) to print as a manual page.")
    static let name = Option("--name", value: "NAME", help: "The page's name with --article, e.g. renderfarm-job.")
    static let section = Option("--section", value: "N", help: "The page's manual section with --article (1-9).")

    let arguments: ParsedArguments
    let sectionNumber: Int

    init(_ arguments: ParsedArguments) throws(UsageError) {
        self.arguments = arguments
        sectionNumber = Int(try arguments.number(Self.section, in: 1...9, command: "man-page") ?? 1)
        if arguments[Self.article] != nil, arguments[Self.name] == nil {
            throw UsageError(
                message: "--article needs --name (the page's name, e.g. renderfarm-job)", command: "man-page")
        }
    }

    func run(_ terminal: Terminal) -> ExitCode {
        guard let article = arguments[Self.article], let name = arguments[Self.name] else {
            let page = ManPage.render(
                commands: CommandList.listed.map { $0.spec }, version: rendererVersion)
            terminal.print(withoutFinalNewline(page))
            return .ok
        }
        let markdown: String
        do {
            markdown = String(decoding: try InputFile.read(article, limit: 1 << 22), as: UTF8.self)
        } catch {
            return .reporting(CommandRefusal.unreadableOption("--article", error), to: terminal)
        }
        let page = ArticleManPage.render(
            markdown, name: name, section: sectionNumber, version: rendererVersion)
        terminal.print(withoutFinalNewline(page))
        return .ok
    }
}

/// `Terminal.print` adds the final newline itself.
private func withoutFinalNewline(_ text: String) -> String {
    text.hasSuffix("\n") ? String(text.dropLast()) : text
}
