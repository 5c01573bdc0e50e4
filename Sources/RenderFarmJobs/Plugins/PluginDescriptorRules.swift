/// The rules a plugin's parameter table must keep, in one place for the host and `renderfarm plugin check`.
///
/// A *refusal* makes the table unusable (a bound that is not a number, a name used twice, a malformed events
/// schema, a default its own row refuses): the catalog does not load such a library and says why, and the
/// check fails it. *Advice* is what the check fails but the host accepts, so that a library a job already
/// uses keeps working: a name that is not camelCase, a missing or multi-line doc line.
extension PluginInfo {
    /// Every refusal of the table, each `parameter "name": problem`, in table order.
    package var descriptorRefusals: [String] {
        var problems: [String] = []
        var seen: Set<String> = []
        for (row, parameter) in parameters.enumerated() {
            let label = parameter.name.isEmpty ? "parameter #\(row)" : "parameter \"\(parameter.name)\""
            if !parameter.name.isEmpty, !seen.insert(parameter.name).inserted {
                problems.append("\(label): the name is used twice")
            }
            problems += parameter.refusals.map { "\(label): \($0)" }
        }
        return problems
    }
}

extension PluginParameter {
    /// What makes this row unusable, in the words `plugin check` and the catalog print.
    package var refusals: [String] {
        var problems: [String] = []
        if name.isEmpty { problems.append("the name is empty (or NULL)") }
        if name.unicodeScalars.contains(where: { Self.forbiddenInNames.contains($0) || $0.properties.isWhitespace }) {
            problems.append("the name holds a space, a control character or one of . [ ] \" (job paths use them)")
        }
        if min.isNaN { problems.append("min is not a number") }
        if max.isNaN { problems.append("max is not a number") }
        if min > max { problems.append("min \(min) is above max \(max)") }
        switch kind {
        case .choice:
            if choices.isEmpty || choices.contains(where: \.isEmpty) {
                problems.append("an enum needs choices \"a|b|c\", none of them empty")
            } else if Set(choices).count != choices.count {
                problems.append("the enum lists a choice twice")
            }
        case .events:
            problems += eventSchemaProblems
        default:
            break
        }
        // A default is only checked against a row that is itself usable: a NaN bound compares with nothing.
        if problems.isEmpty, let problem = defaultProblem { problems.append(problem) }
        return problems
    }

    /// What `plugin check` fails but the host accepts.
    package var advice: [String] {
        var problems: [String] = []
        if !(name.first.map { $0.isASCII && $0.isLowercase } ?? false)
            || !name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) })
        {
            problems.append("the name should be camelCase ASCII")
        }
        if doc.trimmingCharacters(in: .whitespaces).isEmpty { problems.append("no doc line") }
        if doc.contains(where: \.isNewline) { problems.append("the doc must be one line (renderfarm plugins shows it so)") }
        return problems
    }

    private static let forbiddenInNames: Set<Unicode.Scalar> = [".", "[", "]", "\""]

    /// The event fields types an events schema may name (`name:type`, or `name:enum=a/b`).
    static let eventFieldKinds: Set<String> = ["number", "integer", "bool", "color", "point", "size", "string", "json"]

    /// What is wrong with an events row's fields (`choices`: `name:type` each).
    private var eventSchemaProblems: [String] {
        var problems: [String] = []
        var seen: Set<String> = ["time"]
        for field in choices {
            let parts = field.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty else {
                problems.append("the events field \"\(field)\" is not name:type")
                continue
            }
            if !seen.insert(parts[0]).inserted { problems.append("the events field \"\(parts[0])\" is named twice") }
            if parts[1].hasPrefix("enum=") {
                let cases = parts[1].dropFirst(5).split(separator: "/", omittingEmptySubsequences: false)
                if cases.isEmpty || cases.contains(where: \.isEmpty) {
                    problems.append("the events field \"\(parts[0])\" needs enum=a/b/c, none of them empty")
                }
            } else if !Self.eventFieldKinds.contains(parts[1]) {
                problems.append(
                    "the events field \"\(parts[0])\" has unknown type \"\(parts[1])\" (allowed: "
                        + Self.eventFieldKinds.sorted().joined(separator: ", ") + ", enum=a/b)")
            }
        }
        return problems
    }
}
