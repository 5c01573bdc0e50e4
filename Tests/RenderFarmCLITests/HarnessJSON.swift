import Foundation

/// A JSON value the differential harness builds jobs from. Objects are written with sorted keys and
/// numbers in their shortest form, so a job's text depends only on the seed that generated it.
enum HarnessJSON: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([HarnessJSON])
    case object([String: HarnessJSON])

    var objectValue: [String: HarnessJSON]? {
        if case .object(let object) = self { return object }
        return nil
    }

    var arrayValue: [HarnessJSON]? {
        if case .array(let array) = self { return array }
        return nil
    }

    var stringValue: String? {
        if case .string(let string) = self { return string }
        return nil
    }

    var numberValue: Double? {
        if case .number(let number) = self { return number }
        return nil
    }

    /// The member `key` of an object (nil for other values).
    subscript(key: String) -> HarnessJSON? {
        get { objectValue?[key] }
        set {
            guard var object = objectValue else { return }
            object[key] = newValue
            self = .object(object)
        }
    }

    /// A number, rounded to `places` decimals so that generated jobs stay readable.
    static func rounded(_ value: Double, places: Int = 2) -> HarnessJSON {
        let factor = pow(10, Double(places))
        return .number((value * factor).rounded() / factor)
    }

    /// The value as compact JSON text.
    var text: String {
        var out = ""
        write(to: &out, indent: nil)
        return out
    }

    /// The value as JSON text with one member per line (the same value as `text`, other bytes).
    var prettyText: String {
        var out = ""
        write(to: &out, indent: "")
        return out + "\n"
    }

    private func write(to out: inout String, indent: String?) {
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .number(let value): out += Self.format(value)
        case .string(let value): Self.quote(value, into: &out)
        case .array(let values):
            out += "["
            for (index, value) in values.enumerated() {
                if index > 0 { out += indent == nil ? "," : ", " }
                value.write(to: &out, indent: indent)
            }
            out += "]"
        case .object(let members):
            let inner = indent.map { $0 + "  " }
            out += "{"
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { out += "," }
                if let inner { out += "\n" + inner }
                Self.quote(key, into: &out)
                out += indent == nil ? ":" : ": "
                members[key]?.write(to: &out, indent: inner)
            }
            if let indent, !members.isEmpty { out += "\n" + indent }
            out += "}"
        }
    }

    /// Integers without a fraction, other numbers in Swift's shortest round-trip form.
    static func format(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    private static func quote(_ string: String, into out: inout String) {
        out += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 {
                    out += String(format: "\\u%04x", scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }

    /// Reads JSON text (Foundation's parser); nil when it is not JSON.
    static func parse(_ data: Data) -> HarnessJSON? {
        guard let value = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else {
            return nil
        }
        return HarnessJSON(foundation: value)
    }

    private init?(foundation value: Any) {
        switch value {
        case is NSNull: self = .null
        case let string as String: self = .string(string)
        case let number as NSNumber:
            // Foundation returns JSON booleans as NSNumbers of type "c" (char).
            self = String(cString: number.objCType) == "c" ? .bool(number.boolValue) : .number(number.doubleValue)
        case let array as [Any]:
            var values: [HarnessJSON] = []
            for element in array {
                guard let value = HarnessJSON(foundation: element) else { return nil }
                values.append(value)
            }
            self = .array(values)
        case let object as [String: Any]:
            var members: [String: HarnessJSON] = [:]
            for (key, element) in object {
                guard let value = HarnessJSON(foundation: element) else { return nil }
                members[key] = value
            }
            self = .object(members)
        default: return nil
        }
    }
}
