import CairoKit

/// `encode`'s source of frames for `VideoFeed`: each PNG of a render read back into a surface
/// and, for presets without alpha, composited over the matte as `render --video` draws it, so
/// that both routes hand the converter the same pixels. Not `Sendable`: one per worker.
final class PNGFrameReader {
    /// For presets without alpha: frames composited over an opaque colour.
    private let matted: MattedCanvas?
    private let width: Int
    private let height: Int

    init(matte: Color?, width: Int, height: Int) {
        matted = matte.map(MattedCanvas.init)
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
        guard let matted else { return .made(png, attempts: 1) }
        do {
            return .made(try matted.composite(png), attempts: 1)
        } catch {
            return .failed("compositing \(path): \(error.description)")
        }
    }
}
