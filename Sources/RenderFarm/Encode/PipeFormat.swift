import CPNGWriter
import CVideoFrame
import CairoKit

/// The pixel format frames travel to ffmpeg in on its standard input (`render --video`, and
/// `encode` for the converted formats), made by the worker that drew or read the frame, in
/// parallel with the other workers, so that ffmpeg only encodes.
package enum PipeFormat: Sendable, Equatable {
    /// Planar 4:2:0, limited range, BT.709 (`bt709`) or BT.601 coefficients; the frame is
    /// composited over the matte in cairo first, so no alpha is ever unpremultiplied.
    case yuv420p(bt709: Bool)
    /// Planar 4:2:0 with an alpha plane, BT.601 limited range, from straight colour.
    case yuva420p
    /// Planar 4:2:0, BT.601 limited range, of an alpha-packed (VAP) frame: the colour as stored
    /// (premultiplied, which is the colour over black) and the alpha as grey, where `layout` says.
    case alphaPacked(AlphaPackedLayout)
    /// Planar 4:4:4 with alpha, 10 bits in 16-bit little-endian samples (ProRes 4444): BT.601
    /// limited-range colour from straight colour, full-range alpha.
    case yuva444p10
    /// Straight-alpha RGBA, which ffmpeg's filter graph converts (presets with their own graph).
    case rgba

    /// ffmpeg's name of the format (`-pixel_format`).
    package var ffmpegName: String {
        switch self {
        case .yuv420p, .alphaPacked: "yuv420p"
        case .yuva420p: "yuva420p"
        case .yuva444p10: "yuva444p10le"
        case .rgba: "rgba"
        }
    }

    /// Whether frames arrive in the encoder's own format: ffmpeg then runs no filter graph.
    package var isEncoderFormat: Bool { self != .rgba }

    /// Whether frames are composited over the matte before they are converted (no alpha kept).
    package var isComposited: Bool { if case .yuv420p = self { true } else { false } }

    /// The size of the frames on the pipe for frames of `width × height`: padded to even numbers
    /// for 4:2:0, or the alpha-packed layout's.
    package func frameSize(width: Int, height: Int) -> (width: Int, height: Int) {
        switch self {
        case .yuv420p, .yuva420p: ((width + 1) / 2 * 2, (height + 1) / 2 * 2)
        case .alphaPacked(let layout): (layout.videoWidth, layout.videoHeight)
        case .yuva444p10, .rgba: (width, height)
        }
    }

    /// Bytes of one frame on the pipe.
    func frameBytes(width: Int, height: Int) -> Int {
        let size = frameSize(width: width, height: height)
        switch self {
        case .yuv420p, .alphaPacked: return rf_yuv420_frame_size(UInt32(size.width), UInt32(size.height), 0)
        case .yuva420p: return rf_yuv420_frame_size(UInt32(size.width), UInt32(size.height), 1)
        case .yuva444p10: return rf_yuva444p10_frame_size(UInt32(width), UInt32(height))
        case .rgba: return width * height * 4
        }
    }
}

extension EncodePlan {
    /// The format `render --video` (and `encode`, when it is an encoder format) feeds ffmpeg:
    /// the colour matrix and range each preset's video has always been tagged with.
    package var pipeFormat: PipeFormat {
        switch preset {
        case .mp4: .yuv420p(bt709: true)
        case .webmAlpha, .hevcAlpha: .yuva420p
        case .alphaPacked: .alphaPacked(alphaPackedLayout)
        case .prores4444: .yuva444p10
        case .gif, .apng: .rgba
        }
    }
}

extension Color {
    /// What a preset without alpha composites frames over: this colour made opaque, or black
    /// when it is fully transparent.
    var matte: Color { alpha == 0 ? .black : Color(red: red, green: green, blue: blue) }
}

/// One worker's conversion of its frames to the pipe format, with the scratch memory it reuses.
/// Not `Sendable`: it belongs to its worker.
final class FrameConverter {
    let format: PipeFormat
    /// Straight RGBA of the current frame (`.yuva420p`), or the packed frame (`.alphaPacked`).
    private var scratch: [UInt8] = []

    init(format: PipeFormat) {
        self.format = format
    }

    /// The bytes of `surface` (flushed) in the pipe format: unpremultiplied at most once, with the
    /// table the PNG writer uses, so that frames read back from PNGs convert to the same bytes.
    func convert(_ surface: ImageSurface) throws(FrameFailure) -> [UInt8] {
        let count = format.frameBytes(width: surface.width, height: surface.height)
        var status: Int32 = 0
        let frame = [UInt8](unsafeUninitializedCapacity: count) { bytes, initialized in
            guard let destination = bytes.baseAddress else { return }
            status = write(surface, to: destination)
            initialized = count
        }
        guard status == 0 else {
            throw .drawing(
                "no memory to convert a \(surface.width)×\(surface.height) frame to \(format.ffmpegName)")
        }
        return frame
    }

    /// Writes `surface` in the pipe format to `destination` (`frameBytes`); nonzero when out of memory.
    private func write(_ surface: ImageSurface, to destination: UnsafeMutablePointer<UInt8>) -> Int32 {
        let (width, height) = (UInt32(surface.width), UInt32(surface.height))
        switch format {
        case .yuv420p(let bt709):
            return rf_yuv420_convert(
                surface.bytes, width, height, surface.stride, RF_PIXEL_ARGB32, bt709 ? RF_YUV_BT709 : RF_YUV_BT601,
                0, destination)
        case .yuva420p:
            return withScratch(surface.width * surface.height * 4) { rgba in
                rf_argb32_to_rgba(surface.bytes, width, height, surface.stride, rgba)
                return rf_yuv420_convert(
                    rgba, width, height, surface.width * 4, RF_PIXEL_RGBA, RF_YUV_BT601, 1, destination)
            }
        case .alphaPacked(let layout):
            let (packedWidth, packedHeight) = (UInt32(layout.videoWidth), UInt32(layout.videoHeight))
            return withScratch(layout.videoWidth * layout.videoHeight * 4) { packed in
                rf_alpha_packed_compose(
                    surface.bytes, width, height, surface.stride, UInt32(layout.alphaFrame.x),
                    UInt32(layout.alphaFrame.y), packed, packedWidth, packedHeight)
                return rf_yuv420_convert(
                    packed, packedWidth, packedHeight, layout.videoWidth * 4, RF_PIXEL_ARGB32, RF_YUV_BT601, 0,
                    destination)
            }
        case .yuva444p10:
            return withScratch(surface.width * surface.height * 4) { rgba in
                rf_argb32_to_rgba(surface.bytes, width, height, surface.stride, rgba)
                rf_yuva444p10_convert(rgba, width, height, surface.width * 4, RF_PIXEL_RGBA, RF_YUV_BT601, destination)
                return 0
            }
        case .rgba:
            rf_argb32_to_rgba(surface.bytes, width, height, surface.stride, destination)
            return 0
        }
    }

    /// Runs `body` on this converter's scratch memory, grown to `count` bytes.
    private func withScratch(_ count: Int, _ body: (UnsafeMutablePointer<UInt8>?) -> Int32) -> Int32 {
        if scratch.count < count { scratch = [UInt8](repeating: 0, count: count) }
        return scratch.withUnsafeMutableBufferPointer { body($0.baseAddress) }
    }
}
