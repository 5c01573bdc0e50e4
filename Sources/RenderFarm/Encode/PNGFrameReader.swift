import CairoKit

/// `encode`'s source of frames for `VideoFeed`: each PNG of a render read back into a surface
/// and, for presets without alpha, composited over the matte as `render --video` draws it, so
/// that both routes hand the converter the same pixels. Not `Sendable`: one per worker.
final class PNGFrameReader {
    private let matte: Color?
    private let width: Int
    private let height: Int
    /// The surface frames are composited on (with a matte), reused from frame to frame.
    private var canvas: (surface: ImageSurface, context: DrawingContext)?

    init(matte: Color?, width: Int, height: Int) {
        self.matte = matte
        self.width = width
        self.height = height
    }

    /// The frame in the PNG at `path`.
    func read(_ path: String) -> FedFrame {
        let png: ImageSurface
        do {
            png = try ImageSurface(contentsOfPNG: path)
        } catch {
            return .failed(error.description)
        }
        guard png.width == width, png.height == height else {
            return .failed(
                "\(path) is \(png.width)×\(png.height) pixels, the manifest says \(width)×\(height); render the job again")
        }
        guard let matte else { return .made(png, attempts: 1) }
        do {
            let (surface, context) = try reusedCanvas()
            context.setOperatorSource()
            context.setSource(matte)
            context.paint()
            context.setOperatorOver()
            context.setSource(png, x: 0, y: 0)
            context.paint()
            surface.flush()
            return .made(surface, attempts: 1)
        } catch {
            return .failed("compositing \(path): \(error.description)")
        }
    }

    private func reusedCanvas() throws(CairoError) -> (surface: ImageSurface, context: DrawingContext) {
        if let canvas { return canvas }
        let surface = try ImageSurface(width: width, height: height)
        let made = (surface: surface, context: try DrawingContext(surface: surface))
        canvas = made
        return made
    }
}
