import CCairo
import EffectKit
import Foundation

/// What is drawn with a layout: the fill (a colour, or a linear gradient), and the optional outline,
/// shadow and background box.
struct TextDecoration: Sendable {
    struct Stroke: Sendable {
        var color: Color
        var width: Double
    }
    struct Shadow: Sendable {
        var color: Color
        var offset: Point
        var blur: Double
    }
    struct Background: Sendable {
        var color: Color
        var padding: Double
        var radius: Double
    }
    /// A fill from `from` to `to` across the lines' box, along `angle` degrees (0: left to right, 90:
    /// top to bottom).
    struct Gradient: Sendable {
        var from: Color
        var to: Color
        var angle: Double
    }

    var color: Color
    var gradient: Gradient?
    var stroke: Stroke?
    var shadow: Shadow?
    var background: Background?

    init(_ parameters: EffectParameters) throws(EffectError) {
        var problems = EffectProblems()
        color = problems.check { () throws(EffectError) in try parameters.color("color") } ?? .white
        if let value = parameters["gradient"],
            let object = NestedObject(value, parameter: "gradient", keys: ["from", "to", "angle"], problems: &problems)
        {
            gradient = problems.check { () throws(EffectError) in
                guard object["from"] != nil, object["to"] != nil else {
                    throw EffectError(parameter: "gradient", "needs both \"from\" and \"to\" colours")
                }
                return Gradient(
                    from: try Self.color(object, "from", default: .white),
                    to: try Self.color(object, "to", default: .white),
                    angle: try object.number("angle", in: -360...360) ?? 0)
            }
        }
        if let value = parameters["stroke"],
            let object = NestedObject(value, parameter: "stroke", keys: ["color", "width"], problems: &problems)
        {
            stroke = problems.check { () throws(EffectError) in
                Stroke(
                    color: try Self.color(object, "color", default: .black),
                    width: try object.number("width", in: 0...100) ?? 2)
            }
        }
        if let value = parameters["shadow"],
            let object = NestedObject(
                value, parameter: "shadow", keys: ["color", "offset", "blur"], problems: &problems)
        {
            shadow = problems.check { () throws(EffectError) in
                Shadow(
                    color: try Self.color(object, "color", default: Color(red: 0, green: 0, blue: 0, alpha: 0.5)),
                    offset: object["offset"] == nil
                        ? Point(2, 2) : try EffectParameters.point(object["offset"], parameter: "shadow.offset"),
                    blur: try object.number("blur", in: 0...100) ?? 0)
            }
        }
        if let value = parameters["background"],
            let object = NestedObject(
                value, parameter: "background", keys: ["color", "padding", "radius"], problems: &problems)
        {
            background = problems.check { () throws(EffectError) in
                Background(
                    color: try Self.color(object, "color", default: Color(red: 0, green: 0, blue: 0, alpha: 0.6)),
                    padding: try object.number("padding", in: 0...1000) ?? 8,
                    radius: try object.number("radius", in: 0...1000) ?? 0)
            }
        }
        try problems.throwIfAny()
    }

    private static func color(_ object: NestedObject, _ key: String, default fallback: Color) throws(EffectError)
        -> Color
    {
        guard let value = object[key] else { return fallback }
        return try EffectParameters.color(value, parameter: "\(object.parameter).\(key)")
    }

