import CPNGWriter
import CairoKit
import FileOutput
import Foundation

/// How a frame drawn in a worker process reaches the output folder (article UntrustedPlugins): the worker
/// draws it and sends its pixels after its reply line; the render's own process encodes them as it encodes
/// every frame (`FrameEncoder`), hashes the PNG and writes the file. What a worker sends can only be pixels:
/// every frame the render records is a whole PNG of the canvas that this process made, which `encode` and
/// every reader decode. A sandboxed worker has no write access to the output folder — only to its plugins'
/// caches — so a plugin cannot touch frames, manifests or other jobs' files.
extension WorkerChannel {
    /// Sends the pixels of `surface` after a frame's reply line: its rows without padding.
    func send(pixelsOf surface: ImageSurface) throws(Failure) {
        let row = surface.width * 4
        // cairo's ARGB32 rows are 4-byte pixels with no padding (the stride is the width × 4); row by row otherwise.
        guard surface.stride != row else {
            return try send(UnsafeRawBufferPointer(start: surface.bytes, count: row * surface.height))
        }
        for y in 0..<surface.height {
            try send(UnsafeRawBufferPointer(start: surface.bytes + y * surface.stride, count: row))
        }
    }
}

extension FrameEncoder {
    /// The PNG of a frame whose pixels a worker sent (`WorkerReplyCheck.pixelBytes` bytes of `job`'s canvas), and
    /// the frame with this process's hash of it; the bytes are valid until the next call.
    /// `pixels` may be the memory a worker shares (`WorkerFrameMemory`): the encoder reads each pixel once.
    func encode(received pixels: UnsafeRawBufferPointer, of job: PlannedJob, drawMilliseconds: Double)
        throws(FrameFailure) -> (png: UnsafeRawBufferPointer, frame: WrittenFrame)
    {
        let canvas = job.spec.canvas
        var timing = rf_png_timing()
        let count = WorkerReplyCheck.pixelBytes(width: canvas.pixelWidth, height: canvas.pixelHeight)
        guard let base = pixels.baseAddress, pixels.count >= count else {
            throw .drawing("the worker's frame is not \(canvas.pixelWidth)×\(canvas.pixelHeight) pixels")
        }
        let png = try encode(
            base.assumingMemoryBound(to: UInt8.self), width: canvas.pixelWidth, height: canvas.pixelHeight,
            stride: canvas.pixelWidth * 4, compression: job.spec.output.compression, timing: &timing)
        let timings = FrameTimings(
            draw: drawMilliseconds, convert: Double(timing.convert_ns) / 1e6, encode: Double(timing.encode_ns) / 1e6)
        return (png, WrittenFrame(sha256: SHA256.hex(png), bytes: png.count, opaque: opaque, timings: timings))
    }
}
