import CCairo
import EffectKit
import StrictJSON

/// What a shape is filled or stroked with: a colour, or a linear or radial gradient in canvas points.
package enum ShapePaint: Sendable, Equatable {
    case color(Color)
    case gradient(Gradient)

    package struct Gradient: Sendable, Equatable {
        package enum Geometry: Sendable, Equatable {
            /// Offset 0 at `from`, 1 at `to`, constant across the line between them.
            case linear(from: Point, to: Point)
            /// Offset 0 on the circle (`center0`, `radius0`), 1 on (`center1`, `radius1`), cairo's (and
            /// the HTML canvas's) two-circle gradient.
            case radial(center0: Point, radius0: Double, center1: Point, radius1: Double)
        }
        package enum Extend: String, Sendable, CaseIterable {
            /// The end colours continue beyond the ends.
            case pad
            /// Transparent beyond the ends.
            case none
            case `repeat`
            case reflect
        }
        package var geometry: Geometry
        /// Offsets in 0…1, in increasing order, with their colours.
        package var stops: [(offset: Double, color: Color)]
        package var extend: Extend

        package static func == (lhs: Gradient, rhs: Gradient) -> Bool {
            lhs.geometry == rhs.geometry && lhs.extend == rhs.extend && lhs.stops.count == rhs.stops.count
                && zip(lhs.stops, rhs.stops).allSatisfy { $0.offset == $1.offset && $0.color == $1.color }
        }
    }

    /// At most this many stops in one gradient.
    static let maxStops = 256
    static let keys = ["linear", "radial", "stops", "extend"]

    /// A colour `"#RRGGBB[AA]"` or a gradient object; errors name `parameter`.
    package init(_ value: JSONValue, parameter: String) throws(EffectError) {
        if value.stringValue != nil {
            self = .color(try EffectParameters.color(value, parameter: parameter))
            return
        }
        guard value.objectValue != nil else {
            throw EffectError(
                parameter: parameter,
                "expected a colour \"#RRGGBB[AA]\" or a gradient {\"linear\" or \"radial\", \"stops\"}"
                    + EffectParameters.got(value))
        }
        let object = try NestedObject(value, parameter: parameter, keys: Self.keys)
        let geometry: Gradient.Geometry
        switch (object["linear"], object["radial"]) {
        case (let linear?, nil):
            let ends = try Self.list(linear, count: 2, parameter: "\(parameter).linear", "[[x0, y0], [x1, y1]]")
            let from = try EffectParameters.point(ends[0], parameter: "\(parameter).linear[0]")
            let to = try EffectParameters.point(ends[1], parameter: "\(parameter).linear[1]")
            guard from != to else {
                throw EffectError(parameter: "\(parameter).linear", "the two points must differ")
            }
            geometry = .linear(from: from, to: to)
        case (nil, let radial?):
            let circles = try Self.list(
                radial, count: 2, parameter: "\(parameter).radial", "[[cx0, cy0, r0], [cx1, cy1, r1]]")
            let (c0, r0) = try Self.circle(circles[0], parameter: "\(parameter).radial[0]")
            let (c1, r1) = try Self.circle(circles[1], parameter: "\(parameter).radial[1]")
            guard r0 != r1 || c0 != c1 else {
                throw EffectError(parameter: "\(parameter).radial", "the two circles must differ")
            }
            geometry = .radial(center0: c0, radius0: r0, center1: c1, radius1: r1)
        default:
            throw EffectError(parameter: parameter, "a gradient needs exactly one of \"linear\" and \"radial\"")
        }
        guard let stopsValue = object["stops"] else {
            throw EffectError(
                parameter: "\(parameter).stops", "missing (expected [[0, \"#RRGGBB\"], [1, \"#RRGGBB\"]])")
        }
        guard let list = stopsValue.arrayValue, !list.isEmpty, list.count <= Self.maxStops else {
            throw EffectError(
                parameter: "\(parameter).stops",
                "expected 1 to \(Self.maxStops) stops [offset, \"#RRGGBB[AA]\"]" + EffectParameters.got(stopsValue))
        }
        var stops: [(offset: Double, color: Color)] = []
        for (index, stop) in list.enumerated() {
            let name = "\(parameter).stops[\(index)]"
            guard let pair = stop.arrayValue, pair.count == 2, let offset = pair[0].doubleValue, offset.isFinite,
                (0...1).contains(offset)
            else {
                throw EffectError(
                    parameter: name, "expected [offset 0…1, \"#RRGGBB[AA]\"]" + EffectParameters.got(stop))
            }
            if let previous = stops.last, offset < previous.offset {
                throw EffectError(parameter: name, "offsets must not decrease (\(offset) after \(previous.offset))")
            }
            stops.append((offset, try EffectParameters.color(pair[1], parameter: "\(name)[1]")))
        }
        let extend: Gradient.Extend = try object.choice("extend") ?? .pad
        self = .gradient(Gradient(geometry: geometry, stops: stops, extend: extend))
    }

    private static func list(_ value: JSONValue, count: Int, parameter: String, _ form: String) throws(EffectError)
        -> [JSONValue]
    {
        guard let array = value.arrayValue, array.count == count else {
            throw EffectError(parameter: parameter, "expected \(form)" + EffectParameters.got(value))
        }
        return array
    }

    /// `[cx, cy, r]`: a centre within the coordinate limit and a radius from 0 to the size limit.
    private static func circle(_ value: JSONValue, parameter: String) throws(EffectError) -> (Point, Double) {
        guard let array = value.arrayValue, array.count == 3, let radius = array[2].doubleValue, radius.isFinite,
            radius >= 0, radius <= EffectParameters.sizeLimit
        else {
            throw EffectError(
                parameter: parameter,
                "expected a circle [cx, cy, r] with r from 0 to \(Int(EffectParameters.sizeLimit))"
                    + EffectParameters.got(value))
        }
        return (try EffectParameters.point(.array(Array(array[0..<2])), parameter: parameter), radius)
    }

    /// Makes the paint the context's source. A gradient's pattern is made per call: cairo patterns are not
    /// shared between the threads that draw frames.
    func setSource(on context: DrawingContext) {
        switch self {
        case .color(let color): context.setSource(color)
        case .gradient(let gradient):
            let pattern: OpaquePointer? =
                switch gradient.geometry {
                case .linear(let from, let to): cairo_pattern_create_linear(from.x, from.y, to.x, to.y)
                case .radial(let c0, let r0, let c1, let r1):
                    cairo_pattern_create_radial(c0.x, c0.y, r0, c1.x, c1.y, r1)
                }
            guard let pattern else { return }
            for stop in gradient.stops {
                cairo_pattern_add_color_stop_rgba(
                    pattern, stop.offset, stop.color.red, stop.color.green, stop.color.blue, stop.color.alpha)
            }
            let extend: cairo_extend_t =
                switch gradient.extend {
                case .pad: CAIRO_EXTEND_PAD
                case .none: CAIRO_EXTEND_NONE
                case .repeat: CAIRO_EXTEND_REPEAT
                case .reflect: CAIRO_EXTEND_REFLECT
                }
            cairo_pattern_set_extend(pattern, extend)
            cairo_set_source(context.pointer, pattern)
            cairo_pattern_destroy(pattern)
        }
    }
}
