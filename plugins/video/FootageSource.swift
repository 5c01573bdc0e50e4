import EffectKit
import FootageTiming

/// Where a layer's footage frames come from: a container libav reads (`FootageDecoder`: MP4, MOV, WebM, MKV,
/// GIF, APNG), an animated WebP, which libav does not read (`WebPAnimation`), or a numbered PNG sequence
/// (`SequenceFrames`). Used by one thread at a time.
protocol FootageSource: AnyObject {
    var width: Int { get }
    var height: Int { get }
    /// How the pictures turn for display, and the width of a stored pixel on screen (its height being 1).
    var orientation: FootageOrientation { get }
    var pixelAspect: Double { get }
    /// The first audio stream's index (the clip's sound), nil when it has none.
    var audioStream: Int? { get }
    /// Every frame's time, and where decoding can start.
    func timeline() throws(EffectError) -> FootageTimeline
    /// Source frame `index`, decoded.
    func frame(_ index: Int, of timeline: FootageTimeline) throws(EffectError) -> any ConvertibleFrame
    /// Decodes `frames` (from a keyframe; only the keyframes among them when `keyframesOnly`) and throws the
    /// first damage found.
    func check(_ frames: ClosedRange<Int>, of timeline: FootageTimeline, keyframesOnly: Bool) throws(EffectError)
}

/// A decoded frame that becomes premultiplied ARGB32 rows when first drawn (`CachedFrame`).
protocol ConvertibleFrame: Sendable {
    func picture(name: String, pool: FootagePicture.Pool) throws(EffectError) -> FootagePicture
}

/// What a layer's `file` names: one file, or a numbered PNG sequence.
enum FootageInput: Sendable {
    case file(FootageFile)
    case sequence(ImageSequence)

    /// As the job names it.
    var name: String {
        switch self {
        case .file(let file): file.name
        case .sequence(let sequence): sequence.name
        }
    }

    /// Every file read, absolute (the layer's input files).
    var files: [String] {
        switch self {
        case .file(let file): [file.path]
        case .sequence(let sequence): sequence.files
        }
    }

    /// A source of the frames, with a decoder of its own: an animated WebP (by its content), a container for
    /// libav, or the sequence's files.
    func source() throws(EffectError) -> any FootageSource {
        switch self {
        case .file(let file): file.isWebP ? try WebPAnimation(file) : try FootageDecoder(file)
        case .sequence(let sequence): try SequenceFrames(sequence)
        }
    }
}

/// A frame in premultiplied ARGB32 already, copied out of a decoder's buffer (which its next frame overwrites).
final class CopiedFrame: ConvertibleFrame {
    private let pixels: [UInt8]
    private let width: Int
    private let height: Int

    /// Copies `height` rows of `width` pixels, `stride` bytes apart (by default packed).
    init(_ source: UnsafePointer<UInt8>, width: Int, height: Int, stride: Int? = nil) {
        let stride = stride ?? width * 4
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        pixels.withUnsafeMutableBufferPointer { target in
            guard let base = target.baseAddress else { return }
            for row in 0..<height { (base + row * width * 4).update(from: source + row * stride, count: width * 4) }
        }
        self.pixels = pixels
        (self.width, self.height) = (width, height)
    }

    func picture(name: String, pool: FootagePicture.Pool) throws(EffectError) -> FootagePicture {
        let picture = try FootagePicture(width: width, height: height, pool: pool)
        pixels.withUnsafeBufferPointer { source in
            guard let base = source.baseAddress else { return }
            for row in 0..<height {
                (picture.pixels + row * picture.stride).update(from: base + row * width * 4, count: width * 4)
            }
        }
        return picture
    }
}
