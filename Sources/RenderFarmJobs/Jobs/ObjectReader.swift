import StrictJSON

/// The path of `key` inside `parent`: `output.dir`, or `output["odd key"]` when the key is not a
/// plain name, so every message points at one unambiguous place in the file.
package func keyPath(_ parent: String, _ key: String) -> String {
    if isPlainKey(key) { return parent.isEmpty ? key : "\(parent).\(key)" }
    let quoted = JSONValue.string(String(key.prefix(64))).serialized()
    return "\(parent)[\(quoted)]"
}

/// Whether `key` is 1…64 ASCII letters, digits, '_' and '-': a name a key path shows as it is.
func isPlainKey(_ key: String) -> Bool {
    !key.isEmpty && key.utf8.count <= 64
        && key.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil || $0 == "_" || $0 == "-")
        }
}

/// Collects every problem found while decoding, instead of stopping at the first.
package final class IssueCollector {
    private(set) var issues: [JobIssue] = []

    package func add(_ path: String, _ message: String) { issues.append(JobIssue(path: path, message)) }
}

/// Reads typed fields of one JSON object, filling defaults and reporting problems with paths.
package struct ObjectReader {
    package let object: JSONObject
    package let path: String
    package let issues: IssueCollector

    package func childPath(_ key: String) -> String { keyPath(path, key) }

    /// Reports every key not in `allowed`, with a suggestion.
    package func rejectUnknownKeys(_ allowed: [String]) {
        for key in object.keys where !allowed.contains(key) {
            issues.add(childPath(key), Suggestion.unknownKey(key, allowed: allowed))
        }
    }

    package func number(
        _ key: String, default fallback: Double?, in range: ClosedRange<Double>,
        exclusiveLowerBound: Bool = false
    ) -> Double? {
        guard let value = object[key] else {
            if fallback == nil { issues.add(childPath(key), "missing (a number in \(Self.describe(range)))") }
            return fallback
        }
        guard let number = value.doubleValue else {
            issues.add(childPath(key), "expected a number in \(Self.describe(range)), got \(value.typeName)")
            return fallback
        }
        let outside = exclusiveLowerBound ? number <= range.lowerBound : number < range.lowerBound
        guard !outside, number <= range.upperBound else {
            let bounds =
                exclusiveLowerBound
                ? "greater than \(Self.format(range.lowerBound)) and at most \(Self.format(range.upperBound))"
                : Self.describe(range)
            issues.add(childPath(key), "\(Self.format(number)) is out of range (allowed: \(bounds))")
            return fallback
        }
        return number
    }

    package func integer(_ key: String, default fallback: Int?, in range: ClosedRange<Int>) -> Int? {
        let doubles = Double(range.lowerBound)...Double(range.upperBound)
        guard let value = object[key] else {
            if fallback == nil { issues.add(childPath(key), "missing (an integer in \(Self.describe(doubles)))") }
            return fallback
        }
        guard let number = value.doubleValue, number.rounded() == number else {
            issues.add(childPath(key), "expected an integer in \(Self.describe(doubles)), got \(Self.show(value))")
            return fallback
        }
        guard doubles.contains(number) else {
            issues.add(childPath(key), "\(Self.format(number)) is out of range (allowed: \(Self.describe(doubles)))")
            return fallback
        }
        return Int(number)
    }

    package func string(_ key: String, default fallback: String?, maxLength: Int = 256) -> String? {
        guard let value = object[key] else {
            if fallback == nil { issues.add(childPath(key), "missing (a string)") }
            return fallback
        }
        guard let text = value.stringValue else {
            issues.add(childPath(key), "expected a string, got \(value.typeName)")
            return fallback
        }
        guard text.utf8.count <= maxLength else {
            issues.add(childPath(key), "longer than \(maxLength) bytes")
            return fallback
        }
        return text
    }

    /// The boolean at `key`, `fallback` when absent, or nil after reporting a value of another type.
    package func bool(_ key: String, default fallback: Bool) -> Bool? {
        switch object[key] {
        case nil: return fallback
        case .some(.bool(let value)): return value
        case .some(let other):
            issues.add(childPath(key), "expected true or false, got \(Self.show(other))")
            return nil
        }
    }

    /// The nested object at `key` (an empty one when absent), or nil after reporting a type error.
    package func object(_ key: String) -> ObjectReader? {
        guard let value = object[key] else {
            return ObjectReader(object: JSONObject(), path: childPath(key), issues: issues)
        }
        guard let nested = value.objectValue else {
            issues.add(childPath(key), "expected an object, got \(value.typeName)")
            return nil
        }
        return ObjectReader(object: nested, path: childPath(key), issues: issues)
    }

    package static func describe(_ range: ClosedRange<Double>) -> String { JSONValue.describe(range) }

    package static func format(_ number: Double) -> String { JSONValue.format(number) }

    /// A short rendering of a value for messages.
    package static func show(_ value: JSONValue) -> String { value.shortText }
}
