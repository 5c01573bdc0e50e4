import StrictJSON

/// A job file's `parameters` (the RenderFarm article ComposingLayers, "Compositions"): typed values its layers
/// use as `{{name}}`, set by the layer that places the file as a composition, or their defaults when the file
/// is rendered alone. Each is checked as a plugin's parameter is (`PluginParameter.problem(with:)`).
package enum CompositionParameters {
    /// The most parameters a file declares.
    static let maxCount = 64
    static let declarationKeys = ["type", "default", "min", "max", "choices", "doc"]
    /// The types a parameter may have: a plugin parameter's, but events.
    static let kinds = [
        PluginParameter.Kind.number, .integer, .bool, .string, .color, .point, .size, .rect, .choice, .numberList,
        .colorList, .json,
    ]

    /// The declarations of `parameters` read by `reader` (the job's top level), in the file's order.
    static func declarations(_ reader: ObjectReader) -> [PluginParameter] {
        guard reader.object["parameters"] != nil, let table = reader.object("parameters") else { return [] }
        guard table.object.count <= maxCount else {
            reader.issues.add(table.path, "\(table.object.count) parameters; at most \(maxCount)")
            return []
        }
        return table.object.compactMap { name, value in
            let path = table.childPath(name)
            guard isPlainKey(name) else {
                reader.issues.add(
                    path, "a parameter's name uses letters, digits, '_' and '-' (at most 64), as {{name}} does")
                return nil
            }
            guard let object = value.objectValue else {
                reader.issues.add(path, "expected {\"type\", \"default\"}, got \(ObjectReader.show(value))")
                return nil
            }
            return declaration(name, ObjectReader(object: object, path: path, issues: reader.issues))
        }
    }

    private static func declaration(_ name: String, _ reader: ObjectReader) -> PluginParameter? {
        reader.rejectUnknownKeys(declarationKeys)
        let names = kinds.map(\.rawValue)
        guard let type = reader.string("type", default: nil, maxLength: 32) else { return nil }
        guard let kind = PluginParameter.Kind(rawValue: type), kinds.contains(kind) else {
            reader.issues.add(
                reader.childPath("type"),
                "unknown type \"\(type)\"\(Suggestion.hint(for: type, in: names)); one of "
                    + names.joined(separator: ", "))
            return nil
        }
        var choices: [String] = []
        if kind == .choice {
            let list = reader.object["choices"]?.arrayValue?.compactMap(\.stringValue) ?? []
            guard !list.isEmpty, list.count == reader.object["choices"]?.arrayValue?.count else {
                reader.issues.add(reader.childPath("choices"), "an enum lists its choices: [\"calm\", \"party\"]")
                return nil
            }
            choices = list
        } else if reader.object["choices"] != nil {
            reader.issues.add(reader.childPath("choices"), "only an enum has choices")
        }
        let bound = -1e15...1e15
        let min = reader.number("min", default: -.infinity, in: bound) ?? -.infinity
        let max = reader.number("max", default: .infinity, in: bound) ?? .infinity
        if min > max {
            reader.issues.add(reader.childPath("max"), "\(JSONValue.format(max)) is below min \(JSONValue.format(min))")
        }
        let doc = reader.string("doc", default: "", maxLength: 1024) ?? ""
        let parameter = PluginParameter(
            name: name, kind: kind, defaultValue: nil, min: min, max: max, choices: choices, doc: doc)
        guard let value = reader.object["default"] else {
            reader.issues.add(
                reader.childPath("default"),
                "missing: a parameter has a default, which the file uses when it is rendered alone")
            return nil
        }
        if let problem = parameter.problem(with: value) {
            reader.issues.add(reader.childPath("default"), problem)
            return nil
        }
        var declared = parameter
        declared.defaultValue = value
        return declared
    }

    /// The value of each of `declared` for `given` (at `path`, the placing layer's `params`): the given value,
    /// or its default when it is not given or is wrong (the problem told).
    static func values(_ given: JSONObject, declared: [PluginParameter], path: String, issues: IssueCollector)
        -> [String: Template.Value]
    {
        let names = declared.map(\.name)
        for key in given.keys where !names.contains(key) {
            issues.add(
                keyPath(path, key),
                "the composition has no parameter \"\(key)\"\(Suggestion.hint(for: key, in: names)); it has: "
                    + (names.isEmpty ? "none" : names.joined(separator: ", ")))
        }
        var values: [String: Template.Value] = [:]
        for parameter in declared {
            var value = parameter.defaultValue ?? .null
            if let set = given[parameter.name] {
                if let problem = parameter.problem(with: set) {
                    issues.add(keyPath(path, parameter.name), problem)
                } else {
                    value = set
                }
            }
            values[parameter.name] = Template.Value(value: value, text: nil, origin: path)
        }
        return values
    }

    /// `layers` (at `path`) with every `{{name}}` of a parameter filled; a placeholder no parameter names is
    /// a problem, except an event field in a layer that reads events.
    static func fill(_ layers: [JSONValue], path: String, values: [String: Template.Value], issues: IssueCollector)
        -> [JSONValue]
    {
        let (filled, problems) = VariantExpansion.fill(layers, path: path, values: values, noun: "parameter")
        for problem in problems { issues.add(problem.path, problem.message) }
        return filled
    }
}
