import CCairo
import EffectKit
import StrictJSON

/// A shape's outline: its paint, width, dash pattern, caps and joins.
package struct ShapeStroke: Sendable, Equatable {
    package var paint: ShapePaint
    package var width: Double
    /// Lengths in points, on and off in turn; empty for a solid line.
    package var dash: [Double]
    package var cap: Cap
    package var join: Join

    package enum Cap: String, Sendable, CaseIterable {
        case butt, round, square

        var cairo: DrawingContext.LineCap {
            switch self {
            case .butt: .butt
            case .round: .round
            case .square: .square
            }
        }
    }
    package enum Join: String, Sendable, CaseIterable {
        case miter, round, bevel

        var cairo: DrawingContext.LineJoin {
            switch self {
            case .miter: .miter
            case .round: .round
            case .bevel: .bevel
            }
        }
    }

    static let keys = ["color", "width", "dash", "cap", "join"]
    static let maxDashes = 64

    /// `{"color", "width", "dash", "cap", "join"}`; errors name `parameter`.
    package init(_ value: JSONValue, parameter: String) throws(EffectError) {
        let object = try NestedObject(value, parameter: parameter, keys: Self.keys)
        paint =
            try object["color"].map { (value) throws(EffectError) in
                try ShapePaint(value, parameter: "\(parameter).color")
            } ?? .color(.black)
        width = try object.number("width", in: 0...1000) ?? 1
        dash = []
        if let value = object["dash"] {
            guard let list = value.arrayValue, list.count <= Self.maxDashes,
                let lengths = Optional(list.compactMap(\.doubleValue)), lengths.count == list.count,
                lengths.allSatisfy({ $0.isFinite && $0 >= 0 && $0 <= EffectParameters.sizeLimit }),
                list.isEmpty || lengths.contains(where: { $0 > 0 })
            else {
                throw EffectError(
                    parameter: "\(parameter).dash",
                    "expected up to \(Self.maxDashes) lengths in points, on and off in turn, not all 0 (e.g. [6, 4])"
                        + EffectParameters.got(value))
            }
            dash = lengths
        }
        cap = try object.choice("cap") ?? .butt
        join = try object.choice("join") ?? .miter
    }

    /// Strokes the context's current path (and clears it).
    func stroke(on context: DrawingContext) {
        guard width > 0 else {
            context.newPath()
            return
        }
        paint.setSource(on: context)
        context.setLineWidth(width)
        context.setLineCap(cap.cairo)
        context.setLineJoin(join.cairo)
        if !dash.isEmpty { cairo_set_dash(context.pointer, dash, Int32(dash.count), 0) }
        context.stroke()
    }
}
