import CairoKit
import StrictJSON

extension PluginParameter {
    /// What is wrong with `value` for this parameter (its type, range, choices), or nil when it is acceptable:
    /// the rule the host applies to a job's value and to the parameter's own default.
    package func problem(with value: JSONValue) -> String? {
        // Only a message shows the value (a long event list would cost more to show than to check).
        var shown: String { value.shortText }
        // A bound that is not a number admits nothing (the catalog refuses such a table before any job).
        func inRange(_ number: Double) -> Bool { number >= min && number <= max }
        func outOfRange(_ number: Double) -> String {
            "\(JSONValue.format(number)) is out of range (allowed: \(rangeText ?? "any number"))"
        }
        switch kind {
        case .number, .integer:
            guard let number = value.doubleValue else { return "expected \(typeText), got \(shown)" }
            if kind == .integer, number.rounded() != number { return "expected an integer, got \(shown)" }
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
            guard let text = value.stringValue, choices.contains(text) else {
                let hint = value.stringValue.map { Suggestion.hint(for: $0, in: choices) } ?? ""
                return "expected one of \(choices.joined(separator: ", ")), got \(shown)\(hint)"
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
            return colorListProblem(value)
        case .events:
            // `EventLog` has read and checked the events, file or list, before this.
            return value.arrayValue == nil ? "expected a list of events or a file name, got \(shown)" : nil
        }
    }

    private func numbers(_ value: JSONValue) -> [Double]? {
        guard let array = value.arrayValue else { return nil }
        let numbers = array.compactMap(\.doubleValue)
        return numbers.count == array.count ? numbers : nil
    }

    /// A colour list: every element a colour, and the count within the table's bounds when they
    /// are finite (`RF_PARAM_COLOR_LIST`: min/max bound the number of colours).
    private func colorListProblem(_ value: JSONValue) -> String? {
        let shown = value.shortText
        guard let elements = value.arrayValue else {
            return "expected a list of colours [\"#RRGGBB\", …], got \(shown)"
        }
        for (index, element) in elements.enumerated() {
            guard let text = element.stringValue, Color(hex: text) != nil else {
                return "element \(index): expected a colour \"#RRGGBB\" or \"#RRGGBBAA\", "
                    + "got \(element.shortText)"
            }
        }
        let count = Double(elements.count)
        if count < min || count > max {
            let allowed = rangeText ?? "any number of"
            return "\(elements.count) colours is out of range (allowed: \(allowed) colours)"
        }
        return nil
    }
}
