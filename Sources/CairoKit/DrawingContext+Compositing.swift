import CCairo

/// What the host needs to draw a layer on a surface of its own and composite it back (the
/// RenderFarm article ComposingLayers): the same transformation on two contexts, and a surface
/// drawn over this context's target with a blend mode and an opacity or a mask.
extension DrawingContext {
    /// Gives this context `other`'s current transformation (user space to device pixels).
    public func copyTransform(from other: DrawingContext) {
        var matrix = cairo_matrix_t()
        cairo_get_matrix(other.pointer, &matrix)
        cairo_set_matrix(pointer, &matrix)
    }

    /// The current transformation (user space to device pixels) as cairo's six numbers: xx, yx, xy, yy, x0, y0.
    public var transformation: [Double] {
        var matrix = cairo_matrix_t()
        cairo_get_matrix(pointer, &matrix)
        return [matrix.xx, matrix.yx, matrix.xy, matrix.yy, matrix.x0, matrix.y0]
    }

    /// Draws `surface`, pixel for pixel, over this context's target with `blend`, at `alpha`
    /// opacity or through `mask` (an alpha surface of the same size), ignoring the transformation;
    /// only inside `area` (pixels) when given, which must hold every pixel of `surface` that is not
    /// transparent: a transparent pixel leaves the target as it is in every blend mode.
    /// Pixels written other than by cairo must have been marked dirty (`ImageSurface.markDirty`).
    public func composite(
        _ surface: ImageSurface, blend: BlendMode, alpha: Double, mask: ImageSurface? = nil, area: PixelBox? = nil
    ) {
        cairo_save(pointer)
        cairo_identity_matrix(pointer)
        if let area {
            cairo_rectangle(pointer, Double(area.x), Double(area.y), Double(area.width), Double(area.height))
            cairo_clip(pointer)
        }
        cairo_set_source_surface(pointer, surface.pointer, 0, 0)
        cairo_set_operator(pointer, blend.cairoOperator)
        if let mask {
            cairo_mask_surface(pointer, mask.pointer, 0, 0)
        } else if alpha >= 1 {
            cairo_paint(pointer)
        } else {
            cairo_paint_with_alpha(pointer, alpha)
        }
        cairo_restore(pointer)
    }
}

extension DrawingContext {
    /// Draws `color` at `alpha` over this context's target through the alpha surface `mask` moved by
    /// (`dx`, `dy`) pixels, ignoring the transformation, only inside `area`: how a layer style paints a
    /// shadow, a glow or a stroke. Beyond its edges the mask is taken to go on as its edge pixels.
    public func fill(_ color: Color, alpha: Double, through mask: ImageSurface, dx: Double, dy: Double, area: PixelBox)
    {
        cairo_save(pointer)
        cairo_identity_matrix(pointer)
        cairo_rectangle(pointer, Double(area.x), Double(area.y), Double(area.width), Double(area.height))
        cairo_clip(pointer)
        cairo_set_source_rgba(pointer, color.red, color.green, color.blue, color.alpha * alpha)
        // Beyond its edges the mask goes on as its edge pixels: a layer the canvas cuts off casts a shadow in.
        let pattern = cairo_pattern_create_for_surface(mask.pointer)
        var matrix = cairo_matrix_t()
        cairo_matrix_init_translate(&matrix, -dx, -dy)
        cairo_pattern_set_matrix(pattern, &matrix)
        cairo_pattern_set_extend(pattern, CAIRO_EXTEND_PAD)
        cairo_mask(pointer, pattern)
        cairo_pattern_destroy(pattern)
        cairo_restore(pointer)
    }
}

extension ImageSurface {
    /// Sets every byte of the surface to 0 behind cairo's back (then marks it dirty): for scratch alpha
    /// surfaces that are written by hand and only read as masks.
    public func zero() {
        flush()
        writeZeros()
        markDirty()
    }

    /// A transparent 8-bit alpha surface (`CAIRO_FORMAT_A8`): a mask.
    public static func alphaMask(width: Int, height: Int) throws(CairoError) -> ImageSurface {
        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_A8, Int32(width), Int32(height)) else {
            throw CairoError(CAIRO_STATUS_NO_MEMORY, "creating a \(width)×\(height) mask")
        }
        return try ImageSurface(adopting: surface, operation: "creating a \(width)×\(height) mask")
    }

    /// Makes every pixel transparent and leaves the surface as a new one is: known to cairo as clear.
    /// Pixels zeroed behind cairo's back would not be, and cairo fills a colour that is not opaque with
    /// other rounding on a surface it knows to be clear (`OVER` taken as `SOURCE`), so a surface reused
    /// from frame to frame would draw other bytes than a new one: a frame's bytes would depend on what its
    /// worker drew before it.
    public func clear() {
        let context = cairo_create(pointer)
        defer { cairo_destroy(context) }
        cairo_set_operator(context, CAIRO_OPERATOR_CLEAR)
        cairo_paint(context)
    }
}

/// A rectangle of whole pixels.
public struct PixelBox: Equatable, Sendable {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
}

extension ImageSurface {
    /// The smallest box that holds every pixel that is not 0 (for ARGB32: not transparent black), or nil
    /// when every pixel is; reads the pixels after `flush`. The loops are plain `while` loops over pointers,
    /// which the compiler vectorises (CairoKit is compiled optimised in every configuration: Package.swift).
    public func inkBounds() -> PixelBox? {
        flush()
        var top = height
        var bottom = -1
        var left = width
        var right = -1
        var y = 0
        while y < height {
            defer { y += 1 }
            let pixels = UnsafeRawPointer(bytes + y * stride).assumingMemoryBound(to: UInt32.self)
            var any: UInt32 = 0
            var x = 0
            while x < width {
                any |= pixels[x]
                x += 1
            }
            guard any != 0 else { continue }
            top = min(top, y)
            bottom = y
            // The row's first and last pixels that are not 0 widen the box, looked for only outside it.
            x = 0
            while x < left, pixels[x] == 0 { x += 1 }
            left = min(left, x)
            x = width - 1
            while x > right, pixels[x] == 0 { x -= 1 }
            right = max(right, x)
        }
        guard bottom >= 0 else { return nil }
        return PixelBox(x: left, y: top, width: right - left + 1, height: bottom - top + 1)
    }
}

extension DrawingContext {
    /// The size in pixels of the image surface this context draws on.
    public var targetSize: (width: Int, height: Int) {
        let target = cairo_get_target(pointer)
        return (Int(cairo_image_surface_get_width(target)), Int(cairo_image_surface_get_height(target)))
    }
}
