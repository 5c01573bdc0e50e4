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

    /// Draws `surface`, pixel for pixel, over this context's target with `blend`, at `alpha`
    /// opacity or through `mask` (an alpha surface of the same size), ignoring the transformation.
    /// Pixels written other than by cairo must have been marked dirty (`ImageSurface.markDirty`).
    public func composite(_ surface: ImageSurface, blend: BlendMode, alpha: Double, mask: ImageSurface? = nil) {
        cairo_save(pointer)
        cairo_identity_matrix(pointer)
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

extension ImageSurface {
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

extension DrawingContext {
    /// The size in pixels of the image surface this context draws on.
    public var targetSize: (width: Int, height: Int) {
        let target = cairo_get_target(pointer)
        return (Int(cairo_image_surface_get_width(target)), Int(cairo_image_surface_get_height(target)))
    }
}
