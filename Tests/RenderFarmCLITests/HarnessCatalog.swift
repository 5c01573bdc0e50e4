import Foundation

/// The installed plugins' parameter tables, read from `renderfarm plugins --json` as a user's tool
/// would: the job generator draws every parameter from these, with no list of its own.
struct HarnessCatalog: Sendable {
    struct Parameter: Sendable {
        var name: String
        /// `number`, `integer`, `bool`, `color`, `point`, `rect`, `string`, `enum`, `size`,
        /// `number list`, `json`, `color list` or `events`.
        var type: String
        var defaultValue: HarnessJSON?
        var min: Double?
        var max: Double?
        var choices: [String]
    }

    struct Plugin: Sendable {
        var id: String
        var version: String
        /// Declared frame-invariant (`static` in the listing).
        var isStatic: Bool
        var parameters: [Parameter]

        func parameter(_ name: String) -> Parameter? { parameters.first { $0.name == name } }
    }

    /// By id, sorted.
    var plugins: [Plugin]

    func plugin(_ id: String) -> Plugin? { plugins.first { $0.id == id } }

    /// The catalog of the `renderfarm` executable at `executable` (its own folder's plugins).
    static func load(executable: String) throws -> HarnessCatalog {
        let result = try Tools.run(executable, ["plugins", "--json"], timeout: 60)
        guard result.status == 0, let list = HarnessJSON.parse(result.stdout)?.arrayValue else {
            throw ToolError(message: "renderfarm plugins --json failed (\(result.status)): \(result.stderr)")
        }
        let plugins = list.compactMap { entry -> Plugin? in
            guard let id = entry["id"]?.stringValue else { return nil }
            let parameters = (entry["parameters"]?.arrayValue ?? []).compactMap { row -> Parameter? in
                guard let name = row["name"]?.stringValue, let type = row["type"]?.stringValue else { return nil }
                return Parameter(
                    name: name, type: type, defaultValue: row["default"], min: row["min"]?.numberValue,
                    max: row["max"]?.numberValue, choices: (row["choices"]?.arrayValue ?? []).compactMap(\.stringValue))
            }
            return Plugin(
                id: id, version: entry["version"]?.stringValue ?? "", isStatic: entry["static"] == .bool(true),
                parameters: parameters)
        }
        return HarnessCatalog(plugins: plugins.sorted { $0.id < $1.id })
    }
}

/// The only plugin-specific knowledge of the harness: parameters (and event fields) that name a
/// file of the job's folder, and string parameters whose text must follow a grammar. Everything
/// else comes from the parameter tables, the example values of jobs/ and the docs, and the
/// messages of `renderfarm validate`.
enum HarnessPluginTable {
    /// Files named by `effect.parameter` (or `effect.events.field` for a field of an event log).
    static let files: [String: HarnessAssetKind] = [
        "image.file": .picture, "lottie.file": .lottie, "video.file": .footage, "text.font": .font,
        "parabolic-drop.image": .png, "physics-bounce.image": .png,
        "parabolic-drop.events.image": .png, "physics-bounce.events.image": .png,
    ]

    /// How often an optional file parameter is given (the others are required by their plugin).
    static let optionalFiles: Set<String> = ["text.font", "parabolic-drop.image", "physics-bounce.image"]

    /// String parameters with a grammar of their own, by `effect.parameter`.
    static let grammars: [String: StringGrammar] = ["shape.d": .svgPath, "text.text": .words]

    enum StringGrammar: Sendable {
        case svgPath, words
    }
}
