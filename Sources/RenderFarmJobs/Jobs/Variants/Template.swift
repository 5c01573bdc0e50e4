import Foundation
import StrictJSON

/// A string of a job with `{{column}}` placeholders, filled from one variant's values.
///
/// A string that is exactly one placeholder becomes the value itself (a number stays a number);
/// a placeholder inside other text is replaced by the value's text.
package enum Template {
    /// One value a placeholder can take, with where it came from.
    package struct Value: Sendable, Equatable {
        package var value: JSONValue
        /// Set for CSV cells: the text as written, typed by the place it is used in.
        package var text: String?
        /// `streamers.csv:7` or `variants.matrix`.
        package var origin: String
    }

    /// The placeholder names in `text`, in order; nil when it has none.
    package static func names(in text: String) -> [String]? {
        guard text.contains("{{") else { return nil }
        var names: [String] = []
        var rest = Substring(text)
        while let open = rest.range(of: "{{"), let close = rest[open.upperBound...].range(of: "}}") {
            names.append(rest[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespaces))
            rest = rest[close.upperBound...]
        }
        return names.isEmpty ? nil : names
    }

    /// The text of `value` inside a longer string.
    package static func text(of value: JSONValue) -> String {
        if case .string(let text) = value { return text }
        return value.serialized()
    }

    /// `text` with every placeholder replaced by the text of its value; nil when a name is unknown.
    package static func interpolate(_ text: String, _ lookup: (String) -> JSONValue?) -> String? {
        interpolate(text, lookup, keepingUnknown: false)
    }

    /// `text` with each placeholder `lookup` knows filled and the others kept as written (a banner
    /// template's event fields in a job with variants).
    package static func interpolate(_ text: String, _ lookup: (String) -> JSONValue?, keepingUnknown: Bool) -> String? {
        var result = ""
        var rest = Substring(text)
        while let open = rest.range(of: "{{"), let close = rest[open.upperBound...].range(of: "}}") {
            result += rest[..<open.lowerBound]
            let name = rest[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespaces)
            if let value = lookup(name) {
                result += self.text(of: value)
            } else if keepingUnknown {
                result += rest[open.lowerBound..<close.upperBound]
            } else {
                return nil
            }
            rest = rest[close.upperBound...]
        }
        return result + rest
    }

    /// The JSON value CSV text stands for at a place of `kind`: the text itself where a string, an
    /// enum choice or a colour is expected, else what `inferred` reads in it.
    package static func typed(_ text: String, as kind: PluginParameter.Kind) -> JSONValue {
        [.string, .choice, .color].contains(kind) ? .string(text) : inferred(text)
    }

    /// The JSON value CSV text stands for where no type is known: a number, `true`/`false`, a
    /// JSON list or object when it parses as one, else the text as a string.
    package static func inferred(_ text: String) -> JSONValue {
        // Most cells have no space around them: trimming (a Foundation call) is only paid when one has.
        let padded = [text.unicodeScalars.first, text.unicodeScalars.last].contains {
            $0.map(CharacterSet.whitespaces.contains) ?? false
        }
        let trimmed = padded ? text.trimmingCharacters(in: .whitespaces) : text
        if trimmed == "true" { return .bool(true) }
        if trimmed == "false" { return .bool(false) }
        if let first = trimmed.first, first == "-" || first.isNumber || first == "[" || first == "{",
            let value = try? JSONParser.parse(trimmed),
            value.arrayValue != nil || value.objectValue != nil
                || value.doubleValue != nil
        {
            return value
        }
        return .string(text)
    }
}
