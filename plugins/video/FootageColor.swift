import CLibAV

/// The YUV → RGB factors of `rf_av_convert_420` for one frame's matrix and range, in 16.16 fixed point.
///
/// Only the matrices FFmpeg's encoders commonly tag (BT.601, BT.709, BT.2020) take this path; other 8-bit
/// 4:2:0 frames and every other format go through swscale's bit-exact conversion. The factors come from
/// the matrices' constants by the same double arithmetic everywhere, so the bytes match on every machine.
struct FootageColor: Equatable {
    let matrix: [Int32]
    let lumaOffset: Int32

    /// Nil when the frame is not 8-bit 4:2:0 or its matrix is another one.
    init?(_ frame: UnsafePointer<AVFrame>) {
        let format = AVPixelFormat(frame.pointee.format)
        guard format == AV_PIX_FMT_YUV420P || format == AV_PIX_FMT_YUVJ420P else { return nil }
        let (kr, kb): (Double, Double)
        switch frame.pointee.colorspace {
        case AVCOL_SPC_BT709: (kr, kb) = (0.2126, 0.0722)
        case AVCOL_SPC_BT2020_NCL: (kr, kb) = (0.2627, 0.0593)
        // FFmpeg's assumption for untagged video, as swscale's.
        case AVCOL_SPC_BT470BG, AVCOL_SPC_SMPTE170M, AVCOL_SPC_UNSPECIFIED: (kr, kb) = (0.299, 0.114)
        default: return nil
        }
        let full = format == AV_PIX_FMT_YUVJ420P || frame.pointee.color_range == AVCOL_RANGE_JPEG
        let (lumaScale, chromaScale) = full ? (1.0, 1.0) : (255.0 / 219.0, 255.0 / 224.0)
        let kg = 1 - kr - kb
        let factors = [
            lumaScale, 2 * (1 - kr) * chromaScale, 2 * kb * (1 - kb) / kg * chromaScale,
            2 * kr * (1 - kr) / kg * chromaScale, 2 * (1 - kb) * chromaScale,
        ]
        matrix = factors.map { Int32(($0 * 65536).rounded()) }
        lumaOffset = full ? 0 : 16
    }
}
