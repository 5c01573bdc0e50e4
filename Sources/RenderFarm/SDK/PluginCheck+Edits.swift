import Foundation
import RenderFarmJobs
import StrictJSON

extension PluginCheck {
    /// One edit the keys-cover-params check makes to the check's parameters, or to the job's duration:
    /// the values to try in turn (the first the plugin accepts is used) and the layer times where the
    /// edit shows first, whose frames are drawn first.
    struct Edit: Sendable {
        /// A value to try: the parameter's new value (nil: left out) and how a finding tells the edit.
        struct Candidate: Sendable {
            var value: JSONValue?
            var change: String
        }

        /// The parameter edited; nil for the job's duration.
        var parameter: String?
        var candidates: [Candidate]
        /// The job's duration in seconds, for the duration edits.
        var duration: Double?
        /// Layer times, in seconds, around which the edit shows (an event's old and new time).
        var times: [Double] = []

        init(_ parameter: String?, _ candidates: [Candidate], duration: Double? = nil, times: [Double] = []) {
            self.parameter = parameter
            self.candidates = candidates
            self.duration = duration
            self.times = times
        }

        /// One value, told as "changed to VALUE" (or `change`).
        init(_ parameter: String, _ value: JSONValue?, _ change: String? = nil, times: [Double] = []) {
            let told = change ?? value.map { "changed to \(PluginCheck.shown($0))" } ?? "left out"
            self.init(parameter, [Candidate(value: value, change: told)], times: times)
        }

        /// "parameter "fill"" or "the job's duration".
        var subject: String { parameter.map { "parameter \"\($0)\"" } ?? "the job's duration" }
    }

    /// What the edits of one parameter are made from besides its value.
    struct EditScope: Sendable {
        /// The setting's duration: where added events go and how far an event moves.
        var duration: Double
        /// The files the check's instance reads (ABI `input_files`), absolute: a string naming one is not
        /// altered, since another file is an input edit, and the sandboxed check may read no other.
        var files: Set<String>

        /// Whether `text` names one of `files` (relative to the job's folder, the current one).
        func namesFile(_ text: String) -> Bool {
            !text.isEmpty && files.contains(Self.absolute(text))
        }

        /// Whether the check may alter `text`: not empty (often "off", where any string could name a file the
        /// plugin then opens or writes) and naming no input file.
        func mayAlter(_ text: String) -> Bool { !text.isEmpty && !namesFile(text) }

        static func absolute(_ path: String) -> String {
            let full = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
            return URL(fileURLWithPath: full).standardizedFileURL.path
        }
    }

    /// The edits of `parameter` from `value` (nil: not set), or why it has none.
    static func edits(of parameter: PluginParameter, from value: JSONValue?, scope: EditScope)
        -> Result<[Edit], EditGap>
    {
        let name = parameter.name
        guard let value else {
            if parameter.kind == .events { return .success(eventEdits(parameter, events: [], scope: scope)) }
            guard let made = sample(parameter) else { return .failure(.noValue) }
            return .success([Edit(name, made, "set to \(shown(made))")])
        }
        var edits: [Edit]
        switch parameter.kind {
        case .number, .integer, .bool, .choice, .color, .point, .size, .rect:
            edits = alternatives(value, parameter).map { Edit(name, $0) }
        case .string:
            guard let text = value.stringValue else { return .failure(.unreadable) }
            if scope.namesFile(text) { return .failure(.namesFile) }
            if text.isEmpty { return .failure(.emptyString) }
            edits = [
                Edit(name, alteredStrings(text).map { Edit.Candidate(value: $0, change: "changed to \(shown($0))") })
            ]
        case .numberList, .colorList:
            edits = listEdits(value, parameter).map { Edit(name, [$0]) }
        case .json:
            edits = jsonEdits(value, scope: scope).map { Edit(name, $0) }
        case .events:
            guard let events = value.arrayValue else { return .failure(.eventFile) }
            edits = eventEdits(parameter, events: events, scope: scope)
        }
        if parameter.defaultValue == nil { edits.append(Edit(name, nil)) }
        return edits.isEmpty ? .failure(.unreadable) : .success(edits)
    }

