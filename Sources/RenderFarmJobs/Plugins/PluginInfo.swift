import StrictJSON

/// What a plugin declares about itself, copied out of its C descriptor into Swift values.
package struct PluginInfo: Sendable, Equatable {
    package var id: String
    package var identifier: String
    package var version: String
    package var summary: String
    package var threadSafety: ThreadSafety
    package var parameters: [PluginParameter]
    /// Whether the plugin implements the optional `trace` function.
    package var canTrace: Bool
    /// The library file it was loaded from.
    package var path: String
    /// Whether `render` draws the same pixels at every frame (`RF_PLUGIN_FRAME_INVARIANT`).
    package var frameInvariant: Bool = false
    /// Whether its frame keys change whenever a file it names does (`RF_PLUGIN_KEYS_COVER_INPUTS`).
    package var keysCoverInputs: Bool = false
    /// Whether its frame keys change whenever its parameters or the job's length change what a frame
    /// draws (`RF_PLUGIN_KEYS_COVER_PARAMS`): only then may keys stand in for the parameters.
    package var keysCoverParams: Bool = false

    package enum ThreadSafety: String, Sendable {
        case full, instance, unsafe
    }

    package func parameter(named name: String) -> PluginParameter? { parameters.first { $0.name == name } }
}

/// One row of a plugin's parameter table (`rf_param`).
package struct PluginParameter: Sendable, Equatable {
    package enum Kind: String, Sendable {
        case number, integer, bool, color, point, rect, string
        case choice = "enum"
        case size
        case numberList = "number list"
        case json
        case colorList = "color list"
        /// Timed events (`RF_PARAM_EVENTS`): `choices` holds the fields as `name:type`.
        case events
    }

    /// One field of an events parameter besides `time`, parsed from its `choices`.
    package struct EventField: Sendable, Equatable {
        package var name: String
        /// The field as a parameter of its own, to check values with.
        package var parameter: PluginParameter
    }

    /// The fields of an events parameter (empty for other kinds), without `*`.
    package var eventFields: [EventField] { declaredEventFields.filter { $0.name != Self.anyColumn } }

    /// The field an events parameter declares as `*:type`: any column besides its named fields, each taken as
    /// that type (a text template that names the log's columns); nil when it takes only its named fields.
    package var otherColumns: EventField? { declaredEventFields.first { $0.name == Self.anyColumn } }

    /// The name of the field that stands for any other column.
    package static let anyColumn = "*"

    /// The same parameter under another name (a column an events parameter takes as `*`).
    package func named(_ name: String) -> PluginParameter {
        var copy = self
        copy.name = name
        return copy
    }

    private var declaredEventFields: [EventField] {
        guard kind == .events else { return [] }
        return choices.compactMap { text in
            let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty else { return nil }
            var choices: [String] = []
            var kind: Kind
            if parts[1].hasPrefix("enum=") {
                kind = .choice
                choices = parts[1].dropFirst(5).split(separator: "/").map(String.init)
            } else {
                kind = Kind(rawValue: parts[1]) ?? .json
                if ![.number, .integer, .bool, .color, .point, .size, .string].contains(kind) { kind = .json }
            }
            return EventField(
                name: parts[0],
                parameter: PluginParameter(
                    name: parts[0], kind: kind, defaultValue: nil, min: -.infinity, max: .infinity, choices: choices,
                    doc: ""))
        }
    }

    package var name: String
    package var kind: Kind
    /// Nil for optional parameters without a default.
    package var defaultValue: JSONValue?
    package var min: Double
    package var max: Double
    package var choices: [String]
    package var doc: String

    /// The bounds as text, e.g. "0…120", "0…∞", or nil when unbounded.
    package var rangeText: String? {
        let numeric: Set<Kind> = [.number, .integer, .point, .rect, .size, .numberList, .colorList]
        guard numeric.contains(kind), min.isFinite || max.isFinite else { return nil }
        func format(_ value: Double) -> String {
            value.isFinite ? JSONValue.number(value).serialized() : value.isNaN ? "NaN" : value < 0 ? "-∞" : "∞"
        }
        return "\(format(min))…\(format(max))"
    }

    /// A one-line description of the type, e.g. `enum (bezier|paced)` or `number 0…120`.
    package var typeText: String {
        if kind == .choice { return "enum (\(choices.joined(separator: "|")))" }
        if kind == .events {
            let others = otherColumns.map { ", any other column as \($0.parameter.kind.rawValue)" } ?? ""
            return "events (time" + eventFields.map { ", \($0.name)" }.joined() + others
                + "; a list or a .csv/.jsonl file)"
        }
        return [kind.rawValue, rangeText].compactMap { $0 }.joined(separator: " ")
    }
}
