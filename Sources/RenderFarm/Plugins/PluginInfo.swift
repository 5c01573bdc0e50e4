import StrictJSON

/// What a plugin declares about itself, copied out of its C descriptor into Swift values.
public struct PluginInfo: Sendable, Equatable {
    public var id: String
    public var identifier: String
    public var version: String
    public var summary: String
    public var threadSafety: ThreadSafety
    public var parameters: [PluginParameter]
    /// Whether the plugin implements the optional `trace` function.
    public var canTrace: Bool
    /// The library file it was loaded from.
    public var path: String
    /// Whether `render` draws the same pixels at every frame (`RF_PLUGIN_FRAME_INVARIANT`).
    public var frameInvariant: Bool = false

    public enum ThreadSafety: String, Sendable {
        case full, instance, unsafe
    }

    public func parameter(named name: String) -> PluginParameter? { parameters.first { $0.name == name } }
}

/// One row of a plugin's parameter table (`rf_param`).
public struct PluginParameter: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case number, integer, bool, color, point, rect, string
        case choice = "enum"
        case size
        case numberList = "number list"
        case json
        case colorList = "color list"
    }

    public var name: String
    public var kind: Kind
    /// Nil for optional parameters without a default.
    public var defaultValue: JSONValue?
    public var min: Double
    public var max: Double
    public var choices: [String]
    public var doc: String

    /// The bounds as text, e.g. "0…120", or nil when unbounded.
    public var rangeText: String? {
        let numeric: Set<Kind> = [.number, .integer, .point, .rect, .size, .numberList, .colorList]
        guard numeric.contains(kind), min.isFinite || max.isFinite else { return nil }
        func format(_ value: Double) -> String { value.isFinite ? JSONValue.number(value).serialized() : "" }
        return "\(format(min))…\(format(max))"
    }

    /// A one-line description of the type, e.g. `enum (bezier|paced)` or `number 0…120`.
    public var typeText: String {
        if kind == .choice { return "enum (\(choices.joined(separator: "|")))" }
        return [kind.rawValue, rangeText].compactMap { $0 }.joined(separator: " ")
    }
}
