import CairoKit
import StrictJSON

/// A layer's parameters (validated and with defaults filled by the host), with typed getters
/// whose errors name the parameter.
public struct EffectParameters: Sendable {
    public let values: JSONObject

    public init(_ values: JSONObject) {
        self.values = values
    }

    /// What `create` accepts from the host, which has checked the job already: an event log of a
    /// three-hour stream (up to 1,000,000 events of about 60 bytes each) fits.
    static let limits = JSONParser.Limits(maxBytes: 256 << 20, maxContainerCount: 2_000_000)

    /// Parses the `params_json` the host passes to `create`.
    public init(json text: String) throws(EffectError) {
        do {
            guard case .object(let object) = try JSONParser.parse(text, limits: Self.limits) else {
                throw EffectError("parameters must be a JSON object")
            }
            self.init(object)
        } catch let error as JSONParseError {
            throw EffectError("parameters are not valid JSON: \(error)")
        } catch {
            throw EffectError("parameters must be a JSON object")
        }
    }

    /// A frame key of every value but those named in `excluded` (the values' JSON with sorted keys): what an
    /// effect whose drawing follows from its parameters alone combines into its keys, so that they cover
    /// the parameters (``EffectDescriptor/keysCoverParameters``).
    public func digest(excluding excluded: Set<String> = []) -> FrameKey {
        var kept = values
        for name in excluded { kept[name] = nil }
        return FrameKey.digest(of: Array(JSONValue.object(kept).serialized(sortedKeys: true).utf8))
    }

    /// The raw value, or nil when absent.
    public subscript(name: String) -> JSONValue? { values[name] }

    public func contains(_ name: String) -> Bool { values[name] != nil }

    public func number(_ name: String) throws(EffectError) -> Double {
        guard let value = values[name]?.doubleValue, value.isFinite else { throw mismatch(name, "a number") }
        return value
    }

    public func integer(_ name: String) throws(EffectError) -> Int {
        let value = try number(name)
        guard value.rounded() == value, abs(value) < 9.0e15 else { throw mismatch(name, "an integer") }
        return Int(value)
    }

    public func bool(_ name: String) throws(EffectError) -> Bool {
        guard let value = values[name]?.boolValue else { throw mismatch(name, "true or false") }
        return value
    }

    public func string(_ name: String) throws(EffectError) -> String {
        guard let value = values[name]?.stringValue else { throw mismatch(name, "a string") }
        return value
    }

    /// A string parameter decoded into an enum whose raw values are the allowed choices.
    public func choice<T: RawRepresentable>(_ name: String, as type: T.Type = T.self) throws(EffectError) -> T
    where T.RawValue == String {
        let text = try string(name)
        guard let value = T(rawValue: text) else { throw EffectError(parameter: name, "unknown value \"\(text)\"") }
        return value
    }

    public func color(_ name: String) throws(EffectError) -> Color {
        try Self.color(values[name], parameter: name)
    }

    /// A colour list (`ParameterType.colorList`).
    public func colors(_ name: String) throws(EffectError) -> [Color] {
        guard let array = values[name]?.arrayValue else { throw mismatch(name, "a list of colours") }
        var result: [Color] = []
        for (index, element) in array.enumerated() {
            result.append(try Self.color(element, parameter: "\(name)[\(index)]"))
        }
        return result
    }

    public func point(_ name: String) throws(EffectError) -> Point {
        try Self.point(values[name], parameter: name)
    }

    public func rect(_ name: String) throws(EffectError) -> Rect {
        try Self.rect(values[name], parameter: name)
    }

    /// A number (square, or circle diameter) or `[width, height]`.
    public func size(_ name: String) throws(EffectError) -> Size {
        try Self.size(values[name], parameter: name)
    }

