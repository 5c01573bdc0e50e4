extension RenderFarmCLI {
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

    /// `renderfarm help plugin` (or `plugin --help`): a group's subcommands and where to read on.
    static func groupHelp(_ group: String) -> String? {
        let subcommands = commands.map { $0.spec }.filter { $0.name.hasPrefix(group + " ") }
        guard !subcommands.isEmpty else { return nil }
        let width = (subcommands.map { $0.name.count }.max() ?? 0) + 2
        let list = subcommands.map {
            "  " + $0.name.padding(toLength: width, withPad: " ", startingAt: 0) + $0.abstract
        }
        var text = """
            USAGE: renderfarm \(group) SUBCOMMAND [OPTIONS]

            SUBCOMMANDS:
            \(list.joined(separator: "\n"))

            Run `renderfarm help \(subcommands[0].name)` for a subcommand's options and examples.
            """
        if group == "plugin" {
            text += """

                Writing a plugin, in C or Swift: `man renderfarm-plugin` (renderfarm-plugin(7)), the ABI in
                <prefix>/include/renderfarm/renderfarm_plugin.h, EffectKit in
                <prefix>/share/renderfarm/swift/EffectKit, and the documentation as web pages in
                <prefix>/share/doc/renderfarm, served by `renderfarm studio` at /docs/ or by any web server
                (`python3 -m http.server -d` that folder, then open /docs/EffectKit/documentation/effectkit/).
                The job file: `man renderfarm-job`.
                """
        }
        return text
    }
}
