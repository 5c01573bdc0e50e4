import CairoKit
import StrictJSON

/// Checks a layer's `params` against the plugin's table before `create`, so every plugin
/// reports bad input in the same words, and fills in the defaults.
package enum ParameterValidator {
    package static func validate(_ params: JSONObject, against info: PluginInfo, path: String) -> (JSONObject, [JobIssue]) {
        var issues: [JobIssue] = []
        let names = info.parameters.map(\.name)
        for key in params.keys where info.parameter(named: key) == nil {
            issues.append(
                JobIssue(
                    path: keyPath(path, key),
                    "\"\(info.id)\" has no parameter \"\(key)\""
                        + Suggestion.hint(for: key, in: names) + "; see `renderfarm plugins \(info.id)`"))
        }
        var filled = JSONObject()
        for parameter in info.parameters {
            guard var value = params[parameter.name] ?? parameter.defaultValue else { continue }
            if params[parameter.name] != nil, let problem = check(value, parameter) {
                issues.append(JobIssue(path: "\(path).\(parameter.name)", problem))
                // The plugin still checks the rest of the layer in the same pass, on the default.
                guard let fallback = parameter.defaultValue else { continue }
                value = fallback
            }
            filled[parameter.name] = value
        }
        return (filled, issues)
    }

    /// What is wrong with `value` for `parameter`, or nil when it is acceptable.
    package static func check(_ value: JSONValue, _ parameter: PluginParameter) -> String? {
        // Only a message shows the value (a long event list would cost more to show than to check).
        var shown: String { ObjectReader.show(value) }
        // A bound that is not a number admits nothing (the catalog refuses such a table before any job).
        func inRange(_ number: Double) -> Bool { number >= parameter.min && number <= parameter.max }
        func outOfRange(_ number: Double) -> String {
            "\(ObjectReader.format(number)) is out of range (allowed: \(parameter.rangeText ?? "any number"))"
        }
        switch parameter.kind {
        case .number, .integer:
            guard let number = value.doubleValue else { return "expected \(parameter.typeText), got \(shown)" }
            if parameter.kind == .integer, number.rounded() != number { return "expected an integer, got \(shown)" }
            return inRange(number) ? nil : outOfRange(number)
        case .bool:
            return value.boolValue == nil ? "expected true or false, got \(shown)" : nil
        case .color:
            guard let text = value.stringValue, Color(hex: text) != nil else {
                return "expected a colour \"#RRGGBB\" or \"#RRGGBBAA\", got \(shown)"
            }
            return nil
        case .point:
            guard let numbers = numbers(value), numbers.count == 2 else {
                return "expected a point [x, y], got \(shown)"
            }
            return numbers.first { !inRange($0) }.map(outOfRange)
        case .rect:
            guard let object = value.objectValue, Set(object.keys) == ["x", "y", "width", "height"],
                let numbers = numbers(.array(["x", "y", "width", "height"].compactMap { object[$0] }))
            else { return "expected a rect {\"x\": …, \"y\": …, \"width\": …, \"height\": …}, got \(shown)" }
            if numbers[2] < 0 || numbers[3] < 0 { return "width and height must not be negative, got \(shown)" }
            return numbers.first { !inRange($0) }.map(outOfRange)
        case .string:
            return value.stringValue == nil ? "expected a string, got \(shown)" : nil
        case .choice:
            guard let text = value.stringValue, parameter.choices.contains(text) else {
                let hint = value.stringValue.map { Suggestion.hint(for: $0, in: parameter.choices) } ?? ""
                return "expected one of \(parameter.choices.joined(separator: ", ")), got \(shown)\(hint)"
            }
            return nil
        case .size:
            if let side = value.doubleValue {
                return side > 0 && inRange(side) ? nil : outOfRange(side) + "; a size must be positive"
            }
            guard let numbers = numbers(value), numbers.count == 2 else {
                return "expected a size: a number or [width, height], got \(shown)"
            }
            return numbers.first { !($0 > 0 && inRange($0)) }.map { outOfRange($0) + "; a size must be positive" }
        case .numberList:
            guard let numbers = numbers(value) else { return "expected a list of numbers, got \(shown)" }
            return numbers.first { !inRange($0) }.map(outOfRange)
        case .json:
            return nil
        case .colorList:
            return checkColorList(value, parameter)
        case .events:
            // `EventLog` has read and checked the events, file or list, before this.
            return value.arrayValue == nil ? "expected a list of events or a file name, got \(shown)" : nil
        }
    }

    private static func numbers(_ value: JSONValue) -> [Double]? {
        guard let array = value.arrayValue else { return nil }
        let numbers = array.compactMap(\.doubleValue)
        return numbers.count == array.count ? numbers : nil
    }
}
