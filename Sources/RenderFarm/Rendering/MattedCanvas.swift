import CairoKit

/// Frames painted over an opaque matte, for video presets without alpha: the one way `encode` (frames read
/// back from PNGs) and `render --video` (frames drawn as their PNGs are) composite them, so that both routes
/// hand the converter the same pixels. One surface is reused while the frame size stays. Not `Sendable`: one
/// per worker.
final class MattedCanvas {
    let matte: Color
    private var canvas: (surface: ImageSurface, context: DrawingContext)?

    init(matte: Color) { self.matte = matte }

    /// `frame` painted over the matte, on a surface the next call reuses.
    func composite(_ frame: ImageSurface) throws(CairoError) -> ImageSurface {
        let surface: ImageSurface
        let context: DrawingContext
        if let canvas, canvas.surface.width == frame.width, canvas.surface.height == frame.height {
            (surface, context) = canvas
        } else {
            canvas = nil
            surface = try ImageSurface(width: frame.width, height: frame.height)
            context = try DrawingContext(surface: surface)
            canvas = (surface, context)
        }
        context.setOperatorSource()
        context.setSource(matte)
        context.paint()
        context.setOperatorOver()
        context.setSource(frame, x: 0, y: 0)
        context.paint()
        surface.flush()
        return surface
    }
}
