import CCairo
import EffectKit

/// A rectangle, rounded rectangle, ellipse or SVG path, filled with a colour or a gradient and stroked.
///
/// The outline is read in `create`; every frame draws the same pixels, so the host draws the layer once per
/// worker when it is at the bottom (``EffectDescriptor/frameInvariant``), and the frame key, the same at every
/// frame, is a digest of the parameters (``EffectDescriptor/keysCoverParameters``).
package struct ShapeEffect: Effect {
    package enum Kind: String, Sendable, CaseIterable {
        case rect, roundedRect, ellipse, path
    }

    package static let descriptor = EffectDescriptor(
        id: "shape",
        identifier: "org.renderfarm.shape",
        version: "1.0.0",
        summary: "A rect, rounded rect, ellipse or SVG path, filled with a colour or gradient, and stroked",
        threadSafety: .full,
        frameInvariant: true,
        keysCoverParameters: true,
        parameters: [
            ParameterSpec(
                "kind", .choice(Kind.allCases.map(\.rawValue)), default: "rect",
                doc: "rect, roundedRect and ellipse fill `rect`; path draws the SVG path data `d`"),
            ParameterSpec(
                "rect", .rect, default: nil,
                doc: "the box of a rect, roundedRect or ellipse, {\"x\", \"y\", \"width\", \"height\"} in points "
                    + "(default: the canvas)"),
            ParameterSpec(
                "radius", .number, default: nil, range: 0...EffectParameters.sizeLimit,
                doc: "corner radius in points of a roundedRect (default 16) or rect (default 0), at most half the "
                    + "shorter side"),
            ParameterSpec(
                "d", .string, default: nil,
                doc: "SVG path data in canvas points, for kind path: M, L, H, V, C, S, Q, T, A, Z and their "
                    + "relative lowercase forms, e.g. \"M 10 10 h 80 v 40 a 20 20 0 0 1 -20 20 Z\""),
            ParameterSpec(
                "fill", .json, default: nil,
                doc: "a colour \"#RRGGBB[AA]\", or a gradient in canvas points: {\"linear\": [[x0, y0], [x1, y1]], "
                    + "\"stops\": [[0, \"#RRGGBB\"], [1, \"#RRGGBBAA\"]]} or {\"radial\": [[cx0, cy0, r0], [cx1, "
                    + "cy1, r1]], \"stops\": …}, optionally \"extend\": pad, none, repeat or reflect (default: "
                    + "#FFFFFF, or no fill when there is a stroke)"),
            ParameterSpec(
                "fillRule", .choice(["nonzero", "evenodd"]), default: "nonzero",
                doc: "which parts of a self-overlapping path are inside (SVG's fill-rule); evenodd cuts holes"),
            ParameterSpec(
                "stroke", .json, default: nil,
                doc: "an outline over the fill: {\"color\": a colour or gradient (default #000000), \"width\": "
                    + "points 0…1000 (default 1), \"dash\": [on, off, …] points, \"cap\": butt, round or square, "
                    + "\"join\": miter, round or bevel}"),
        ]
    )

    /// What the effect draws the outline of.
    package enum Outline: Sendable, Equatable {
        case rect(Rect, radius: Double)
        case ellipse(Rect)
        case path(SVGPath)
    }

    /// The default corner radius of a roundedRect, in points.
    static let roundedRadius = 16.0

    package let outline: Outline
    package let fill: ShapePaint?
    package let evenOdd: Bool
    package let stroke: ShapeStroke?
    package let warnings: [EffectError]
    /// Every parameter, which is all the drawing follows from.
    let parametersKey: FrameKey

    package init(parameters: EffectParameters, context: EffectContext) throws(EffectError) {
        parametersKey = parameters.digest()
        var problems = EffectProblems()
        let kind: Kind = try parameters.choice("kind")
        let stroke = problems.check { () throws(EffectError) -> ShapeStroke? in
            try parameters["stroke"].map { (value) throws(EffectError) in try ShapeStroke(value, parameter: "stroke") }
        }
        let fill = problems.check { () throws(EffectError) -> ShapePaint? in
            try parameters["fill"].map { (value) throws(EffectError) in try ShapePaint(value, parameter: "fill") }
        }
        let outline = problems.check { () throws(EffectError) in try Self.outline(kind, parameters, context) }
        warnings = outline?.unused ?? []
        evenOdd = (try? parameters.choice("fillRule", as: FillRule.self)) == .evenodd
        try problems.throwIfAny()
        guard let outline else { throw EffectError("unreachable: outline problems are reported above") }
        self.outline = outline.0
        self.stroke = stroke ?? nil
        // Without a fill or a stroke nothing would show: a shape is white unless told otherwise.
        self.fill = (fill ?? nil) ?? (self.stroke == nil ? .color(.white) : nil)
    }

    private enum FillRule: String { case nonzero, evenodd }

    /// The outline `kind` draws, and a warning for each parameter set that it does not use.
    private static func outline(_ kind: Kind, _ parameters: EffectParameters, _ context: EffectContext)
        throws(EffectError) -> (Outline, unused: [EffectError])
    {
        let used: Set<String> =
            switch kind {
            case .path: ["d"]
            case .ellipse: ["rect"]
            case .rect, .roundedRect: ["rect", "radius"]
            }
        let unused = ["rect", "radius", "d"].filter { parameters.contains($0) && !used.contains($0) }.map { name in
            EffectError(parameter: name, "kind \(kind.rawValue) does not use it; it is ignored")
        }
        if kind == .path { return (.path(try path(parameters)), unused) }
        let rect =
            parameters.contains("rect")
            ? try parameters.rect("rect") : Rect(x: 0, y: 0, width: context.width, height: context.height)
        let radius = parameters.contains("radius") ? try parameters.number("radius") : nil
        switch kind {
        case .ellipse: return (.ellipse(rect), unused)
        case .roundedRect: return (.rect(rect, radius: radius ?? roundedRadius), unused)
        default: return (.rect(rect, radius: radius ?? 0), unused)
        }
    }

    /// The SVG path data of `d`, which kind path needs.
    private static func path(_ parameters: EffectParameters) throws(EffectError) -> SVGPath {
        guard parameters.contains("d") else {
            throw EffectError(parameter: "d", "missing: kind path draws the SVG path data in `d`")
        }
        let data = try parameters.string("d")
        do throws(SVGPathError) {
            return try SVGPath(data)
        } catch {
            throw EffectError(parameter: "d", error.description)
        }
    }

    package func render(in context: DrawingContext, at frame: FrameTime) throws(EffectError) {
        context.withSavedState {
            guard appendOutline(to: context) else { return }
            cairo_set_fill_rule(context.pointer, evenOdd ? CAIRO_FILL_RULE_EVEN_ODD : CAIRO_FILL_RULE_WINDING)
            if let fill {
                fill.setSource(on: context)
                if stroke == nil { context.fill() } else { context.fillPreserve() }
            }
            stroke?.stroke(on: context)
        }
    }

    /// Adds the outline as the current path; false when it encloses nothing (an empty rect or ellipse).
    private func appendOutline(to context: DrawingContext) -> Bool {
        context.newPath()
        switch outline {
        case .rect(let rect, let radius):
            guard rect.width > 0, rect.height > 0 else { return false }
            if radius > 0 {
                context.roundedRectangle(rect, radius: radius)
            } else {
                context.rectangle(x: rect.x, y: rect.y, width: rect.width, height: rect.height)
            }
        case .ellipse(let rect):
            // Scaling by zero would leave the context in an error state.
            guard rect.width > 0, rect.height > 0 else { return false }
            context.withSavedState {
                context.translate(rect.midX, rect.midY)
                context.scale(rect.width / 2, rect.height / 2)
                context.arc(centerX: 0, centerY: 0, radius: 1, from: 0, to: 2 * .pi)
                context.closePath()
            }
        case .path(let path):
            path.append(to: context)
        }
        return true
    }

    /// The same drawing at every frame, decided by the parameters.
    package func frameKey(at frame: FrameTime) -> FrameKey? { parametersKey }
}
