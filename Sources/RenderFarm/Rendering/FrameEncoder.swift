import CPNGWriter
import RenderFarmJobs

/// The PNG encoding of every frame `render` writes, whether this process drew it (`FrameWorker`) or a worker
/// process sent its pixels (`WorkerProcess`): one encoder whose buffers are reused from frame to frame.
/// Not `Sendable`: it lives on the lane that made it.
final class FrameEncoder {
    private var encoder = rf_png_encoder()

    init() {}

    deinit { rf_png_encoder_free(&encoder) }

    /// Whether the last frame encoded was opaque (written as RGB, not RGBA).
    var opaque: Bool { encoder.opaque != 0 }

    /// Encodes `height` rows of `width` premultiplied ARGB32 pixels (cairo's format), `stride` bytes apart, as
    /// `compression` says; the bytes are valid until the next call. Any bytes are pixels: the encoder reads
    /// `stride × height` bytes and nothing else (its unpremultiply table has a row for every alpha).
    func encode(
        _ pixels: UnsafePointer<UInt8>, width: Int, height: Int, stride: Int, compression: Compression,
        timing: inout rf_png_timing
    ) throws(FrameFailure) -> UnsafeRawBufferPointer {
        let failure: String? = withUnsafeTemporaryAllocation(of: CChar.self, capacity: 256) { message in
            guard let base = message.baseAddress else { return "no memory for a message" }
            let status = rf_png_encode_argb32(
                &encoder, pixels, UInt32(width), UInt32(height), stride, Int32(compression.level),
                compression.adaptiveFilters ? RF_PNG_FILTER_ADAPTIVE : RF_PNG_FILTER_NONE, &timing, base,
                message.count)
            return status == 0 ? nil : String(cString: base)
        }
        if let failure { throw .drawing(failure) }
        return UnsafeRawBufferPointer(start: encoder.data, count: encoder.length)
    }
}
