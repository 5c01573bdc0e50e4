extension RenderFarmCLI {
    /// The plugin SDK's commands: scaffolding, conformance checks, shell completions, man page.
    static var sdkCommands: [any Command.Type] {
        [PluginNewCommand.self, PluginCheckCommand.self, CompletionCommand.self, ManPageCommand.self]
    }

    /// A command's name and arguments; the two words of a group's subcommand (`plugin new`)
    /// become one name, e.g. `["plugin", "new", "x"]` → `("plugin new", ["plugin new", "x"])`.
    static func groupedCommand(_ arguments: [String]) -> (String, [String]) {
        guard arguments.count > 1, let group = arguments.first,
            commands.contains(where: { $0.spec.name.hasPrefix(group + " ") })
        else { return (arguments.first ?? "", arguments) }
        let name = group + " " + arguments[1]
        return (name, [name] + arguments.dropFirst(2))
    }

    /// For a group's name without a known subcommand (`renderfarm plugin`): what to type instead.
    static func groupUsage(_ group: String) -> String? {
        let subcommands = commands.map { $0.spec.name }.filter { $0.hasPrefix(group + " ") }
        guard !subcommands.isEmpty else { return nil }
        return "`renderfarm \(group)` needs a subcommand: \(subcommands.joined(separator: ", "))"
            + "; see `renderfarm \(subcommands[0]) --help`"
    }
}
