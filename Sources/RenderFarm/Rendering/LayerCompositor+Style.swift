import CLayerStyle
import CairoKit
import RenderFarmJobs

/// Layer styles (the RenderFarm article ComposingLayers, "Layer styles"): what a layer drawn on its own
/// surface becomes before it is composited.
extension LayerCompositor {
    /// `layer` (drawn inside `area`) with `style` at local time `t`: adjusted and blurred in place, then, when
    /// the style has shadows, glows or a stroke, drawn with them onto another of the worker's surfaces. Returns
    /// the surface to composite and the pixels that may not be transparent on it.
    func styled(
        _ layer: ImageSurface, drawnBy context: DrawingContext, area: PixelBox, style: LayerStyle, at t: Double,
        pixelsPerPoint: Double
    ) throws(FrameFailure) -> (ImageSurface, PixelBox) {
        let frame = PixelBox(x: 0, y: 0, width: layer.width, height: layer.height)
        var area = area
        if let adjust = style.adjust {
            let tint = adjust.tint
            rf_style_adjust(
                layer.bytes, Int32(layer.stride), area.box, adjust.brightness.value(at: t),
                adjust.contrast.value(at: t), adjust.saturation.value(at: t), Self.byte(tint.red),
                Self.byte(tint.green), Self.byte(tint.blue), adjust.tintAmount.value(at: t))
            layer.markDirty()
        }
        if let blur = style.blur {
            let sigma = blur.value(at: t) * pixelsPerPoint / 2
            area = area.grown(by: Int(rf_style_blur_reach(sigma)), within: frame)
            guard rf_style_blur_argb(layer.bytes, Int32(layer.stride), area.box, sigma) == 0 else {
                throw .drawing("out of memory blurring a layer")
            }
            layer.markDirty()
        }
        let edges = Edges(style, at: t, pixelsPerPoint: pixelsPerPoint)
        guard edges.drawsAny else { return (layer, area) }

        let region = area.grown(by: edges.reach, within: frame)
        let planes = Planes(alpha: try scratch(layer), work: try scratch(layer), region: region)
        rf_style_alpha_of(layer.bytes, Int32(layer.stride), planes.alpha.bytes, planes.alpha.stride32, region.box)
        let target = try takeSurface(transform: context)
        let paint = target.context

        // Behind the layer: the shadow and the glow, cast by the layer with its stroke's outer part, as
        // Photoshop's are; then the stroke's outer part.
        let stroked = edges.stroke?.outside ?? 0
        for behind in [edges.shadow, edges.outerGlow].compactMap({ $0 }) {
            try planes.grow(by: behind.spread + stroked)
            try planes.blur(behind.sigma)
            planes.paint(behind.color, behind.opacity, dx: behind.dx, dy: behind.dy, on: paint)
        }
        if let stroke = edges.stroke, stroke.outside > 0 {
            try planes.grow(by: stroke.outside)
            planes.keep(inside: false)
            planes.paint(stroke.color, stroke.opacity, on: paint)
        }
        paint.composite(layer, blend: .normal, alpha: 1, area: area)
        // On the layer: the inner glow and the stroke's inner part, inside its alpha.
        if let glow = edges.innerGlow {
            try planes.band(glow.spread)
            rf_style_max_inverse(
                planes.work.bytes, planes.work.stride32, planes.alpha.bytes, planes.alpha.stride32, region.box)
            try planes.blur(glow.sigma)
            planes.keep(inside: true)
            planes.paint(glow.color, glow.opacity, on: paint)
        }
        if let stroke = edges.stroke, stroke.inside > 0 {
            try planes.band(stroke.inside)
            planes.keep(inside: true)
            planes.paint(stroke.color, stroke.opacity, on: paint)
        }
        return (target.surface, region)
    }

    /// An alpha surface of the layer's size, every byte 0 (the style functions write only inside their box,
    /// and cairo reads a mask's pixels around it too).
    private func scratch(_ layer: ImageSurface) throws(FrameFailure) -> ImageSurface {
        let surface = try takeMask(width: layer.width, height: layer.height)
        surface.zero()
        return surface
    }

    private static func byte(_ component: Double) -> Int32 { Int32((min(max(component, 0), 1) * 255).rounded()) }
}

/// The two alpha planes a style's edges are made in, inside `region`: the layer's alpha, and the mask being made.
private struct Planes {
    let alpha: ImageSurface
    let work: ImageSurface
    let region: PixelBox

    /// work := the layer's alpha grown by `radius` pixels (a copy for 0).
    func grow(by radius: Double) throws(FrameFailure) {
        try check(rf_style_grow(alpha.bytes, alpha.stride32, work.bytes, work.stride32, region.box, radius))
    }

    /// work := the band `width` pixels deep inside the layer's edge.
    func band(_ width: Double) throws(FrameFailure) {
        try check(rf_style_inner_band(alpha.bytes, alpha.stride32, work.bytes, work.stride32, region.box, width))
    }

