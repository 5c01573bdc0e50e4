import CPNGWriter
import CairoKit
import FileOutput
import Foundation

/// How a frame drawn in a worker process reaches the output folder (article UntrustedPlugins): the worker
/// draws and encodes it and sends the PNG after its reply line; the render's own process checks the bytes
/// against the reply and the canvas, hashes them and writes the file. A sandboxed worker has no write access
/// to the output folder — only to its plugins' caches — so a plugin cannot touch frames, manifests or other
/// jobs' files, and the checksum in the manifest is the parent's own.
extension FrameWorker {
    /// Draws and encodes frame `index` of `job` as `render` does, without writing it: the PNG (valid until
    /// the next call) and the drawing and encoding times (the write time is the parent's).
    func encodedFrame(_ index: Int, of job: PlannedJob) throws(FrameFailure)
        -> (png: UnsafeRawBufferPointer, timings: FrameTimings)
    {
        var timings = FrameTimings()
        let clock = ContinuousClock()
        let start = clock.now
        let surface = try draw(index, of: job)
        timings.draw = (clock.now - start).seconds * 1000
        var pngTiming = rf_png_timing()
        let png = try encode(surface, of: job, timing: &pngTiming)
        timings.convert = Double(pngTiming.convert_ns) / 1e6
        timings.encode = Double(pngTiming.encode_ns) / 1e6
        return (png, timings)
    }
}

extension WorkerReplyCheck {
    /// Whether a PNG the encoder wrote is opaque: it writes frames without transparency as RGB (colour
    /// type 2, the byte after the IHDR chunk's size and depth), others as RGBA.
    static func isOpaque(_ png: some Collection<UInt8>) -> Bool {
        png.count > 25 && png[png.index(png.startIndex, offsetBy: 25)] == 2
    }

    /// The frame a worker sent as `png` after the reply `claimed`, checked: the bytes must be a PNG of the
    /// canvas with the transparency the reply gave. Returns the frame with the parent's own hash of the
    /// bytes (a worker's checksum is never used); anything else ends the worker.
    static func frame(_ png: [UInt8], claimed: WrittenFrame, width: Int, height: Int) throws(Rejection) -> WrittenFrame
    {
        guard let header = PNGHeader(png), header.width == width, header.height == height else {
            throw .untrusted("sent frame bytes that are not a \(width)×\(height) PNG")
        }
        guard isOpaque(png) == claimed.opaque else {
            throw .untrusted("sent frame bytes whose transparency is not the one its reply gave")
        }
        let sha256 = png.withUnsafeBytes { SHA256.hex($0) }
        return WrittenFrame(sha256: sha256, bytes: png.count, opaque: claimed.opaque, timings: claimed.timings)
    }
}
