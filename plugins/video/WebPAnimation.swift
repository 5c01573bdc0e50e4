import CWebP
import EffectKit
import FileInput
import FootageTiming
import Glibc

/// An animated WebP, through libwebp's demuxer (the frames' durations, for the timeline) and its animation
/// decoder (each frame composed on the canvas, as browsers show it), in place of libav, which reads no animated
/// WebP. Frames are decoded forward from the first, the only place a WebP animation can start from.
///
/// Owns the file's bytes and libwebp's decoder; not thread-safe: `FootageFrames` lends it to one thread at a time.
final class WebPAnimation: FootageSource {
    let name: String
    private(set) var width = 0
    private(set) var height = 0
    let orientation = FootageOrientation.upright
    let pixelAspect = 1.0
    let audioStream: Int? = nil
    /// Each frame's duration in milliseconds.
    private var durations: [Int] = []
    private let bytes: UnsafeMutableRawBufferPointer
    private var data: WebPData
    private var decoder: OpaquePointer?
    /// The frame the decoder gives next.
    private var next = 0

    /// The largest file read: animations are pictures, not films.
    static let maxBytes = 256 << 20
    /// A duration this short (or 0) is shown for 100 ms, as browsers show such frames of a GIF or a WebP.
    static let shortest = 10
    static let stretched = 100

    /// Whether `descriptor`'s file starts as a WebP does (`RIFF` … `WEBP`).
    static func isWebP(_ descriptor: Int32) -> Bool {
        var head = [UInt8](repeating: 0, count: 12)
        return pread(descriptor, &head, 12, 0) == 12 && head[0..<4].elementsEqual(Array("RIFF".utf8))
            && head[8..<12].elementsEqual(Array("WEBP".utf8))
    }

    /// Reads the file and its frames' durations. Every stored property has its value before the first check, so
    /// a refusal runs `deinit`, which frees what was made.
    init(_ file: FootageFile) throws(EffectError) {
        name = file.name
        bytes = .allocate(byteCount: max(1, min(file.size, Self.maxBytes)), alignment: 16)
        data = WebPData(bytes: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), size: 0)
        guard file.size <= Self.maxBytes else {
            throw EffectError(parameter: "file", "\(name) is \(file.size) bytes; a WebP may have \(Self.maxBytes)")
        }
        let descriptor = try file.reader()
        defer { close(descriptor) }
        guard let base = bytes.baseAddress else { throw EffectError("no memory for \(name)") }
        var read = 0
        while read < file.size {
            // pread: the parts of the damage check open the file at once, through descriptors sharing an offset.
            let count = DescriptorIO.retrying { pread(descriptor, base + read, file.size - read, off_t(read)) }
            guard count > 0 else {
                throw EffectError(parameter: "file", "\(name) cannot be read (\(String(cString: strerror(errno))))")
            }
            read += count
        }
        data.size = read
        guard let demuxer = WebPDemux(&data) else {
            throw EffectError(parameter: "file", "\(name) is not a readable WebP file (damaged or cut off)")
        }
        defer { WebPDemuxDelete(demuxer) }
        let (canvasWidth, canvasHeight) = (
            Int(WebPDemuxGetI(demuxer, WEBP_FF_CANVAS_WIDTH)), Int(WebPDemuxGetI(demuxer, WEBP_FF_CANVAS_HEIGHT))
        )
        let count = Int(WebPDemuxGetI(demuxer, WEBP_FF_FRAME_COUNT))
        guard canvasWidth > 0, canvasHeight > 0, canvasWidth <= FootageDecoder.maxSide,
            canvasHeight <= FootageDecoder.maxSide, canvasWidth * canvasHeight <= FootageDecoder.maxPixels
        else {
            throw EffectError(
                parameter: "file",
                "\(name) is \(canvasWidth) × \(canvasHeight) pixels; the limit is \(FootageDecoder.maxSide) a side "
                    + "and 7680 × 4320")
        }
        guard (1...FootageDecoder.maxFrames).contains(count) else {
            throw EffectError(parameter: "file", "\(name) has \(count) frames; 1 to \(FootageDecoder.maxFrames)")
        }
        var found: [Int] = []
        var iterator = WebPIterator()
        if WebPDemuxGetFrame(demuxer, 1, &iterator) != 0 {
            repeat {
                found.append(Int(iterator.duration) <= Self.shortest ? Self.stretched : Int(iterator.duration))
            } while WebPDemuxNextFrame(&iterator) != 0
            WebPDemuxReleaseIterator(&iterator)
        }
        guard found.count == count else {
            throw EffectError(parameter: "file", "\(name) lists \(count) frames and holds \(found.count): damaged")
        }
        (width, height, durations) = (canvasWidth, canvasHeight, found)
        var options = WebPAnimDecoderOptions()
        guard WebPAnimDecoderOptionsInit(&options) != 0 else { throw EffectError("libwebp's version does not match") }
        // Premultiplied B, G, R, A bytes: cairo's ARGB32 on this little-endian machine.
        options.color_mode = MODE_bgrA
        options.use_threads = 0
        decoder = WebPAnimDecoderNew(&data, &options)
        guard decoder != nil else {
            throw EffectError(parameter: "file", "\(name) is not a readable WebP animation (damaged or cut off)")
        }
    }

    deinit {
        if let decoder { WebPAnimDecoderDelete(decoder) }
        bytes.deallocate()
    }

    /// The frames at the times their durations put them, in milliseconds from the first.
    func timeline() throws(EffectError) -> FootageTimeline {
        var starts: [Int64] = []
        var time: Int64 = 0
        for duration in durations {
            starts.append(time)
            time += Int64(duration)
        }
        return FootageTimeline(
            timestamps: starts, keyframes: [0], lastDuration: Int64(durations.last ?? 1), timeBase: (1, 1000))
    }

    /// Frame `index` as the animation shows it: forward from the frame the decoder stands at, else from the first.
    func frame(_ index: Int, of timeline: FootageTimeline) throws(EffectError) -> any ConvertibleFrame {
        guard let decoder else { throw EffectError("\(name): no decoder") }
        if index < next {
            WebPAnimDecoderReset(decoder)
            next = 0
        }
        var canvas: UnsafeMutablePointer<UInt8>?
        var timestamp: Int32 = 0
        while next <= index {
            guard WebPAnimDecoderGetNext(decoder, &canvas, &timestamp) != 0 else {
                throw EffectError("\(name): frame \(next) cannot be decoded (damaged)")
            }
            next += 1
        }
        guard let canvas else { throw EffectError("\(name): frame \(index) cannot be decoded") }
        return CopiedFrame(canvas, width: width, height: height)
    }

    /// Decodes `frames` (every frame of an animation is decoded from the first; `keyframesOnly` checks none).
    func check(_ frames: ClosedRange<Int>, of timeline: FootageTimeline, keyframesOnly: Bool) throws(EffectError) {
        guard !keyframesOnly else { return }
        for index in frames { _ = try frame(index, of: timeline) }
    }
}
