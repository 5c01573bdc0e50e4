import CLayerStyle
import CairoKit
import RenderFarmJobs

/// Draws the layers of a job that composes (the RenderFarm article ComposingLayers): a layer with
/// only a transform draws straight into the frame; one with an opacity below 1, a blend mode or a
/// mask, and every group, draws on a surface of its own that is then composited over what is under
/// it. The surfaces are the worker's, reused from frame to frame.
///
/// Not `Sendable`: it belongs to the `FrameWorker` that made it.
final class LayerCompositor {
    private var surfaces: [(surface: ImageSurface, context: DrawingContext)] = []
    private var masks: [ImageSurface] = []
    /// Motion blur's sums, four per pixel of the frame.
    private var sums: [UInt16] = []
    private var surfacesInUse = 0
    private var masksInUse = 0
    private let lane: DrawingLane?
    /// Whether still mask sources are drawn once (false: at every frame; the bytes are the same, which tests check).
    private let keepsStillSources: Bool
    /// Mask sources that draw the same at every frame (`PlannedJob.isStill`) of `stillJob`, as last drawn: by their
    /// effect layer, with the transformation they were drawn with. Drawn again only when that changes.
    private var stillSources: [(layer: Int, transformation: [Double], surface: ImageSurface, context: DrawingContext)] =
        []
    private var stillJob: PlannedJob?

    init(lane: DrawingLane?, keepsStillSources: Bool = true) {
        self.lane = lane
        self.keepsStillSources = keepsStillSources
    }

    /// Draws the top-level layers `range` of `job`'s composition at frame `index` on `context`,
    /// whose transformation maps points to the frame's pixels.
    func draw(_ job: PlannedJob, frame index: Int, nodes range: Range<Int>, on context: DrawingContext)
        throws(FrameFailure)
    {
        let width = job.spec.canvas.pixelWidth
        let height = job.spec.canvas.pixelHeight
        if let first = surfaces.first?.surface, first.width != width || first.height != height {
            surfaces = []
            masks = []
            stillSources = []
        }
        if stillJob !== job {
            stillSources = []
            stillJob = job
        }
        surfacesInUse = 0
        masksInUse = 0
        let list = job.spec.composition
        let drawing = Drawing(job: job, frame: index, time: job.spec.time(ofFrame: index))
        for position in range where !list[position].isMask {
            try draw(list[position], of: list, at: drawing.time, drawing, on: context)
        }
    }

    /// The frame being drawn, at the frame's time or a motion blur sample's.
    struct Drawing {
        let job: PlannedJob
        let frame: Int
        /// The job time drawn: the frame's, or a motion blur sample's.
        var time: Double
        /// The groups holding what is drawn, outermost first.
        var groups: [LayerNode] = []
        /// Whether a group holding it is drawing a motion blur sample (then its own motion blur is not drawn again).
        var sampling = false

        /// The time of the innermost group's list (the job's at the top) at `time`, or nil when a group is not
        /// drawn then.
        var listTime: Double? {
            var time = time
            for group in groups {
                guard let local = group.fields.localTime(at: time, bounded: group.hasSpan) else { return nil }
                time = local
            }
            return time
        }
    }

    /// Draws `node` of `list` at time `t` of the list.
    private func draw(
        _ node: LayerNode, of list: [LayerNode], at t: Double, _ drawing: Drawing, on context: DrawingContext
    )
        throws(FrameFailure)
    {
        let blur = drawing.sampling ? nil : node.fields.motionBlur
        let local = node.fields.localTime(at: t, bounded: node.hasSpan)
        // A motion-blurred layer may be drawn at a sample's time when it is not at the frame's; its opacity is each
        // sample's, applied as the samples are averaged.
        var opacity = 1.0
        if blur == nil {
            guard let local else { return }
            opacity = min(max(node.fields.opacity.value(at: local), 0), 1)
            guard opacity > 0 else { return }
        }
        var isGroup = false
        if case .group = node.content { isGroup = true }
        guard
            isGroup || opacity < 1 || node.fields.blend != .normal || node.fields.mask != nil
                || node.fields.style != nil || blur != nil
        else {
            guard let local else { return }
            try drawPlaced(node, at: local, drawing, on: context)
            return
        }
        // The surfaces and masks this layer takes are free again once it is composited.
        let (surfacesBefore, masksBefore) = (surfacesInUse, masksInUse)
        defer { (surfacesInUse, masksInUse) = (surfacesBefore, masksBefore) }
        let layer = try takeSurface(transform: context)
        if let blur {
            try drawSamples(node, blur, drawing, into: layer.surface, transform: context)
        } else if let local {
            try drawPlaced(node, at: local, drawing, on: layer.context)
        }
        // Only where the layer drew: a transparent pixel leaves what is under it as it is, whatever the
        // blend mode, the opacity or the mask, so the rest of the frame is neither read nor written.
        guard var area = layer.surface.inkBounds() else { return }
        var drawn = layer.surface
        if let style = node.fields.style {
            (drawn, area) = try styled(
                layer.surface, drawnBy: layer.context, area: area, style: style, at: local ?? 0,
                pixelsPerPoint: drawing.job.spec.canvas.scale)
        }
        var mask: ImageSurface?
        if let spec = node.fields.mask {
            mask = try maskSurface(
                list[spec.source], spec, opacity: opacity, of: list, at: t, drawing, transform: context, area: area)
        }
        context.composite(drawn, blend: node.fields.blend, alpha: opacity, mask: mask, area: area)
    }

