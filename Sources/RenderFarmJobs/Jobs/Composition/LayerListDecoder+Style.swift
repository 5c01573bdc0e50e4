import CairoKit
import StrictJSON

/// Reads a layer's `style` (the RenderFarm article ComposingLayers, "Layer styles").
extension LayerListDecoder {
    /// The largest length a style takes, in points: a blur, a distance, a spread.
    static let maxStyleLength = 500.0
    /// The widest stroke, in points.
    static let maxStrokeWidth = 200.0

    func decodeStyle(_ reader: ObjectReader) -> LayerStyle? {
        reader.rejectUnknownKeys(["dropShadow", "outerGlow", "innerGlow", "stroke", "blur", "adjust"])
        var style = LayerStyle()
        if let shadow = part("dropShadow", of: reader) {
            shadow.rejectUnknownKeys(["color", "opacity", "angle", "distance", "blur", "spread"])
            var value = LayerStyle.Shadow()
            value.color = color("color", of: shadow, default: value.color)
            value.opacity = fraction("opacity", of: shadow, default: value.opacity)
            value.angle = animatedNumber("angle", of: shadow, in: -1_000_000...1_000_000, default: value.angle)
            value.distance = length("distance", of: shadow, default: value.distance)
            value.blur = length("blur", of: shadow, default: value.blur)
            value.spread = length("spread", of: shadow, default: value.spread)
            style.dropShadow = value
        }
        style.outerGlow = part("outerGlow", of: reader).map(glow)
        style.innerGlow = part("innerGlow", of: reader).map(glow)
        if let stroke = part("stroke", of: reader) {
            stroke.rejectUnknownKeys(["color", "opacity", "width", "position"])
            var value = LayerStyle.Stroke()
            value.color = color("color", of: stroke, default: value.color)
            value.opacity = fraction("opacity", of: stroke, default: value.opacity)
            value.width = animatedNumber("width", of: stroke, in: 0...Self.maxStrokeWidth, default: value.width)
            let positions = LayerStyle.Stroke.Position.allCases.map(\.rawValue)
            if let name = stroke.string("position", default: value.position.rawValue, maxLength: 16) {
                if let position = LayerStyle.Stroke.Position(rawValue: name) {
                    value.position = position
                } else {
                    issues.add(
                        stroke.childPath("position"),
                        "unknown position \"\(name)\"\(Suggestion.hint(for: name, in: positions)); one of "
                            + positions.joined(separator: ", "))
                }
            }
            style.stroke = value
        }
        if reader.object["blur"] != nil {
            style.blur = length("blur", of: reader, default: .constant(0))
        }
        if let adjust = part("adjust", of: reader) {
            adjust.rejectUnknownKeys(["brightness", "contrast", "saturation", "tint", "tintAmount"])
            var value = LayerStyle.Adjustment()
            value.brightness = animatedNumber("brightness", of: adjust, in: -1...1, default: value.brightness)
            value.contrast = animatedNumber("contrast", of: adjust, in: -1...1, default: value.contrast)
            value.saturation = animatedNumber("saturation", of: adjust, in: -1...1, default: value.saturation)
            value.tint = color("tint", of: adjust, default: value.tint)
            value.tintAmount = fraction("tintAmount", of: adjust, default: value.tintAmount)
            style.adjust = value
        }
        return style.isEmpty ? nil : style
    }

    private func glow(_ reader: ObjectReader) -> LayerStyle.Glow {
        reader.rejectUnknownKeys(["color", "opacity", "blur", "spread"])
        var value = LayerStyle.Glow()
        value.color = color("color", of: reader, default: value.color)
        value.opacity = fraction("opacity", of: reader, default: value.opacity)
        value.blur = length("blur", of: reader, default: value.blur)
        value.spread = length("spread", of: reader, default: value.spread)
        return value
    }

    /// The style's part `key`: an object (`{}` for every default), or nil when absent or not an object.
    private func part(_ key: String, of reader: ObjectReader) -> ObjectReader? {
        guard reader.object[key] != nil else { return nil }
        return reader.object(key)
    }

    private func color(_ key: String, of reader: ObjectReader, default fallback: Color) -> Color {
        guard reader.object[key] != nil, let text = reader.string(key, default: nil, maxLength: 16) else {
            return fallback
        }
        guard let color = Color(hex: text) else {
            issues.add(reader.childPath(key), "expected a colour \"#RRGGBB\" or \"#RRGGBBAA\", got \"\(text)\"")
            return fallback
        }
        return color
    }

    private func length(_ key: String, of reader: ObjectReader, default fallback: Animated<Double>)
        -> Animated<Double>
    {
        animatedNumber(key, of: reader, in: 0...Self.maxStyleLength, default: fallback, unit: " points")
    }

    private func fraction(_ key: String, of reader: ObjectReader, default fallback: Animated<Double>)
        -> Animated<Double>
    {
        animatedNumber(key, of: reader, in: 0...1, default: fallback)
    }

    /// A number in `range`, constant or keyframed.
    private func animatedNumber(
        _ key: String, of reader: ObjectReader, in range: ClosedRange<Double>, default fallback: Animated<Double>,
        unit: String = ""
    ) -> Animated<Double> {
        guard let value = reader.object[key] else { return fallback }
        let read = { (value: JSONValue, path: String) -> Double? in
            guard let number = value.doubleValue, range.contains(number) else {
                issues.add(
                    path, "expected a number in \(ObjectReader.describe(range))\(unit), got \(ObjectReader.show(value))"
                )
                return nil
            }
            return number
        }
        return animated(value, path: reader.childPath(key), read: read) ?? fallback
    }
}