    public func numbers(_ name: String) throws(EffectError) -> [Double] {
        guard let array = values[name]?.arrayValue else { throw mismatch(name, "a list of numbers") }
        var result: [Double] = []
        for element in array {
            guard let number = element.doubleValue, number.isFinite else { throw mismatch(name, "a list of numbers") }
            result.append(number)
        }
        return result
    }

    // MARK: Value decoders, shared with nested objects (e.g. the items of a list)

    /// Coordinates beyond this many points are refused: nothing on a canvas is that far away,
    /// and physics engines abort on the infinities such values turn into (Motion's `Point.coordinateLimit`).
    public static let coordinateLimit = Point.coordinateLimit
    /// The largest width or height of an item, in points.
    public static let sizeLimit = 100_000.0

    public static func color(_ value: JSONValue?, parameter: String) throws(EffectError) -> Color {
        guard let text = value?.stringValue, let color = Color(hex: text) else {
            throw EffectError(parameter: parameter, Self.expected("a colour \"#RRGGBB\" or \"#RRGGBBAA\"", value))
        }
        return color
    }

    public static func point(_ value: JSONValue?, parameter: String) throws(EffectError) -> Point {
        guard let array = value?.arrayValue, array.count == 2,
            let x = array[0].doubleValue, let y = array[1].doubleValue, x.isFinite, y.isFinite
        else { throw EffectError(parameter: parameter, Self.expected("a point [x, y]", value)) }
        guard abs(x) <= coordinateLimit, abs(y) <= coordinateLimit else {
            throw EffectError(
                parameter: parameter, "coordinates must be within ±\(Int(coordinateLimit)) points" + Self.got(value))
        }
        return Point(x, y)
    }

    public static func rect(_ value: JSONValue?, parameter: String) throws(EffectError) -> Rect {
        let keys = ["x", "y", "width", "height"]
        let unknown = (value?.objectValue?.keys ?? []).filter { !keys.contains($0) }.map { key in
            EffectError(parameter: "\(parameter).\(key)", Suggestion.unknownKey(key, allowed: keys))
        }
        if let error = EffectError(collecting: unknown) { throw error }
        guard let object = value?.objectValue,
            let x = object["x"]?.doubleValue, let y = object["y"]?.doubleValue,
            let width = object["width"]?.doubleValue, let height = object["height"]?.doubleValue,
            [x, y, width, height].allSatisfy({ $0.isFinite && abs($0) <= coordinateLimit }), width >= 0, height >= 0
        else {
            throw EffectError(
                parameter: parameter,
                "expected a rect {\"x\", \"y\", \"width\", \"height\"} with width, "
                    + "height ≥ 0 and every value within ±\(Int(coordinateLimit)) points" + Self.got(value))
        }
        return Rect(x: x, y: y, width: width, height: height)
    }

    public static func size(_ value: JSONValue?, parameter: String) throws(EffectError) -> Size {
        let valid = { (side: Double) in side.isFinite && side > 0 && side <= sizeLimit }
        if let side = value?.doubleValue, valid(side) { return Size(width: side, height: side) }
        if let array = value?.arrayValue, array.count == 2,
            let width = array[0].doubleValue, let height = array[1].doubleValue, valid(width), valid(height)
        {
            return Size(width: width, height: height)
        }
        throw EffectError(
            parameter: parameter,
            "expected a positive number or [width, height], at most \(Int(sizeLimit)) points" + Self.got(value))
    }

    private func mismatch(_ name: String, _ expected: String) -> EffectError {
        EffectError(parameter: name, Self.expected(expected, values[name]))
    }

    /// `, got "red"` for messages, or nothing when the value is absent.
    public static func got(_ value: JSONValue?) -> String { value.map { ", got \($0.shortText)" } ?? "" }

    /// `expected a point [x, y], got [1]`, or `missing (expected a point [x, y])` when absent.
    static func expected(_ what: String, _ value: JSONValue?) -> String {
        value == nil ? "missing (expected \(what))" : "expected \(what)" + got(value)
    }
}
