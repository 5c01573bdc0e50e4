import Foundation
import StrictJSON

/// Expands a job document with `variants` into one document per variant (rows × matrix), with
/// every placeholder filled, before each is decoded like any job.
///
///     "variants": {"rows": "streamers.csv", "matrix": {"canvas.scale": [2, 3]},
///                  "name": "{{streamer}}@{{canvas.scale}}x"}
package struct VariantExpansion {
    /// One variant's document and what it was made from.
    package struct Expanded {
        package var document: JSONValue
        /// The variant, with the problems found while filling it (unknown placeholders, names),
        /// told together with the plugins' findings when the jobs are planned.
        package var variant: JobVariant
    }

    package static let maxVariants = 10_000
    /// The origin of the values `variants.matrix` gives.
    static let matrixOrigin = "variants.matrix"

    /// The variants of `document` (whose `variants` member is `spec`), or every problem found.
    package static func expand(_ document: JSONObject, spec: JSONValue, jobDirectory: String, defaultName: String)
        -> Result<[Expanded], JobDecoder.JobIssues>
    {
        var issues: [JobIssue] = []
        guard let object = spec.objectValue else {
            return .failure(
                JobDecoder.JobIssues([JobIssue(path: "variants", "expected an object {\"rows\", \"matrix\", \"name\"}")]
                ))
        }
        for key in object.keys where !["rows", "matrix", "name"].contains(key) {
            issues.append(
                JobIssue(
                    path: "variants.\(key)", "unknown key" + Suggestion.hint(for: key, in: ["rows", "matrix", "name"])))
        }
        var rows: [DataRows.Row] = [DataRows.Row("variants.matrix", values: [:], isText: false)]
        var columns: [String] = []
        // Rows that could not be read are told with every variant's problems, not alone.
        var rowProblems: [JobIssue] = []
        if let value = object["rows"] {
            switch DataRows.load(value, path: "variants.rows", jobDirectory: jobDirectory) {
            case .success(let data):
                rows = data.rows
                columns = data.columns
                rowProblems = data.problems.map { JobIssue(path: "", $0) }
                if rows.isEmpty {
                    issues += rowProblems.isEmpty ? [JobIssue(path: "variants.rows", "no rows")] : rowProblems
                }
            case .failure(let issue): issues.append(issue)
            }
        }
        let matrix = decodeMatrix(object["matrix"], issues: &issues)
        for (key, _) in matrix where columns.contains(key) {
            issues.append(JobIssue(path: "variants.matrix", "\"\(key)\" is both a column and a matrix key"))
        }
        guard object["rows"] != nil || !matrix.isEmpty else {
            return .failure(
                JobDecoder.JobIssues(issues + [JobIssue(path: "variants", "needs \"rows\", a \"matrix\" or both")]))
        }
        let template = object["name"].map { $0.stringValue }
        if case .some(nil) = template { issues.append(JobIssue(path: "variants.name", "expected a string template")) }
        let combinations = matrix.reduce([[(String, JSONValue)]]([[]])) { partial, entry in
            partial.flatMap { prefix in entry.1.map { prefix + [(entry.0, $0)] } }
        }
        let total = rows.count * combinations.count
        guard total <= maxVariants else {
            return .failure(
                JobDecoder.JobIssues(issues + [JobIssue(path: "variants", "\(total) variants; at most \(maxVariants)")])
            )
        }
        guard issues.isEmpty else { return .failure(JobDecoder.JobIssues(issues)) }

        let known = columns + matrix.map(\.0)
        let nameTemplate =
            template.flatMap { $0 }
            ?? document["name"]?.stringValue.flatMap {
                Template.names(in: $0) == nil ? nil : $0
            }
        let eventLayers = Self.eventLayers(document["layers"]?.arrayValue ?? [], path: "layers")
        var expanded: [Expanded] = []
        var origins: [String: String] = [:]
        for row in rows {
            for combination in combinations {
                var values: [String: Template.Value] = [:]
                for (column, value) in row.values {
                    values[column] = Template.Value(
                        value: row.isText ? Template.inferred(value.stringValue ?? "") : value,
                        text: row.isText ? value.stringValue : nil, origin: row.origin)
                }
                for (key, value) in combination {
                    values[key] = Template.Value(value: value, text: nil, origin: Self.matrixOrigin)
                }
                let index = expanded.count
                var filler = Filler(
                    values: values, known: known, eventLayers: eventLayers,
                    markupTexts: MarkupText.places(
                        in: document["layers"]?.arrayValue ?? [], path: "layers", values: values))
                filler.issues = rowProblems
                var filled = filler.fill(.object(document), path: "")
                for (key, value) in combination {
                    filled = filler.set(value, at: key, in: filled)
                }
                var name = String(format: "%0\(String(total).count)d", index + 1)
                if let nameTemplate {
                    if let text = Template.interpolate(nameTemplate, { values[$0]?.value }) {
                        name = text
                    } else if template != nil {
                        let unknown = (Template.names(in: nameTemplate) ?? []).filter { values[$0] == nil }
                        filler.issues.append(
                            JobIssue(
                                path: "variants.name",
                                "unknown placeholder {{\(unknown.first ?? "")}}"
                                    + Suggestion.hint(for: unknown.first ?? "", in: known)))
                    }
                }
                let variantProblem = FolderName.problem(name, maxBytes: 128)
                if let problem = variantProblem {
                    filler.issues.append(
                        JobIssue(
                            path: "variants.name",
                            "\(FolderName.shown(name)) cannot name a folder: it \(problem) (\(row.origin)); "
                                + FolderName.advice))
                }
                if let first = origins.updateValue(row.origin, forKey: name) {
                    filler.issues.append(
                        JobIssue(
                            path: "variants.name", "\(row.origin): duplicate variant name \"\(name)\" (also \(first))"))
                }
                let jobName = nameFor(document, filled: filled, variant: name, defaultName: defaultName)
                // The whole name a template filled, or the job part of `<job>/<variant>`, names a folder.
                let declared = document["name"]?.stringValue
                let jobFolder =
                    declared.flatMap { Template.names(in: $0) } != nil ? jobName : declared ?? defaultName
                // A name template that is also the variant's name is reported once, as the variant's.
                if let problem = FolderName.problem(jobFolder), jobFolder != name || variantProblem == nil {
                    let source = document["name"] == nil ? " (the job file's name; set \"name\")" : ""
                    filler.issues.append(
                        JobIssue(
                            path: "name",
                            "\(FolderName.shown(jobFolder))\(source) cannot name a folder: it \(problem); "
                                + FolderName.advice))
                }
                filled = withOutput(filled, document: document, variant: name, jobName: jobName)
                let variant = JobVariant(
                    name: name, index: index, origin: row.origin,
                    values: JSONObject(
                        row.values.map { ($0.key, values[$0.key]?.value ?? $0.value) }
                            + combination.map { (key: $0.0, value: $0.1) }),
                    filled: filler.filled, batch: VariantBatch(file: "", name: "", variants: []),
                    issues: filler.issues, unresolved: filler.unresolved)
                expanded.append(Expanded(document: filled, variant: variant))
            }
        }
        return .success(expanded)
    }

    /// The variant job's name: the job's own when it has placeholders, else `<job>/<variant>`.
    private static func nameFor(_ document: JSONObject, filled: JSONValue, variant: String, defaultName: String)
        -> String
    {
        let declared = document["name"]?.stringValue
        if let declared, Template.names(in: declared) != nil, let name = filled.objectValue?["name"]?.stringValue {
            return name
        }
        return "\(declared ?? defaultName)/\(variant)"
    }

    /// Sets the variant's name, and gives each variant its own folder: `output.dir` (default
    /// `out/<job name>`) gets `/<variant>` unless placeholders make it differ already.
    private static func withOutput(_ value: JSONValue, document: JSONObject, variant: String, jobName: String)
        -> JSONValue
    {
        guard var root = value.objectValue else { return value }
        root["name"] = .string(jobName)
        if var output = root["output"]?.objectValue,
            let directory = document["output"]?.objectValue?["dir"]?.stringValue,
            Template.names(in: directory) == nil
        {
            output["dir"] = .string((directory as NSString).appendingPathComponent(variant))
            root["output"] = .object(output)
        }
        return .object(root)
    }

    /// `variants.matrix`: key paths in the job, each with a list of values, in the file's order.
    private static func decodeMatrix(_ value: JSONValue?, issues: inout [JobIssue]) -> [(String, [JSONValue])] {
        guard let value else { return [] }
        guard let object = value.objectValue else {
            issues.append(JobIssue(path: "variants.matrix", "expected an object of key paths to lists of values"))
            return []
        }
        var matrix: [(String, [JSONValue])] = []
        for (key, values) in object {
            guard let list = values.arrayValue, !list.isEmpty else {
                issues.append(JobIssue(path: "variants.matrix.\(key)", "expected a non-empty list of values"))
                continue
            }
            guard KeyPath.parse(key) != nil else {
                issues.append(
                    JobIssue(
                        path: "variants.matrix",
                        "\"\(key)\" is not a key path (e.g. canvas.scale, layers[0].params.size)"))
                continue
            }
            matrix.append((key, list))
        }
        return matrix
    }
}

