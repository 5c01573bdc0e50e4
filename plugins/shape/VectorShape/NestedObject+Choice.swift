import EffectKit

extension NestedObject {
    /// A string member decoded into an enum whose raw values are the allowed choices, or nil when absent.
    func choice<T: RawRepresentable & CaseIterable>(_ key: String) throws(EffectError) -> T?
    where T.RawValue == String {
        guard let text = try string(key) else { return nil }
        guard let value = T(rawValue: text) else {
            throw EffectError(
                parameter: "\(parameter).\(key)",
                "unknown value \"\(text)\"; allowed: \(T.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return value
    }
}