    /// Why a parameter has no edit.
    enum EditGap: String, Error, Sendable {
        case noValue = "optional without a value: give one with --params"
        case namesFile = "names an input file"
        /// Often "off": a string set there could name a file the plugin then opens or writes.
        case emptyString = "empty, and a string set there could name a file: give one with --params"
        case eventFile = "events from a file: give them as a list with --params"
        case unreadable = "its value has nothing to change"
    }

    /// Values one step away from `value`, one per edit, for the scalar kinds.
    static func alternatives(_ value: JSONValue, _ parameter: PluginParameter) -> [JSONValue] {
        let (low, high) = (parameter.min, parameter.max)
        switch parameter.kind {
        case .number, .integer:
            guard let number = value.doubleValue else { return [] }
            return nudged(number, low, high, integer: parameter.kind == .integer).map { .number($0) }
        case .bool:
            return value.boolValue.map { [.bool(!$0)] } ?? []
        case .choice:
            return parameter.choices.filter { $0 != value.stringValue }.map { .string($0) }
        case .color:
            return value.stringValue.map { text in colorVariants(text).map { .string($0) } } ?? []
        case .point, .size:
            if let side = value.doubleValue { return nudged(side, Swift.max(low, 0), high).map { .number($0) } }
            guard let numbers = value.arrayValue?.compactMap(\.doubleValue), numbers.count == 2 else { return [] }
            let floor = parameter.kind == .size ? Swift.max(low, 0) : low
            return numbers.indices.compactMap { index in
                nudged(numbers[index], floor, high).first.map { moved in
                    var changed = numbers
                    changed[index] = moved
                    return .array(changed.map { .number($0) })
                }
            }
        case .rect:
            guard let rect = value.objectValue else { return [] }
            return ["x", "y", "width", "height"].compactMap { field in
                guard let number = rect[field]?.doubleValue else { return nil }
                let floor = field == "x" || field == "y" ? low : Swift.max(low, 0)
                return nudged(number, floor, high).first.map { moved in
                    var changed = rect
                    changed[field] = .number(moved)
                    return .object(changed)
                }
            }
        case .string, .numberList, .colorList, .json, .events:
            return []
        }
    }

    /// `value` moved by a step each way inside `low…high`: 1 for an integer, else a quarter of the value
    /// (at least 1), at most a quarter of a finite range.
    static func nudged(_ value: Double, _ low: Double, _ high: Double, integer: Bool = false) -> [Double] {
        var step = integer ? 1 : Swift.max(abs(value) / 4, 1)
        if !integer, low.isFinite, high.isFinite, high > low { step = Swift.min(step, (high - low) / 4) }
        var values: [Double] = []
        for moved in [value + step, value - step] {
            let kept = Swift.min(
                Swift.max(moved, integer ? low.rounded(.up) : low), integer ? high.rounded(.down) : high)
            if kept != value, !values.contains(kept) { values.append(kept) }
        }
        return values
    }

    /// `#RRGGBB` or `#RRGGBBAA` with each channel in turn (alpha last) moved by 64 (`all`: every channel at
    /// once, one colour).
    static func colorVariants(_ text: String, all: Bool = false) -> [String] {
        let digits = Array(text.utf8.dropFirst())
        guard text.hasPrefix("#"), digits.count == 6 || digits.count == 8 else { return [] }
        var channels: [Int] = stride(from: 0, to: digits.count, by: 2).compactMap {
            Int(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)
        }
        guard channels.count == digits.count / 2 else { return [] }
        if channels.count == 3 { channels.append(255) }
        func moved(_ channel: Int) -> Int { channel >= 0x80 ? channel - 0x40 : channel + 0x40 }
        func hex(_ channels: [Int], alpha: Bool) -> String {
            "#" + (alpha ? channels : Array(channels.prefix(3))).map { String(format: "%02X", $0) }.joined()
        }
        if all { return [hex(channels.map(moved), alpha: digits.count == 8)] }
        return (0..<4).map { index in
            var changed = channels
            changed[index] = moved(changed[index])
            return hex(changed, alpha: digits.count == 8 || index == 3)
        }
    }

