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
}
