import Foundation
import RenderFarmJobs
import StrictJSON

extension PluginCheck {
    /// The most values inside a `json` parameter the check edits (the first ones, in document order).
    static let maximumJSONEdits = 24
    /// How far an event's time moves, in seconds.
    static let eventShift = 0.5

    /// One step of a path into a JSON value.
    enum JSONStep: Sendable, Equatable {
        case key(String)
        case index(Int)
    }

    /// A `json` parameter's edits: each number inside it nudged, each boolean toggled, each colour changed,
    /// each other string replaced by another string found under the same key (`"gift"` → `"coin"`), its first
    /// number counted up or a letter added; empty strings and strings naming input files are left alone. A
    /// field of the objects of a list is edited once, in the first object that has it. Each edit lists the
    /// values to try in turn.
    static func jsonEdits(_ value: JSONValue, scope: EditScope) -> [[Edit.Candidate]] {
        let all = leaves(of: value, at: [])
        var stringsByKey: [String: [String]] = [:]
        for (path, leaf) in all {
            guard case .key(let key)? = path.last, let text = leaf.stringValue else { continue }
            if !(stringsByKey[key, default: []].contains(text)) { stringsByKey[key, default: []].append(text) }
        }
        // In a list of objects (items, barriers), each field is edited in the first element that has it.
        var fields: Set<String> = []
        let leaves = all.filter { fields.insert(describe($0.0, listed: true)).inserted }
        var edits: [[Edit.Candidate]] = []
        for (path, leaf) in leaves {
            var values: [JSONValue] = []
            switch leaf {
            case .number(let number): values = nudged(number, -.infinity, .infinity).map { .number($0) }
            case .bool(let flag): values = [.bool(!flag)]
            case .string(let text) where !colorVariants(text).isEmpty:
                values = colorVariants(text, all: true).map { .string($0) }
            case .string(let text) where scope.mayAlter(text):
                var others: [String] = []
                if case .key(let key)? = path.last { others = stringsByKey[key, default: []].filter { $0 != text } }
                values = others.map { .string($0) } + alteredStrings(text)
            default: continue
            }
            let place = path.isEmpty ? "" : " at \(describe(path))"
            edits.append(
                values.map {
                    Edit.Candidate(
                        value: replacing(value, at: path[...], with: $0), change: "changed\(place) to \(shown($0))")
                })
            if edits.count == maximumJSONEdits { break }
        }
        return edits
    }

    /// Every number, boolean and string inside `value`, with its path, in document order.
    static func leaves(of value: JSONValue, at path: [JSONStep]) -> [([JSONStep], JSONValue)] {
        switch value {
        case .object(let object): return object.flatMap { leaves(of: $0.value, at: path + [.key($0.key)]) }
        case .array(let array):
            return array.enumerated().flatMap { leaves(of: $0.element, at: path + [.index($0.offset)]) }
        case .null: return []
        case .bool, .number, .string: return [(path, value)]
        }
    }

    /// `root` with the value at `path` replaced by `new`.
    static func replacing(_ root: JSONValue, at path: ArraySlice<JSONStep>, with new: JSONValue) -> JSONValue {
        guard let step = path.first else { return new }
        switch (root, step) {
        case (.object(var object), .key(let key)):
            guard let inner = object[key] else { return root }
            object[key] = replacing(inner, at: path.dropFirst(), with: new)
            return .object(object)
        case (.array(var array), .index(let index)) where array.indices.contains(index):
            array[index] = replacing(array[index], at: path.dropFirst(), with: new)
            return .array(array)
        default:
            return root
        }
    }

    /// `items[1].size`, `[0]`, `color`; `listed`: an element of a list of objects as `[*]` (`items[*].size`).
    static func describe(_ path: [JSONStep], listed: Bool = false) -> String {
        var text = ""
        for (position, step) in path.enumerated() {
            switch step {
            case .key(let key): text += (text.isEmpty ? "" : ".") + key
            case .index(let index):
                let object: Bool
                if case .key? = path.dropFirst(position + 1).first { object = true } else { object = false }
                text += listed && object ? "[*]" : "[\(index)]"
            }
        }
        return text
    }

    /// An events parameter's edits (its list as the host hands it over, sorted by time): the middle event's
    /// time moved, each of its fields changed, a copy of it added a little later, and it removed; for an
    /// empty list, one event added a quarter into the setting (with only a time, else with every field that
    /// is not a string, which could name a file).
    static func eventEdits(_ parameter: PluginParameter, events: [JSONValue], scope: EditScope) -> [Edit] {
        let name = parameter.name
        let first = parameter.min.isFinite ? Swift.max(parameter.min, 0) : 0
        let last = parameter.max.isFinite ? parameter.max : 86_400
        func clamped(_ time: Double) -> Double { Swift.min(Swift.max(time, first), last) }
        func seconds(_ time: Double) -> String { "\(JSONValue.format(time)) s" }
        guard !events.isEmpty else {
            let time = clamped(scope.duration / 4)
            var event: JSONObject = ["time": .number(time)]
            var candidates = [
                Edit.Candidate(value: .array([.object(event)]), change: "changed: an event added at \(seconds(time))")
            ]
            for field in parameter.eventFields where field.parameter.kind != .string {
                if let value = sample(field.parameter) { event[field.name] = value }
            }
            if event.count > 1 {
                candidates.append(
                    .init(value: .array([.object(event)]), change: "changed: an event \(shown(.object(event))) added"))
            }
            return [Edit(name, candidates, times: [time])]
        }
        let index = events.count / 2
        guard let event = events[index].objectValue, let time = event["time"]?.doubleValue else { return [] }
        func with(_ changed: JSONObject?) -> JSONValue {
            var list = events
            if let changed { list[index] = .object(changed) } else { list.remove(at: index) }
            return .array(list)
        }
        var edits: [Edit] = []
        let moved = clamped(time + eventShift <= last ? time + eventShift : time - eventShift)
        if moved != time {
            var changed = event
            changed["time"] = .number(moved)
            edits.append(
                Edit(
                    name, with(changed),
                    "changed: event \(index)'s time moved from \(seconds(time)) to \(seconds(moved))",
                    times: [time, moved]))
        }
        for field in parameter.eventFields {
            var values: [JSONValue]
            if let value = event[field.name] {
                if let text = value.stringValue, field.parameter.kind == .string {
                    values = scope.mayAlter(text) ? alteredStrings(text) : []
                } else if let text = value.stringValue, field.parameter.kind == .color {
                    values = colorVariants(text, all: true).map { .string($0) }
                } else {
                    values = Array(alternatives(value, field.parameter).prefix(1))
                }
            } else {
                values = field.parameter.kind == .string ? [] : sample(field.parameter).map { [$0] } ?? []
            }
            let candidates = values.map { value in
                var changed = event
                changed[field.name] = value
                return Edit.Candidate(
                    value: with(changed), change: "changed: event \(index)'s \(field.name) to \(shown(value))")
            }
            if !candidates.isEmpty { edits.append(Edit(name, candidates, times: [time])) }
        }
        let later = clamped(time + eventShift / 2)
        var copy = event
        copy["time"] = .number(later)
        edits.append(
            Edit(
                name, .array(events + [.object(copy)]), "changed: a copy of event \(index) added at \(seconds(later))",
                times: [later]))
        edits.append(Edit(name, with(nil), "changed: event \(index) (at \(seconds(time))) removed", times: [time]))
        return edits
    }
}
