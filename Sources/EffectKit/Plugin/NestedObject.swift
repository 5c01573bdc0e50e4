/// A JSON object inside a parameter (e.g. one barrier of a list), with getters whose errors name the
/// nested parameter, like `barriers[1].elasticity`, and a check that refuses unknown keys.
public struct NestedObject {
    public let object: JSONObject
    /// The parameter's own name, e.g. `barriers[1]`.
    public let parameter: String

    /// Fails when `value` is not an object or has a key outside `keys`.
    public init(_ value: JSONValue?, parameter: String, keys: [String]) throws(EffectError) {
        guard let object = value?.objectValue else {
            throw EffectError(parameter: parameter, "expected an object {\(keys.joined(separator: ", "))}")
        }
        for key in object.keys where !keys.contains(key) {
            throw EffectError(
                parameter: "\(parameter).\(key)", "unknown key (expected \(keys.joined(separator: ", ")))")
        }
        self.object = object
        self.parameter = parameter
    }

    /// The raw value of `key`, nil when absent.
    public subscript(key: String) -> JSONValue? { object[key] }

    /// A number in `range`, or nil when absent.
    public func number(_ key: String, in range: ClosedRange<Double>) throws(EffectError) -> Double? {
        guard let value = object[key] else { return nil }
        guard let number = value.doubleValue, number.isFinite, range.contains(number) else {
            throw EffectError(
                parameter: "\(parameter).\(key)", "expected a number in \(range.lowerBound)…\(range.upperBound)")
        }
        return number
    }

    /// An integer in `range`, or nil when absent.
    public func integer(_ key: String, in range: ClosedRange<Int>) throws(EffectError) -> Int? {
        guard let value = object[key] else { return nil }
        guard let number = value.doubleValue, number.rounded() == number,
            number >= Double(range.lowerBound), number <= Double(range.upperBound)
        else {
            throw EffectError(
                parameter: "\(parameter).\(key)", "expected an integer in \(range.lowerBound)…\(range.upperBound)")
        }
        return Int(number)
    }

    /// A string, or nil when absent.
    public func string(_ key: String) throws(EffectError) -> String? {
        guard let value = object[key] else { return nil }
        guard let text = value.stringValue else {
            throw EffectError(parameter: "\(parameter).\(key)", "expected a string")
        }
        return text
    }
}
