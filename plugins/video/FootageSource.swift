import EffectKit
import FootageTiming

/// Where a layer's footage frames come from: a container libav reads (`FootageDecoder`: MP4, MOV, WebM, MKV,
/// GIF, APNG) or an animated WebP, which libav does not read (`WebPAnimation`). Used by one thread at a time.
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

extension FootageFile {
    /// A source of this file's frames: by its content, an animated WebP or a container for libav.
    func source() throws(EffectError) -> any FootageSource {
        isWebP ? try WebPAnimation(self) : try FootageDecoder(self)
    }
}