extension VariantExpansion {
    /// `layers` (at `path`) with the placeholders `values` name filled as a variant's are (event fields kept,
    /// values escaped in markup), and a problem for each placeholder none of them names (`noun`: what they are).
    static func fill(_ layers: [JSONValue], path: String, values: [String: Template.Value], noun: String)
        -> ([JSONValue], [JobIssue])
    {
        var filler = Filler(
            values: values, known: values.keys.sorted(), eventLayers: eventLayers(layers, path: path),
            markupTexts: MarkupText.places(in: layers, path: path, values: values))
        filler.noun = noun
        let filled = layers.enumerated().map { filler.fill($1, path: "\(path)[\($0)]") }
        return (filled, filler.issues)
    }

    /// The `params.` places of the layers (in groups too) that read an event log (`params.events`):
    /// there a placeholder that is no column is an event field, left for the effect to fill.
    static func eventLayers(_ layers: [JSONValue], path: String) -> [String] {
        layers.enumerated().flatMap { index, layer -> [String] in
            let place = "\(path)[\(index)]"
            guard let object = layer.objectValue else { return [] }
            if let group = object["group"]?.arrayValue { return eventLayers(group, path: place + ".group") }
            return object["params"]?.objectValue?["events"] == nil ? [] : [place + ".params."]
        }
    }
}

