import RenderFarm
import RenderFarmJobs
import StrictJSON

/// `renderfarm plugins [ID] [--json]`: what effects are installed and their parameters.
struct PluginsCommand: Command {
    static let spec = CommandSpec(
        name: "plugins",
        abstract: "List the installed effect plugins and their parameters.",
        synopsis: "plugins [ID]",
        examples: [
            "renderfarm plugins",
            "renderfarm plugins physics-bounce",
            "renderfarm plugins --json --plugin-path ./my-plugins",
        ],
        discussion: """
            Plugins are found on --plugin-path, then RENDERFARM_PLUGIN_PATH (colon-separated),
            then the user's plugin folder $XDG_DATA_HOME/renderfarm/plugins (by default
            ~/.local/share/renderfarm/plugins: a plugin copied there needs no root and no
            variable), then the folder of the renderfarm executable, then
            <prefix>/lib/renderfarm/plugins.
            Libraries that cannot be used (not a plugin, another ABI, a parameter table that breaks
            a rule, a second library with one id) are listed last, each with its first problem (with
            ID or --json: as warnings on standard error); `renderfarm plugin check LIBRARY` lists
            every problem.
            """,
        options: [
            json, CommonOptions.pluginPath,
        ],
        positionals: 0...1)

    static let json = Flag("--json", help: "Print JSON instead of text.")

    let arguments: ParsedArguments

    init(_ arguments: ParsedArguments) throws(UsageError) {
        self.arguments = arguments
    }

    func run(_ terminal: Terminal) -> ExitCode {
        let catalog = CommonOptions.catalog(arguments)
        let listing = arguments.positionals.isEmpty && !arguments[Self.json]
        if !listing { catalog.diagnostics.forEach { terminal.note("renderfarm: warning: \($0)") } }
        var plugins = catalog.sorted
        if let id = arguments.positionals.first {
            guard let plugin = catalog[id] else {
                return .reporting(CommandRefusal.noSuchPlugin(id, in: catalog), to: terminal)
            }
            plugins = [plugin]
        }
        if arguments[Self.json] {
            terminal.print(JSONValue.array(plugins.map { json($0.info) }).serialized(pretty: true))
            return .ok
        }
        if plugins.isEmpty {
            catalog.diagnostics.forEach { terminal.note("renderfarm: warning: \($0)") }
            return .reporting(CommandRefusal.noPlugins(searchPath: catalog.searchPath), to: terminal)
        }
        var text = plugins.map { describe($0.info) }.joined(separator: "\n\n")
        if !catalog.diagnostics.isEmpty {
            text += "\n\nnot loaded:\n" + catalog.diagnostics.map { "  \($0)" }.joined(separator: "\n")
        }
        terminal.print(text)
        return .ok
    }

    private func describe(_ info: PluginInfo) -> String {
        var lines = [
            "\(info.id) \(info.version)  \(info.summary)",
            "  \(info.identifier), threads: \(info.threadSafety.rawValue), trace: \(info.canTrace ? "yes" : "no")",
            "  \(info.path)",
            "  parameters:",
        ]
        let width = (info.parameters.map(\.name.count).max() ?? 0) + 2
        for parameter in info.parameters {
            let fallback = parameter.defaultValue.map { "default \($0.serialized())" } ?? "optional"
            lines.append(
                "    " + parameter.name.padding(toLength: width, withPad: " ", startingAt: 0)
                    + "\(parameter.typeText), \(fallback)")
            lines.append("    " + String(repeating: " ", count: width) + parameter.doc)
        }
        return lines.joined(separator: "\n")
    }

    private func json(_ info: PluginInfo) -> JSONValue {
        let parameters: [JSONValue] = info.parameters.map { parameter in
            var object: JSONObject = [
                "name": .string(parameter.name), "type": .string(parameter.kind.rawValue),
                "doc": .string(parameter.doc),
            ]
            object["default"] = parameter.defaultValue
            if parameter.min.isFinite { object["min"] = .number(parameter.min) }
            if parameter.max.isFinite { object["max"] = .number(parameter.max) }
            if !parameter.choices.isEmpty { object["choices"] = .array(parameter.choices.map { .string($0) }) }
            return .object(object)
        }
        return .object([
            "id": .string(info.id), "identifier": .string(info.identifier), "version": .string(info.version),
            "summary": .string(info.summary), "threadSafety": .string(info.threadSafety.rawValue),
            "trace": .bool(info.canTrace), "static": .bool(info.frameInvariant),
            "keysCoverParams": .bool(info.keysCoverParams), "path": .string(info.path),
            "parameters": .array(parameters),
        ])
    }
}
