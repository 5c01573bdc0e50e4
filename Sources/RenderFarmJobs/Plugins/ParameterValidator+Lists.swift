import CairoKit
import StrictJSON

extension ParameterValidator {
    /// A colour list: every element a colour, and the count within the table's bounds when they
    /// are finite (`RF_PARAM_COLOR_LIST`: min/max bound the number of colours).
    package static func checkColorList(_ value: JSONValue, _ parameter: PluginParameter) -> String? {
        let shown = ObjectReader.show(value)
        guard let elements = value.arrayValue else {
            return "expected a list of colours [\"#RRGGBB\", …], got \(shown)"
        }
        for (index, element) in elements.enumerated() {
            guard let text = element.stringValue, Color(hex: text) != nil else {
                return "element \(index): expected a colour \"#RRGGBB\" or \"#RRGGBBAA\", "
                    + "got \(ObjectReader.show(element))"
            }
        }
        let count = Double(elements.count)
        if count < parameter.min || count > parameter.max {
            let allowed = parameter.rangeText ?? "any number of"
            return "\(elements.count) colours is out of range (allowed: \(allowed) colours)"
        }
        return nil
    }
}