/// Fills the placeholders of one variant's document and records what it filled.
private struct Filler {
    /// Each placeholder's value (with the row it came from).
    package let values: [String: Template.Value]
    /// Every column and matrix key, for messages about unknown placeholders.
    package let known: [String]
    /// Where placeholders that are no column are event fields (`VariantExpansion.eventLayers`).
    package let eventLayers: [String]
    /// Texts read as Pango markup, where a row's values are escaped (`MarkupText`).
    package let markupTexts: Set<String>
    /// What the values are, in messages about an unknown placeholder.
    package var noun = "column or matrix key"
    package var issues: [JobIssue] = []
    package var filled: [String: JobVariant.Filled] = [:]
    package var unresolved: Set<String> = []

    package init(values: [String: Template.Value], known: [String], eventLayers: [String], markupTexts: Set<String>) {
        self.values = values
        self.known = known
        self.eventLayers = eventLayers
        self.markupTexts = markupTexts
    }

    /// Host places whose type is text whatever a CSV cell looks like.
    private static func isTextPlace(_ path: String) -> Bool {
        ["name", "output.dir", "output.prefix", "canvas.background", "frames"].contains(path)
            || (path.hasPrefix("layers[") && path.hasSuffix("].effect"))
    }

    package mutating func fill(_ value: JSONValue, path: String) -> JSONValue {
        switch value {
        case .string(let text):
            guard let names = Template.names(in: text) else { return value }
            // In a layer that reads an event log, the others are the events' fields.
            let keepsUnknown = eventLayers.contains { path.hasPrefix($0) }
            // In markup, a row's values are text: escaped as the effect escapes event fields.
            let markup = markupTexts.contains(path)
            let values = values
            let value = { (name: String) in values[name].map { markup ? MarkupText.filling($0) : $0 } }
            for name in names where values[name] == nil && !keepsUnknown {
                unresolved.insert(path)
                issues.append(
                    JobIssue(
                        path: path,
                        "unknown placeholder {{\(name)}}: no \(noun) \"\(name)\""
                            + Suggestion.hint(for: name, in: known) + "; there are: "
                            + (known.isEmpty ? "none" : known.joined(separator: ", "))))
            }
            if names.count == 1, text.trimmingCharacters(in: .whitespaces) == "{{\(names[0])}}",
                let whole = value(names[0])
            {
                filled[path] = JobVariant.Filled(column: names[0], value: whole)
                if let text = whole.text, Self.isTextPlace(path) { return .string(text) }
                return whole.value
            }
            if let name = names.first(where: { values[$0] != nil }), let part = value(name) {
                filled[path] = JobVariant.Filled(column: name, value: part, isWhole: false)
            }
            return Template.interpolate(text, { value($0)?.value }, keepingUnknown: keepsUnknown).map { .string($0) }
                ?? .string(text)
        case .array(let list):
            return .array(list.enumerated().map { fill($1, path: "\(path)[\($0)]") })
        case .object(let object):
            return .object(
                JSONObject(
                    object.map {
                        (key: $0.key, value: fill($0.value, path: path.isEmpty ? $0.key : "\(path).\($0.key)"))
                    }))
        default:
            return value
        }
    }

