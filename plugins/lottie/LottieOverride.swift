import EffectKit

/// One entry of the `overrides` parameter: a value for a property of the shapes a keypath names,
/// applied through rlottie's property API (`lottie_animation_property_override`).
///
/// Keypaths are the `nm` names from layer to shape, joined by dots (`gift.box.fill`); `*` matches one
/// name and `**` any number of them. rlottie 0.1 applies colours, opacities and stroke widths to fills
/// and strokes, and position, scale and rotation to shape groups (not to whole layers).
struct LottieOverride: Sendable, Equatable {
    enum Property: String, CaseIterable, Sendable {
        case fillColor, strokeColor, fillOpacity, strokeOpacity, opacity, strokeWidth, position, scale, rotation
    }

    enum Value: Sendable, Equatable {
        /// Straight red, green, blue in 0…1.
        case color(Double, Double, Double)
        case number(Double)
        case pair(Double, Double)
    }

    var keypath: String
    var property: Property
    var value: Value

    /// The most overrides one layer may set.
    static let limit = 64
    /// The longest keypath, in bytes.
    static let keypathLimit = 256

    /// Decodes the `overrides` parameter: `[{"keypath", "property", "value"}, …]`.
    static func list(_ value: JSONValue?) throws(EffectError) -> [LottieOverride] {
        guard let value else { return [] }
        guard let entries = value.arrayValue else {
            throw EffectError(parameter: "overrides", "expected a list of {\"keypath\", \"property\", \"value\"}")
        }
        guard entries.count <= limit else {
            throw EffectError(parameter: "overrides", "at most \(limit) overrides (got \(entries.count))")
        }
        var result: [LottieOverride] = []
        for (index, entry) in entries.enumerated() {
            result.append(try LottieOverride(entry, parameter: "overrides[\(index)]"))
        }
        return result
    }

    init(keypath: String, property: Property, value: Value) {
        self.keypath = keypath
        self.property = property
        self.value = value
    }

    private init(_ entry: JSONValue, parameter: String) throws(EffectError) {
        let object = try NestedObject(entry, parameter: parameter, keys: ["keypath", "property", "value"])
        guard let keypath = try object.string("keypath") else {
            throw EffectError(parameter: parameter + ".keypath", "missing (e.g. \"gift.box.fill\")")
        }
        let segments = keypath.split(separator: ".", omittingEmptySubsequences: false)
        guard !keypath.isEmpty, keypath.utf8.count <= Self.keypathLimit, !keypath.utf8.contains(0),
            segments.allSatisfy({ !$0.isEmpty })
        else {
            throw EffectError(
                parameter: parameter + ".keypath",
                "expected names separated by dots (at most \(Self.keypathLimit) bytes, no empty name)")
        }
        let names = Property.allCases.map(\.rawValue).joined(separator: ", ")
        guard let name = try object.string("property") else {
            throw EffectError(parameter: parameter + ".property", "missing (one of \(names))")
        }
        guard let property = Property(rawValue: name) else {
            throw EffectError(parameter: parameter + ".property", "unknown property \"\(name)\" (expected \(names))")
        }
        let place = parameter + ".value"
        guard let raw = object["value"] else { throw EffectError(parameter: place, "missing") }
        self.init(keypath: keypath, property: property, value: try Self.value(raw, for: property, parameter: place))
    }

    private static func value(_ raw: JSONValue, for property: Property, parameter: String) throws(EffectError)
        -> Value
    {
        switch property {
        case .fillColor, .strokeColor:
            let color = try EffectParameters.color(raw, parameter: parameter)
            guard color.alpha == 1 else {
                throw EffectError(
                    parameter: parameter, "expected \"#RRGGBB\" (set transparency with an opacity override)")
            }
            return .color(color.red, color.green, color.blue)
        case .fillOpacity, .strokeOpacity, .opacity:
            return .number(try number(raw, in: 0...1, parameter: parameter) * 100)
        case .strokeWidth:
            return .number(try number(raw, in: 0...10_000, parameter: parameter))
        case .rotation:
            return .number(try number(raw, in: -100_000...100_000, parameter: parameter))
        case .position:
            let point = try EffectParameters.point(raw, parameter: parameter)
            return .pair(point.x, point.y)
        case .scale:
            // A factor (1 = unchanged) for both axes, or [x, y]; rlottie takes percent.
            if let factor = raw.doubleValue {
                let checked = try number(.number(factor), in: 0...1000, parameter: parameter)
                return .pair(checked * 100, checked * 100)
            }
            guard let pair = raw.arrayValue, pair.count == 2 else {
                throw EffectError(parameter: parameter, "expected a factor or [x, y] factors in 0…1000")
            }
            return .pair(
                try number(pair[0], in: 0...1000, parameter: parameter) * 100,
                try number(pair[1], in: 0...1000, parameter: parameter) * 100)
        }
    }

    private static func number(_ raw: JSONValue, in range: ClosedRange<Double>, parameter: String)
        throws(EffectError) -> Double
    {
        guard let number = raw.doubleValue, number.isFinite, range.contains(number) else {
            throw EffectError(
                parameter: parameter, "expected a number in \(format(range.lowerBound))…\(format(range.upperBound))")
        }
        return number
    }

    private static func format(_ value: Double) -> String {
        value.rounded() == value ? String(Int(value)) : String(value)
    }
}
