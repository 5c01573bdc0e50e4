import Foundation

/// Event logs drawn from an `events` parameter's declared fields (`name:type` in its choices):
/// inline lists, CSV files and JSONL files.
extension HarnessGenerator {
    /// A field of an events parameter besides `time`.
    struct EventField {
        var name: String
        /// `number`, `integer`, `bool`, `color`, `point`, `size`, `string` or `enum`.
        var type: String
        var choices: [String]

        /// Whether a CSV cell can hold it (points and sizes as pairs cannot).
        var fitsACell: Bool { type != "point" }
    }

    static func fields(of parameter: HarnessCatalog.Parameter) -> [EventField] {
        parameter.choices.compactMap { text in
            let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
            // `*` (any other column) is no column to write.
            guard parts.count == 2, parts[0] != "*" else { return nil }
            if parts[1].hasPrefix("enum=") {
                return EventField(
                    name: parts[0], type: "enum", choices: parts[1].dropFirst(5).split(separator: "/").map(String.init))
            }
            return EventField(name: parts[0], type: parts[1], choices: [])
        }
    }

    /// An events value: an inline list one time in three, else a CSV or JSONL file added to `folder`.
    func events(
        _ parameter: HarnessCatalog.Parameter, of effect: String, in folder: inout HarnessJobFolder,
        random: inout FuzzRandom
    ) throws -> HarnessJSON {
        let fields = Self.fields(of: parameter)
        var events: [[String: HarnessJSON]] = []
        for _ in 0..<random.integer(1...5) {
            events.append(try event(fields, parameter: parameter, of: effect, in: &folder, random: &random))
        }
        events.sort { ($0["time"]?.numberValue ?? 0) < ($1["time"]?.numberValue ?? 0) }
        let form = random.next(3)
        if form == 0 { return .array(events.map { .object($0) }) }
        let csv = form == 1 && fields.allSatisfy(\.fitsACell)
        let log = HarnessEventLog(csv: csv, columns: fields.map(\.name), events: events)
        return .string(folder.add(.events(log), ext: csv ? "csv" : "jsonl"))
    }

    /// One event: a time within the job, and each field with probability 0.6.
    func event(
        _ fields: [EventField], parameter: HarnessCatalog.Parameter, of effect: String,
        in folder: inout HarnessJobFolder, random: inout FuzzRandom
    ) throws -> [String: HarnessJSON] {
        let frame = Frame(folder.job)
        let top = min(parameter.max ?? frame.duration, frame.duration * 1.1)
        var event: [String: HarnessJSON] = ["time": .rounded(random.number(max(0, parameter.min ?? 0)...top))]
        for field in fields where random.chance(0.6) {
            event[field.name] = try eventValue(field, of: effect, in: &folder, random: &random)
        }
        return event
    }

    /// A value of one event field; a field named like one of the plugin's parameters is drawn as that
    /// parameter is, so a heart's `size` stays in the heart's range.
    func eventValue(
        _ field: EventField, of effect: String, in folder: inout HarnessJobFolder, random: inout FuzzRandom
    ) throws -> HarnessJSON {
        if let kind = HarnessPluginTable.files["\(effect).events.\(field.name)"], library.has(kind) {
            let asset = try library.make(kind, random: &random)
            return .string(folder.add(.file(kind, asset.data), ext: asset.ext))
        }
        if field.type == "enum" { return .string(random.pick(field.choices)) }
        if field.type == "string" { return .string(random.pick(Self.words)) }
        if field.type == "integer" { return .number(Double(random.integer(1...20))) }
        if var parameter = catalog.plugin(effect)?.parameter(field.name) {
            parameter.type = field.type == "size" ? "number" : field.type
            if let value = try value(for: parameter, of: effect, in: &folder, random: &random) { return value }
        }
        let frame = Frame(folder.job)
        switch field.type {
        case "bool": return .bool(random.chance(0.5))
        case "color": return .string(random.colour())
        case "point":
            return .array([.rounded(random.number(0...frame.width)), .rounded(random.number(0...frame.height))])
        default: return .rounded(random.number(4...max(5, frame.side / 2)))
        }
    }
}