    /// `document` with `value` at the key path `key` (objects on the way are made).
    package mutating func set(_ value: JSONValue, at key: String, in document: JSONValue) -> JSONValue {
        guard let path = KeyPath.parse(key) else { return document }
        guard let result = KeyPath.set(value, at: path[...], in: document) else {
            issues.append(
                JobIssue(path: "variants.matrix", "\"\(key)\" names no place in the job (a list index is out of range)")
            )
            return document
        }
        filled[key] = JobVariant.Filled(
            column: key, value: Template.Value(value: value, text: nil, origin: VariantExpansion.matrixOrigin))
        return result
    }
}

/// A path into a job such as `layers[0].params.size`.
package enum KeyPath {
    package enum Step: Equatable {
        case key(String)
        case index(Int)
    }

    package static func parse(_ text: String) -> [Step]? {
        var steps: [Step] = []
        for part in text.split(separator: ".", omittingEmptySubsequences: false) {
            var rest = Substring(part)
            guard let bracket = rest.firstIndex(of: "[") ?? Optional(rest.endIndex) else { return nil }
            let key = rest[..<bracket]
            guard !key.isEmpty else { return nil }
            steps.append(.key(String(key)))
            rest = rest[bracket...]
            while rest.hasPrefix("[") {
                guard let close = rest.firstIndex(of: "]"),
                    let index = Int(rest[rest.index(after: rest.startIndex)..<close]),
                    index >= 0
                else { return nil }
                steps.append(.index(index))
                rest = rest[rest.index(after: close)...]
            }
            guard rest.isEmpty else { return nil }
        }
        return steps.isEmpty ? nil : steps
    }

    package static func set(_ value: JSONValue, at path: ArraySlice<Step>, in document: JSONValue) -> JSONValue? {
        guard let step = path.first else { return value }
        switch step {
        case .key(let key):
            var object = document.objectValue ?? (document.isNull ? JSONObject() : nil)
            guard object != nil else { return nil }
            guard let child = set(value, at: path.dropFirst(), in: object?[key] ?? .null) else { return nil }
            object?[key] = child
            return object.map { .object($0) }
        case .index(let index):
            guard var list = document.arrayValue, index < list.count,
                let child = set(value, at: path.dropFirst(), in: list[index])
            else { return nil }
            list[index] = child
            return .array(list)
        }
    }
}
