import CLibAV
import EffectKit

/// A decoded frame, kept by reference (`av_frame_ref`: the decoder's buffers, not a copy) until converted.
///
/// Why `@unchecked Sendable`: nothing writes the frame after the decoder hands it over; the thread that
/// converts it only reads it.
final class DecodedFrame: ConvertibleFrame, @unchecked Sendable {
    let frame: UnsafeMutablePointer<AVFrame>

    init?(_ source: UnsafeMutablePointer<AVFrame>) {
        guard let copy = av_frame_clone(source) else { return nil }
        frame = copy
    }

    deinit {
        var pointer: UnsafeMutablePointer<AVFrame>? = frame
        av_frame_free(&pointer)
    }

    /// The frame as premultiplied ARGB32: 8-bit 4:2:0 by `rf_av_convert_420`, anything else by swscale's
    /// bit-exact conversion (then premultiplied when the format has alpha). Runs outside the decoder's lock.
    func picture(name: String, pool: FootagePicture.Pool) throws(EffectError) -> FootagePicture {
        let (width, height) = (Int(frame.pointee.width), Int(frame.pointee.height))
        let picture = try FootagePicture(width: width, height: height, pool: pool)
        if let color = FootageColor(frame) {
            rf_av_convert_420(frame, picture.pixels, Int32(picture.stride), color.matrix, color.lumaOffset, 1)
            picture.opaque = true
            return picture
        }
        guard let scaler = rf_av_bgra_scaler(nil, frame) else {
            throw EffectError("\(name): cannot convert its pixel format")
        }
        defer { sws_freeContext(scaler) }
        guard rf_av_convert(scaler, frame, picture.pixels, Int32(picture.stride)) == Int32(height) else {
            throw EffectError("\(name): converting a frame failed")
        }
        if rf_av_has_alpha(AVPixelFormat(frame.pointee.format)) != 0 {
            rf_av_premultiply(picture.pixels, Int32(width), Int32(height), Int32(picture.stride))
        } else {
            picture.opaque = true
        }
        return picture
    }
}