    /// A string altered, first in a way that keeps it usable: its first number counted up (`M 60 200` →
    /// `M 61 200`, `×5` → `×6`), then with a letter added.
    static func alteredStrings(_ text: String) -> [JSONValue] {
        var altered: [JSONValue] = []
        if let start = text.firstIndex(where: \.isASCIIDigit) {
            let end = text[start...].firstIndex { !$0.isASCIIDigit } ?? text.endIndex
            if let number = Int(text[start..<end]), number < Int.max {
                altered.append(.string(text.replacingCharacters(in: start..<end, with: String(number + 1))))
            }
        }
        altered.append(.string(text + "x"))
        return altered
    }

    /// A value for an optional parameter the check's setting leaves out; nil for strings (which may name
    /// files) and JSON (whose shape only the plugin knows).
    static func sample(_ parameter: PluginParameter) -> JSONValue? {
        func clamped(_ value: Double) -> Double { Swift.min(Swift.max(value, parameter.min), parameter.max) }
        switch parameter.kind {
        case .number: return .number(clamped(1))
        case .integer: return .number(clamped(1).rounded(.up))
        case .bool: return .bool(true)
        case .choice: return parameter.choices.first.map { .string($0) }
        case .color: return .string("#3366CC")
        case .point: return .array([.number(clamped(100)), .number(clamped(100))])
        case .size: return .number(clamped(20))
        case .rect:
            return .object([
                "x": .number(clamped(20)), "y": .number(clamped(20)), "width": .number(clamped(160)),
                "height": .number(clamped(120)),
            ])
        case .numberList: return .array([.number(clamped(1))])
        case .colorList: return .array(Array(repeating: .string("#3366CC"), count: Swift.max(1, Int(clamped(1)))))
        case .string, .json, .events: return nil
        }
    }

    /// A list's edits: an element changed (up to four, spread over the list), one added, the last removed.
    static func listEdits(_ value: JSONValue, _ parameter: PluginParameter) -> [Edit.Candidate] {
        guard let elements = value.arrayValue else { return [] }
        let colors = parameter.kind == .colorList
        func changed(_ element: JSONValue) -> JSONValue? {
            if colors { return element.stringValue.flatMap { colorVariants($0, all: true).first }.map { .string($0) } }
            return element.doubleValue.flatMap { nudged($0, parameter.min, parameter.max).first }.map { .number($0) }
        }
        var candidates: [Edit.Candidate] = []
        let picked = Set([0, elements.count / 3, 2 * elements.count / 3, elements.count - 1]).sorted()
        for index in picked where elements.indices.contains(index) {
            guard let element = changed(elements[index]) else { continue }
            var list = elements
            list[index] = element
            candidates.append(.init(value: .array(list), change: "changed: element \(index) to \(shown(element))"))
        }
        let added: JSONValue? =
            elements.last.flatMap(changed) ?? (colors ? .string("#3366CC") : sample(parameter)?.arrayValue?.first)
        if let added {
            candidates.append(.init(value: .array(elements + [added]), change: "changed: \(shown(added)) added"))
        }
        if !elements.isEmpty {
            candidates.append(
                .init(value: .array(elements.dropLast()), change: "changed: element \(elements.count - 1) removed"))
        }
        return candidates
    }

    /// A value as a finding shows it, cut at 60 characters.
    static func shown(_ value: JSONValue) -> String {
        let text = value.serialized()
        return text.count > 60 ? String(text.prefix(57)) + "…" : text
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
