import CPNGWriter
import CairoKit

/// Single frames of a prepared job drawn on demand as PNG bytes, for the studio's timeline: the
/// drawing and encoding of `render`, so a frame is byte for byte the file `render` writes for it.
/// Not `Sendable`: use it from one thread at a time.
package final class FramePreview {
    private let worker = FrameWorker()

    package init() {}

    /// The PNG of frame `index` of `job`; `debug` draws the motion overlay of `preview --debug` over it.
    package func png(_ index: Int, of job: PlannedJob, debug: Bool = false) throws(FramePreviewError) -> [UInt8] {
        guard (0..<job.spec.frameCount).contains(index) else {
            throw FramePreviewError(message: "frame \(index) is outside the job (0-\(job.spec.frameCount - 1))")
        }
        do throws(FrameFailure) {
            let surface = try drawn(index, of: job, debug: debug)
            var timing = rf_png_timing()
            return Array(try worker.encode(surface, of: job, timing: &timing))
        } catch {
            throw FramePreviewError(message: "frame \(index): \(error.message)")
        }
    }

    /// Frame `index` of `job` drawn as `render` draws it, with the motion overlay of `preview --debug` over it when
    /// `debug` (a worker process sends these pixels); the surface is reused by the next call.
    func drawn(_ index: Int, of job: PlannedJob, debug: Bool) throws(FrameFailure) -> ImageSurface {
        let surface = try worker.draw(index, of: job)
        guard debug else { return surface }
        do {
            let context = try DrawingContext(surface: surface)
            try MotionOverlay.draw(job, frame: index, on: context, x: 0, y: 0, pointScale: job.spec.canvas.scale)
            surface.flush()
        } catch {
            throw FrameFailure.drawing("--debug overlay: \(error)")
        }
        return surface
    }
}

/// A frame could not be drawn or encoded.
package struct FramePreviewError: Error, Equatable, CustomStringConvertible {
    package var message: String
    package var description: String { message }
}
