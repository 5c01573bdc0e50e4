/// How values appear in error messages, the same in the host and in the plugins.
extension JSONValue {
    /// The value as JSON, cut to 40 characters: `"gif"`, `2.5`, `{"x": 1, …`.
    public var shortText: String {
        let text = serialized()
        return text.count > 40 ? String(text.prefix(37)) + "…" : text
    }

    /// A number as JSON writes it: `2`, not `2.0`.
    public static func format(_ number: Double) -> String { JSONValue.number(number).serialized() }

    /// A range as `0.01…1`.
    public static func describe(_ range: ClosedRange<Double>) -> String {
        "\(format(range.lowerBound))…\(format(range.upperBound))"
    }
}
