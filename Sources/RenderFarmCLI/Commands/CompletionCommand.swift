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
            withoutFinalNewline(ShellCompletion.script(for: shell, commands: RenderFarmCLI.commands.map { $0.spec })))
        return .ok
    }
}

/// `renderfarm man-page`: prints renderfarm(1) in roff, generated from the commands' help.
struct ManPageCommand: Command {
    static let spec = CommandSpec(
        name: "man-page",
        abstract: "Print the renderfarm(1) manual page (roff), generated from the commands' help.",
        synopsis: "man-page",
        examples: ["renderfarm man-page"],
        discussion: "`make install` writes it to <prefix>/share/man/man1/renderfarm.1.",
        options: [],
        positionals: 0...0)

    init(_ arguments: ParsedArguments) throws(UsageError) {}

    func run(_ terminal: Terminal) -> ExitCode {
        let page = ManPage.render(commands: RenderFarmCLI.commands.map { $0.spec }, version: rendererVersion)
        terminal.print(withoutFinalNewline(page))
        return .ok
    }
}

/// `Terminal.print` adds the final newline itself.
private func withoutFinalNewline(_ text: String) -> String {
    text.hasSuffix("\n") ? String(text.dropLast()) : text
}
