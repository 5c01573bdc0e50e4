import Foundation
import StrictJSON

/// A layer's timed events (`RF_PARAM_EVENTS`): read from a CSV, JSON or JSONL file in the job's
/// folder or from an inline list, each event checked against the fields the plugin declares,
/// sorted by time, and handed to the plugin as a JSON list. The plugin reads no file, and the
/// events are part of the frames' fingerprint like any parameter.
package enum EventLog {
    /// Problems told per events parameter before the rest are counted.
    package static let maxIssues = 20

    /// `params` with every events parameter replaced by its checked, sorted list.
    package static func resolve(
        _ params: JSONObject, parameters: [PluginParameter], path: String, jobDirectory: String
    ) -> (JSONObject, [JobIssue]) {
        let (resolved, issues, _) = resolveLocated(
            params, parameters: parameters, path: path, jobDirectory: jobDirectory)
        return (resolved, issues)
    }

    /// The columns each event log file of a job is read for, by every layer and sound that reads it: one log
    /// drives several layers and sounds, each taking the fields it knows, and a column none of them knows is
    /// still refused (a misspelt one), unless one takes any column (`*`). Keyed by the file's name as the job
    /// writes it, tidied (`Self.key`).
    package static func readers(
        layers: [(params: JSONObject, parameters: [PluginParameter], folder: String)], audio: AudioSpec?
    ) -> [String: Set<String>] {
        var columns: [String: Set<String>] = [:]
        for (params, parameters, folder) in layers {
            for parameter in parameters where parameter.kind == .events {
                guard let file = params[parameter.name]?.stringValue else { continue }
                columns[key(file, in: folder), default: []].formUnion(
                    ["time"] + parameter.eventFields.map(\.name)
                        + (parameter.otherColumns == nil ? [] : [PluginParameter.anyColumn]))
            }
        }
        for sound in audio?.sounds ?? [] {
            guard case .events(let value) = sound.times, let file = value.stringValue else { continue }
            columns[key(file), default: []].formUnion(AudioSpec.eventColumns)
        }
        return columns
    }

    /// A log's name as `readers` keys it: `./assets/../assets/log.csv` and `assets/log.csv` are one file, and a
    /// composition's `log.csv` (`folder`: its folder in the job's) is not the job's.
    static func key(_ file: String, in folder: String = "") -> String {
        ((folder as NSString).appendingPathComponent(file) as NSString).standardizingPath
    }

    /// `resolve`, and where each event came from: per events parameter, the origin of each event
    /// in the order the plugin receives them (`streamers.csv:7`), so what the plugin says of
    /// `events[12]` can be told at its line (`locate`).
    /// `readers`: the columns other layers and sounds of the job read each log for (`readers(layers:audio:)`);
    /// `folder`: the layer's folder in the job's, where its names resolve (`jobDirectory`).
    package static func resolveLocated(
        _ params: JSONObject, parameters: [PluginParameter], path: String, jobDirectory: String,
        readers: [String: Set<String>] = [:], folder: String = ""
    ) -> (JSONObject, [JobIssue], origins: [String: [String]]) {
        var params = params
        var issues: [JobIssue] = []
        var origins: [String: [String]] = [:]
        for parameter in parameters where parameter.kind == .events {
            guard let value = params[parameter.name] else { continue }
            let place = "\(path).\(parameter.name)"
            switch DataRows.load(value, path: place, jobDirectory: jobDirectory) {
            case .failure(let issue):
                issues.append(issue)
                // Told once: the empty list keeps the parameter check from repeating it.
                params[parameter.name] = .array([])
            case .success(let rows):
                let shared = value.stringValue.flatMap { readers[key($0, in: folder)] } ?? []
                let (events, checked, sources) = check(rows, parameter: parameter, shared: shared)
                origins[parameter.name] = sources
                let problems = rows.problems.map { JobIssue(path: "", $0) } + checked
                if problems.count > maxIssues {
                    issues += problems.prefix(maxIssues)
                    issues.append(
                        JobIssue(path: place, "… and \(problems.count - maxIssues) more problems in its events"))
                } else {
                    issues += problems
                }
                params[parameter.name] = .array(events)
            }
        }
        return (params, issues, origins)
    }

    /// `issues` of a layer at `path` with those a plugin said of one event (`layers[0].params.events[12].user`)
    /// told at the event's origin instead, when it is a line of a file: `gifts.csv:14: user: missing`.
    package static func locate(_ issues: [JobIssue], origins: [String: [String]], path: String) -> [JobIssue] {
        issues.map { issue in
            for (name, sources) in origins {
                let prefix = "\(path).params.\(name)["
                guard issue.path.hasPrefix(prefix) else { continue }
                let rest = issue.path.dropFirst(prefix.count)
                guard let close = rest.firstIndex(of: "]"), let index = Int(rest[..<close]),
                    sources.indices.contains(index),
                    !sources[index].hasPrefix("layers[")
                else { continue }
                let field = rest[rest.index(after: close)...].drop { $0 == "." }
                return JobIssue(
                    path: "", "\(sources[index]): \(field.isEmpty ? "" : field + ": ")\(issue.message)",
                    severity: issue.severity)
            }
            return issue
        }
    }

    /// The events of `rows` in time order (stable), and every problem, each at its row. Columns in `shared`
    /// (read by other layers or sounds of the job; `*`: any column) are left out of the events, not refused. A
    /// parameter that takes any other column (`*:type`) gets every column, each checked as that type.
    private static func check(_ rows: DataRows, parameter: PluginParameter, shared: Set<String>) -> (
        [JSONValue], [JobIssue], [String]
    ) {
        var fields = parameter.eventFields
        let names = ["time"] + fields.map(\.name)
        var anyColumns: Set<String> = []
        if let other = parameter.otherColumns {
            let columns = rows.csvFile != nil ? rows.columns : Array(Set(rows.rows.flatMap(\.values.keys)))
            for column in columns.sorted() where !names.contains(column) {
                fields.append(PluginParameter.EventField(name: column, parameter: other.parameter.named(column)))
                anyColumns.insert(column)
            }
        }
        let others = shared.subtracting(names + [PluginParameter.anyColumn]).sorted()
        let anyShared = shared.contains(PluginParameter.anyColumn)
        let known = fields.map(\.name) + ["time"] + others
        let listed =
            "; fields: " + names.joined(separator: ", ")
            + (others.isEmpty
                ? "" : " (and the job's other readers of the log take " + others.joined(separator: ", ") + ")")
        let time = PluginParameter(
            name: "time", kind: .number, defaultValue: nil, min: parameter.min.isFinite ? parameter.min : 0,
            max: parameter.max.isFinite ? parameter.max : 86_400, choices: [], doc: "")
        var events: [(time: Double, value: JSONValue, origin: String)] = []
        var issues: [JobIssue] = []
        // A file's columns are checked once, not on every row.
        if let file = rows.csvFile, !anyShared {
            for column in rows.columns where !known.contains(column) {
                issues.append(
                    JobIssue(
                        path: "",
                        "\(file): column \"\(column)\" is not a field of \(parameter.name)"
                            + Suggestion.hint(for: column, in: known) + listed))
            }
        }
        for row in rows.rows {
            func problem(_ field: String, _ message: String) { issues.append(row.issue(field, message)) }
            var event = JSONObject()
            var valid = true
            for key in row.values.keys where !known.contains(key) && !anyShared {
                valid = false
                guard !row.isText else { continue }
                problem(key, "not a field of \(parameter.name)" + Suggestion.hint(for: key, in: known) + listed)
            }
            for field in [time] + fields.map(\.parameter) {
                guard let raw = row.values[field.name] else { continue }
                var value = raw
                if row.isText, let text = raw.stringValue {
                    // An empty cell leaves the field out; other cells take the field's type.
                    if text.isEmpty { continue }
                    value = Template.typed(text, as: field.kind)
                } else if anyColumns.contains(field.name), field.kind == .string, raw.stringValue == nil,
                    raw.doubleValue != nil || raw.boolValue != nil
                {
                    // A number or true/false of a JSON log, taken as text by a parameter that takes any column as
                    // text, is written as JSON writes it.
                    value = .string(raw.serialized())
                }
                if let message = field.problem(with: value) {
                    problem(field.name, message)
                    valid = false
                }
                event[field.name] = value
            }
            guard let seconds = event["time"]?.doubleValue else {
                if row.values["time"] == nil { problem("time", "missing (seconds from the layer's start)") }
                continue
            }
            if valid { events.append((seconds, .object(event), row.origin)) }
        }
        let sorted = events.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }
        return (sorted.map(\.element.value), issues, sorted.map(\.element.origin))
    }
}