    /// A rectangle (in the layout's coordinates) that holds everything `draw` paints for `layout`: the glyphs'
    /// ink and logical boxes, grown by the outline's width and a quarter of the font size (antialiasing, and
    /// emoji bitmaps a little past Pango's ink) and, with `clip`, the box; the shadow's copy of that; the background
    /// box.
    func extent(of layout: TextLayout, clip: Bool) -> Rect {
        func union(_ a: Rect, _ b: Rect) -> Rect {
            let (minX, minY) = (min(a.minX, b.minX), min(a.minY, b.minY))
            return Rect(x: minX, y: minY, width: max(a.maxX, b.maxX) - minX, height: max(a.maxY, b.maxY) - minY)
        }
        var glyphs = union(layout.ink, layout.logical).grown(by: (stroke?.width ?? 0) + layout.size / 4)
        if clip { glyphs = union(glyphs, layout.box) }
        var extent = glyphs
        if let shadow {
            let moved = Rect(
                x: glyphs.x + shadow.offset.x, y: glyphs.y + shadow.offset.y, width: glyphs.width,
                height: glyphs.height)
            extent = union(extent, moved.grown(by: shadow.blur))
        }
        if let background { extent = union(extent, layout.logical.grown(by: background.padding)) }
        return extent
    }

    /// `draw` in an opacity group of `alpha` (a banner's fade), the group clipped to whole pixels around
    /// `extent`: a canvas-sized group for each banner was most of the text layer's time (cleared, then
    /// composited whole), and the clip leaves the pixels as they were.
    /// With `poses`, each cluster is drawn where its pose puts it (the animators), the extent grown by the size.
    func draw(_ layout: TextLayout, poses: [ClusterPose]?, clip: Bool, alpha: Double, on context: DrawingContext) {
        var extent = extent(of: layout, clip: clip)
        if let poses {
            // Animated clusters may move, scale and turn out of the lines' box: the group takes the canvas around it.
            let reach = poses.reduce(layout.size) {
                max($0, hypot($1.place.x - extent.midX, $1.place.y - extent.midY) + layout.size * abs($1.scale))
            }
            extent = extent.grown(by: reach)
        }
        context.withSavedState {
            context.clipToPixels(x: extent.x, y: extent.y, width: extent.width, height: extent.height, margin: 2)
            context.pushGroup()
            if let poses {
                draw(layout, poses: poses, clip: clip, on: context)
            } else {
                draw(layout, clip: clip, on: context)
            }
            context.popGroup(alpha: alpha)
        }
    }

    /// Background, shadow, outline, then the glyphs; outline and glyphs clipped to the box when `clip` (`fit:
    /// shrink`: Pango's ink rectangles, which the fit checks, can miss a pixel of antialiasing or of a scaled
    /// emoji bitmap). Call without ``PangoWorld/shared``: the layout takes it for Pango's calls only, so the
    /// fills, strokes and compositing of two threads run at once.
    func draw(_ layout: TextLayout, clip: Bool, on context: DrawingContext) {
        let cr = context.pointer
        context.withSavedState {
            if let background { drawBackground(background, layout, on: context) }
            if let shadow { drawShadow(shadow, on: context) { layout.appendPath(to: cr, offset: shadow.offset) } }
            if clip {
                context.rectangle(x: layout.box.x, y: layout.box.y, width: layout.box.width, height: layout.box.height)
                context.clip()
            }
            if let stroke, stroke.width > 0 {
                drawStroke(stroke, color: stroke.color, on: context) { layout.appendPath(to: cr) }
            }
            setFill(for: layout, on: context)
            layout.show(on: cr)
        }
    }

    /// The glyphs' fill as the source: the colour, or the gradient spanning the lines' box along its angle (its
    /// ends are the box's corners' extremes projected on that direction, so the first and last glyphs get `from`
    /// and `to`).
    private func setFill(for layout: TextLayout, on context: DrawingContext) {
        guard let gradient else { return context.setSource(color) }
        let box = layout.logical
        let radians = gradient.angle * .pi / 180
        let (dx, dy) = (cos(radians), sin(radians))
        let half = (abs(dx) * box.width + abs(dy) * box.height) / 2
        let (cx, cy) = (box.x + box.width / 2, box.y + box.height / 2)
        let pattern = cairo_pattern_create_linear(cx - dx * half, cy - dy * half, cx + dx * half, cy + dy * half)
        for (offset, stop) in [(0.0, gradient.from), (1.0, gradient.to)] {
            cairo_pattern_add_color_stop_rgba(pattern, offset, stop.red, stop.green, stop.blue, stop.alpha)
        }
        cairo_set_source(context.pointer, pattern)
        cairo_pattern_destroy(pattern)
    }

