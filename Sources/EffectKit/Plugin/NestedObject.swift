import StrictJSON

/// A JSON object inside a parameter (e.g. one barrier of a list), with getters whose errors name the
/// nested parameter, like `barriers[1].elasticity`, and a check that refuses unknown keys.
public struct NestedObject {
    public let object: JSONObject
    /// The parameter's own name, e.g. `barriers[1]`.
    public let parameter: String

    /// Fails when `value` is not an object or has keys outside `keys` (every such key is reported).
    public init(_ value: JSONValue?, parameter: String, keys: [String]) throws(EffectError) {
        guard let object = value?.objectValue else {
            let got = value.map { ", got \($0.shortText)" } ?? ""
            throw EffectError(parameter: parameter, "expected an object {\(keys.joined(separator: ", "))}\(got)")
        }
        let unknown = object.keys.filter { !keys.contains($0) }.map { key in
            EffectError(parameter: "\(parameter).\(key)", Suggestion.unknownKey(key, allowed: keys))
        }
        if let error = EffectError(collecting: unknown) { throw error }
        self.object = object
        self.parameter = parameter
    }

    /// Like `init(_:parameter:keys:)`, but records the problems in `problems` and keeps an object with unknown
    /// keys, so its known keys are still checked in the same pass; nil when `value` is not an object.
    public init?(_ value: JSONValue?, parameter: String, keys: [String], problems: inout EffectProblems) {
        do {
            try self.init(value, parameter: parameter, keys: keys)
        } catch {
            problems.add(error)
            guard let object = value?.objectValue else { return nil }
            self.init(checked: object, parameter: parameter)
        }
    }

    private init(checked object: JSONObject, parameter: String) {
        self.object = object
        self.parameter = parameter
    }

    /// The raw value of `key`, nil when absent.
    public subscript(key: String) -> JSONValue? { object[key] }

    /// A number in `range`, or nil when absent.
    public func number(_ key: String, in range: ClosedRange<Double>) throws(EffectError) -> Double? {
        guard let value = object[key] else { return nil }
        guard let number = value.doubleValue, number.isFinite, range.contains(number) else {
            throw .outOfRange("\(parameter).\(key)", value, range)
        }
        return number
    }

    /// An integer in `range`, or nil when absent.
    public func integer(_ key: String, in range: ClosedRange<Int>) throws(EffectError) -> Int? {
        guard let value = object[key] else { return nil }
        guard let number = value.doubleValue, number.rounded() == number,
            number >= Double(range.lowerBound), number <= Double(range.upperBound)
        else {
            throw .outOfRange(
                "\(parameter).\(key)", value, Double(range.lowerBound)...Double(range.upperBound), integer: true)
        }
        return Int(number)
    }

    /// A string, or nil when absent.
    public func string(_ key: String) throws(EffectError) -> String? {
        guard let value = object[key] else { return nil }
        guard let text = value.stringValue else {
            throw EffectError(parameter: "\(parameter).\(key)", "expected a string, got \(value.shortText)")
        }
        return text
    }

    /// A string member decoded into an enum whose raw values are the allowed choices, or nil when absent;
    /// an unknown value is refused with the closest choice and every allowed one.
    public func choice<T: RawRepresentable & CaseIterable>(_ key: String) throws(EffectError) -> T?
    where T.RawValue == String {
        guard let text = try string(key) else { return nil }
        guard let value = T(rawValue: text) else {
            let names = T.allCases.map(\.rawValue)
            throw EffectError(
                parameter: "\(parameter).\(key)",
                "unknown value \"\(text)\"" + Suggestion.hint(for: text, in: names) + "; allowed: "
                    + names.joined(separator: ", "))
        }
        return value
    }
}