    /// Draws `node` (its transform and content, at each sample's opacity) at every sample of `blur` onto a
    /// surface of its own and writes the samples' average into `target`.
    private func drawSamples(
        _ node: LayerNode, _ blur: MotionBlur, _ drawing: Drawing, into target: ImageSurface,
        transform context: DrawingContext
    ) throws(FrameFailure) {
        let sample = try takeSurface(transform: context)
        let offsets = blur.offsets(fps: drawing.job.spec.fps)
        if sums.count != target.width * target.height * 4 {
            sums = [UInt16](repeating: 0, count: target.width * target.height * 4)
        }
        var drawn: PixelBox?
        for offset in offsets {
            var at = drawing
            at.time += offset
            at.sampling = true
            guard let listTime = at.listTime, let local = node.fields.localTime(at: listTime, bounded: node.hasSpan)
            else { continue }
            let opacity = min(max(node.fields.opacity.value(at: local), 0), 1)
            guard opacity > 0 else { continue }
            sample.surface.clear()
            do {
                try drawPlaced(node, at: local, at, on: sample.context)
            } catch {
                // The sums are all 0 between frames: a frame that fails leaves none behind for the next.
                sums = []
                throw error
            }
            guard let box = sample.surface.inkBounds() else { continue }
            sums.withUnsafeMutableBufferPointer { sums in
                rf_style_accumulate(
                    sums.baseAddress, sample.surface.bytes, Int32(sample.surface.stride), Int32(target.width), box.box,
                    Int32((opacity * 256).rounded()))
            }
            drawn = drawn.map { $0.union(box) } ?? box
        }
        guard let drawn else { return }
        target.flush()
        sums.withUnsafeMutableBufferPointer { sums in
            rf_style_average(
                sums.baseAddress, target.bytes, Int32(target.stride), Int32(target.width), drawn.box,
                Int32(offsets.count))
        }
        target.markDirty()
    }

    /// Draws `node`'s content at its own time `local` through its transform.
    private func drawPlaced(_ node: LayerNode, at local: Double, _ drawing: Drawing, on context: DrawingContext)
        throws(FrameFailure)
    {
        context.save()
        defer { context.restore() }
        apply(node.fields.transform, at: local, to: context)
        try drawContent(node, at: local, drawing, on: context)
    }

    /// Draws an effect layer's plugin, or a group's layers at the group's time `local`.
    private func drawContent(_ node: LayerNode, at local: Double, _ drawing: Drawing, on context: DrawingContext)
        throws(FrameFailure)
    {
        switch node.content {
        case .effect(let index):
            guard let frame = drawing.job.abiFrame(drawing.frame, layer: index, time: drawing.time) else { return }
            let instance = drawing.job.layers[index]
            lane?.layer(index, effect: instance.plugin.info.id)
            context.save()
            defer { context.restore() }
            if let failure = instance.render(on: context.pointer, frame: frame) {
                throw .plugin(layer: index, effect: instance.plugin.info.id, message: failure.message)
            }
        case .group(let children):
            var inside = drawing
            inside.groups.append(node)
            if let canvas = node.canvas, canvas.background.alpha > 0 {
                context.rectangle(x: 0, y: 0, width: canvas.width, height: canvas.height)
                context.setSource(canvas.background)
                context.fill()
            }
            for child in children where !child.isMask {
                try draw(child, of: children, at: local, inside, on: context)
            }
            // A composition shows what its layers draw inside its canvas only. The group has a surface of its own,
            // cut to the canvas once they are drawn: a clip would change how cairo draws them at its edges.
            if let canvas = node.canvas {
                context.clearOutside(x: 0, y: 0, width: canvas.width, height: canvas.height)
            }
        }
    }

    /// `transform` at local time `t`, applied to what `context` draws next.
    private func apply(_ transform: LayerTransform?, at t: Double, to context: DrawingContext) {
        guard let transform else { return }
        let resolved = transform.resolved(at: t)
        context.translate(resolved.position.x, resolved.position.y)
        context.rotate(resolved.rotation * .pi / 180)
        context.scale(resolved.scale.x, resolved.scale.y)
        context.translate(-resolved.anchor.x, -resolved.anchor.y)
    }

