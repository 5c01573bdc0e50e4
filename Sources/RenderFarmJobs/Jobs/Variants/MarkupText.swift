import CairoKit
import Foundation
import StrictJSON

/// Where a variant's values go into Pango markup: the `text` of every layer whose `markup` is true (the
/// text effect's convention, which any effect with a `markup` switch over its `text` shares).
///
/// A value from a variants row is data, like an event's field: `<b>` in a CSV cell must be drawn as
/// `<b>`, not open a bold span or break the markup. The text effect escapes the event fields it fills;
/// a row's values are filled here, by the host, before any plugin sees the text, so the host escapes
/// them. Values `variants.matrix` gives are written in the job by its author, like the rest of the text,
/// and stay as they are.
package enum MarkupText {
    /// The places (`layers[2].params.text`, in groups too) whose text is markup for a variant with `values`:
    /// the layer's `markup` is `true`, or a placeholder a value `true` fills.
    static func places(in layers: [JSONValue], path: String, values: [String: Template.Value]) -> Set<String> {
        var places: Set<String> = []
        for (index, layer) in layers.enumerated() {
            let place = "\(path)[\(index)]"
            guard let object = layer.objectValue else { continue }
            if let group = object["group"]?.arrayValue {
                places.formUnion(Self.places(in: group, path: place + ".group", values: values))
            } else if let params = object["params"]?.objectValue, isOn(params["markup"], values: values) {
                places.insert(place + ".params.text")
            }
        }
        return places
    }

    /// Whether a `markup` value is true once the variant's values fill it.
    private static func isOn(_ value: JSONValue?, values: [String: Template.Value]) -> Bool {
        switch value {
        case .bool(let on): return on
        case .string(let text):
            guard let names = Template.names(in: text), names.count == 1,
                text.trimmingCharacters(in: .whitespaces) == "{{\(names[0])}}"
            else { return false }
            return values[names[0]]?.value == .bool(true)
        default: return false
        }
    }

    /// `value` as markup text puts it: escaped when it comes from a row, as written when from the matrix.
    static func filling(_ value: Template.Value) -> Template.Value {
        guard value.origin != VariantExpansion.matrixOrigin else { return value }
        let text = PangoMarkup.escaped(Template.text(of: value.value))
        return Template.Value(value: .string(text), text: value.text == nil ? nil : text, origin: value.origin)
    }
}