    /// The shadow's rings and fill of the current path's outline drawn by `outline`: a blur as rings of the
    /// outline, each wider and fainter (soft edges without a pixel filter, the same at every scale).
    private func drawShadow(_ shadow: Shadow, on context: DrawingContext, outline: () -> Void) {
        let rings = shadow.blur > 0 ? 4 : 0
        for ring in stride(from: rings, through: 1, by: -1) {
            outline()
            context.setLineJoin(.round)
            context.setLineWidth(2 * shadow.blur * Double(ring) / Double(rings))
            context.setSource(
                Color(
                    red: shadow.color.red, green: shadow.color.green, blue: shadow.color.blue,
                    alpha: shadow.color.alpha / Double(rings + 1)))
            context.stroke()
        }
        outline()
        context.setSource(shadow.color)
        context.fill()
    }

    /// `draw` one cluster at a time, each where `poses` puts it (text animators and paths, EffectKit article
    /// TextEffect, "Animators"): the background stays with the lines; each cluster's shadow, outline and glyphs
    /// move, turn and scale with it, in its colours, a cluster at partial opacity in a group of its own.
    func draw(_ layout: TextLayout, poses: [ClusterPose], clip: Bool, on context: DrawingContext) {
        let cr = context.pointer
        context.withSavedState {
            if let background { drawBackground(background, layout, on: context) }
            if clip {
                context.rectangle(x: layout.box.x, y: layout.box.y, width: layout.box.width, height: layout.box.height)
                context.clip()
            }
            for (index, pose) in zip(layout.clusters.indices, poses) where pose.alpha > 0 && pose.scale != 0 {
                let cluster = layout.clusters[index]
                context.withSavedState {
                    pose.apply(to: context, anchor: cluster.anchor)
                    if pose.alpha < 1 {
                        // The group covers the cluster's box, grown for its outline, antialiasing and shadow.
                        let grow =
                            (stroke?.width ?? 0) + layout.size / 2
                            + (shadow.map { $0.blur + hypot($0.offset.x, $0.offset.y) } ?? 0)
                        let box = cluster.box.grown(by: grow)
                        context.rectangle(x: box.x, y: box.y, width: box.width, height: box.height)
                        context.clip()
                        context.pushGroup()
                    }
                    if let shadow {
                        drawShadow(shadow, on: context) {
                            context.newPath()
                            context.withSavedState {
                                context.translate(shadow.offset.x, shadow.offset.y)
                                layout.showCluster(index, on: cr, pathOnly: true)
                            }
                        }
                    }
                    if let stroke, stroke.width > 0 {
                        drawStroke(stroke, color: pose.stroke ?? stroke.color, on: context) {
                            context.newPath()
                            layout.showCluster(index, on: cr, pathOnly: true)
                        }
                    }
                    if let fill = pose.fill ?? cluster.foreground {
                        context.setSource(fill)
                    } else {
                        setFill(for: layout, on: context)
                    }
                    layout.showCluster(index, on: cr)
                    if pose.alpha < 1 { context.popGroup(alpha: pose.alpha) }
                }
            }
        }
    }

    /// The outline `outline` adds to the path, stroked `stroke.width` wide with round joins in `color`.
    private func drawStroke(_ stroke: Stroke, color: Color, on context: DrawingContext, outline: () -> Void) {
        outline()
        context.setLineJoin(.round)
        context.setLineWidth(stroke.width)
        context.setSource(color)
        context.stroke()
    }

    private func drawBackground(_ background: Background, _ layout: TextLayout, on context: DrawingContext) {
        context.roundedRectangle(layout.logical.grown(by: background.padding), radius: background.radius)
        context.setSource(background.color)
        context.fill()
    }
}