    /// The mask `spec` makes of `source`: its alpha or luminance, inverted when asked, times `opacity`, inside
    /// `area` (the masked layer's pixels that are not transparent: nothing else of the mask is read).
    private func maskSurface(
        _ source: LayerNode, _ spec: LayerMask, opacity: Double, of list: [LayerNode], at t: Double,
        _ drawing: Drawing, transform context: DrawingContext, area: PixelBox
    ) throws(FrameFailure) -> ImageSurface {
        let drawn = try drawnSource(source, of: list, at: t, drawing, transform: context)
        let mask = try takeMask(width: drawn.width, height: drawn.height)
        MaskConversion.convert(drawn, into: mask, mode: spec.mode, invert: spec.invert, opacity: opacity, area: area)
        return mask
    }

    /// `source` drawn on a surface of the frame's size with `context`'s transformation; a still source is drawn
    /// once and kept until the transformation changes.
    private func drawnSource(
        _ source: LayerNode, of list: [LayerNode], at t: Double, _ drawing: Drawing, transform context: DrawingContext
    ) throws(FrameFailure) -> ImageSurface {
        guard keepsStillSources, case .effect(let layer) = source.content, drawing.job.isStill(source) else {
            let drawn = try takeSurface(transform: context)
            try draw(source, of: list, at: t, drawing, on: drawn.context)
            drawn.surface.flush()
            return drawn.surface
        }
        let transformation = context.transformation
        let kept = stillSources.firstIndex { $0.layer == layer }
        if let kept, stillSources[kept].transformation == transformation { return stillSources[kept].surface }
        let target: (surface: ImageSurface, context: DrawingContext)
        if let kept {
            target = (stillSources[kept].surface, stillSources[kept].context)
            target.surface.clear()
        } else {
            target = try Self.surface(like: context)
        }
        target.context.copyTransform(from: context)
        try draw(source, of: list, at: t, drawing, on: target.context)
        target.surface.flush()
        let entry = (layer, transformation, target.surface, target.context)
        if let kept { stillSources[kept] = entry } else { stillSources.append(entry) }
        return target.surface
    }

    /// A transparent surface of the frame's size whose context has `context`'s transformation.
    func takeSurface(transform context: DrawingContext) throws(FrameFailure)
        -> (surface: ImageSurface, context: DrawingContext)
    {
        if surfacesInUse == surfaces.count {
            surfaces.append(try Self.surface(like: context))
        } else {
            surfaces[surfacesInUse].surface.clear()
        }
        let taken = surfaces[surfacesInUse]
        surfacesInUse += 1
        taken.context.copyTransform(from: context)
        return taken
    }

    /// A new transparent surface the size of `context`'s target, and a context drawing on it.
    private static func surface(like context: DrawingContext) throws(FrameFailure)
        -> (surface: ImageSurface, context: DrawingContext)
    {
        do {
            let size = context.targetSize
            let surface = try ImageSurface(width: size.width, height: size.height)
            return (surface, try DrawingContext(surface: surface))
        } catch {
            throw .drawing(error.description)
        }
    }

    func takeMask(width: Int, height: Int) throws(FrameFailure) -> ImageSurface {
        if masksInUse == masks.count {
            do {
                masks.append(try ImageSurface.alphaMask(width: width, height: height))
            } catch {
                throw .drawing(error.description)
            }
        }
        masksInUse += 1
        return masks[masksInUse - 1]
    }
}

/// Turns a drawn layer into a mask (the RenderFarm article ComposingLayers, "Masks").
enum MaskConversion {
    /// Luminance weights of red, green and blue (CSS Masking, `mask-type: luminance`).
    static let weights = (red: 0.2125, green: 0.7154, blue: 0.0721)

    /// Writes into the alpha surface `mask` each pixel's alpha (`.alpha`) or luminance times alpha
    /// (`.luminance`, from the premultiplied colour), inverted when asked, times `opacity`: every pixel, or
    /// those in `area`.
    static func convert(
        _ drawn: ImageSurface, into mask: ImageSurface, mode: LayerMask.Mode, invert: Bool, opacity: Double,
        area: PixelBox? = nil
    ) {
        let area = area ?? PixelBox(x: 0, y: 0, width: drawn.width, height: drawn.height)
        let scale = Int((opacity * 65536).rounded())
        let (wr, wg, wb) = (
            Int((weights.red * 65536).rounded()), Int((weights.green * 65536).rounded()),
            Int((weights.blue * 65536).rounded())
        )
        mask.flush()
        let source = drawn.bytes
        let target = mask.bytes
        for y in area.y..<area.y + area.height {
            let row = UnsafeRawPointer(source + y * drawn.stride).assumingMemoryBound(to: UInt32.self)
            let out = target + y * mask.stride
            for x in area.x..<area.x + area.width {
                let pixel = Int(row[x])
                var value: Int
                switch mode {
                case .alpha: value = pixel >> 24
                case .luminance:
                    value =
                        (wr * ((pixel >> 16) & 0xFF) + wg * ((pixel >> 8) & 0xFF) + wb * (pixel & 0xFF) + 32768) >> 16
                }
                if invert { value = 255 - value }
                out[x] = UInt8(clamping: (value * scale + 32768) >> 16)
            }
        }
        mask.markDirty()
    }
}