    func blur(_ sigma: Double) throws(FrameFailure) {
        try check(rf_style_blur_alpha(work.bytes, work.stride32, region.box, sigma))
    }

    /// work := work inside the layer's alpha (times it), or outside it (times its inverse).
    func keep(inside: Bool) {
        rf_style_multiply(work.bytes, work.stride32, alpha.bytes, alpha.stride32, region.box, inside ? 0 : 1)
    }

    /// Paints `color` at `opacity` through work, moved by (dx, dy) pixels.
    func paint(_ color: Color, _ opacity: Double, dx: Double = 0, dy: Double = 0, on context: DrawingContext) {
        work.markDirty()
        context.fill(color, alpha: opacity, through: work, dx: dx, dy: dy, area: region)
    }

    private func check(_ status: Int32) throws(FrameFailure) {
        guard status == 0 else { throw .drawing("out of memory drawing a layer style") }
    }
}

/// A style's shadows, glows and stroke at one time, in pixels.
private struct Edges {
    struct Spread {
        var color: Color
        var opacity: Double
        /// The alpha grown by this many pixels (inward for the inner glow), then blurred with this Gaussian.
        var spread: Double
        var sigma: Double
        var dx = 0.0
        var dy = 0.0
    }
    struct Stroke {
        var color: Color
        var opacity: Double
        /// Its width outside and inside the edge, in pixels.
        var outside: Double
        var inside: Double
    }

    var shadow: Spread?
    var outerGlow: Spread?
    var innerGlow: Spread?
    var stroke: Stroke?

    init(_ style: LayerStyle, at t: Double, pixelsPerPoint scale: Double) {
        if let value = style.dropShadow {
            let offset = LayerStyle.Shadow.offset(
                angle: value.angle.value(at: t), distance: value.distance.value(at: t))
            shadow = Spread(
                color: value.color, opacity: value.opacity.value(at: t), spread: value.spread.value(at: t) * scale,
                sigma: value.blur.value(at: t) * scale / 2, dx: offset.x * scale, dy: offset.y * scale)
        }
        func glow(_ value: LayerStyle.Glow?) -> Spread? {
            value.map {
                Spread(
                    color: $0.color, opacity: $0.opacity.value(at: t), spread: $0.spread.value(at: t) * scale,
                    sigma: $0.blur.value(at: t) * scale / 2)
            }
        }
        outerGlow = glow(style.outerGlow)
        innerGlow = glow(style.innerGlow)
        if let value = style.stroke {
            let width = value.width.value(at: t) * scale
            let (outside, inside) =
                switch value.position {
                case .outside: (width, 0.0)
                case .inside: (0.0, width)
                case .center: (width / 2, width / 2)
                }
            stroke = Stroke(color: value.color, opacity: value.opacity.value(at: t), outside: outside, inside: inside)
        }
        for keep in [\Edges.shadow, \Edges.outerGlow, \Edges.innerGlow] where self[keyPath: keep]?.opacity == 0 {
            self[keyPath: keep] = nil
        }
        if stroke?.opacity == 0 || (stroke.map { $0.outside + $0.inside } ?? 0) <= 0 { stroke = nil }
    }

    var drawsAny: Bool { shadow != nil || outerGlow != nil || innerGlow != nil || stroke != nil }

    /// How far outside the layer's drawn pixels the edges reach, in whole pixels.
    var reach: Int {
        func blurred(_ spread: Spread?) -> Double {
            guard let spread else { return 0 }
            return max(abs(spread.dx), abs(spread.dy)) + spread.spread + (stroke?.outside ?? 0)
                + Double(rf_style_blur_reach(spread.sigma))
        }
        let outside = max(blurred(shadow), blurred(outerGlow), stroke?.outside ?? 0)
        return Int(outside.rounded(.up)) + 2
    }
}

extension PixelBox {
    var box: rf_style_box {
        rf_style_box(x: Int32(x), y: Int32(y), width: Int32(width), height: Int32(height))
    }

    /// The smallest box holding both.
    func union(_ other: PixelBox) -> PixelBox {
        let left = min(x, other.x)
        let top = min(y, other.y)
        let right = max(x + width, other.x + other.width)
        let bottom = max(y + height, other.y + other.height)
        return PixelBox(x: left, y: top, width: right - left, height: bottom - top)
    }

    /// The box grown by `margin` pixels on every side, inside `bounds`.
    fileprivate func grown(by margin: Int, within bounds: PixelBox) -> PixelBox {
        let left = max(x - margin, bounds.x)
        let top = max(y - margin, bounds.y)
        let right = min(x + width + margin, bounds.x + bounds.width)
        let bottom = min(y + height + margin, bounds.y + bounds.height)
        return PixelBox(x: left, y: top, width: max(right - left, 0), height: max(bottom - top, 0))
    }
}

extension ImageSurface {
    fileprivate var stride32: Int32 { Int32(stride) }
}
