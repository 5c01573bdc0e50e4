import EffectKit
import FootageTiming
import Locking

/// The footage's decoder and its last frames, shared by the threads drawing one layer and by the player's
/// decode-ahead.
///
/// Two locks: `decoder` is held while a frame is decoded (one at a time, the decoder runs forward), `cache`
/// only to look up or store a frame. So a thread whose frame is cached never waits for a decode, and a thread
/// whose frame is being decoded waits on `decoder`, then finds it cached. Lock order: `decoder`, then `cache`.
/// A frame is decoded by whichever thread asks first and converted once, outside both locks, by whichever
/// thread needs its pixels first (`CachedFrame`). Which thread decodes or converts never changes the pixels:
/// decoding is deterministic from a keyframe, and the conversion is a function of the decoded frame.
///
/// Why `@unchecked Sendable`: the decoder is only touched inside `decoder`'s lock, the cache inside `cache`'s;
/// frames and pictures are immutable once shared.
final class FootageFrames: @unchecked Sendable {
    let name: String
    private let decoder: Locked<any FootageSource>
    private let cache = Locked(Cache())
    private let pool = FootagePicture.Pool()

    /// Frames kept: the ones drawn last (held frames are drawn again at speeds below 1) and the ones decoded
    /// ahead (`FootagePlayer.lookahead`) — at most this many, decoded (the decoder's buffers) or converted
    /// (a picture of width × height × 4 bytes).
    static let cached = 6

    private struct Cache {
        /// Most recently used last.
        var entries: [(index: Int, frame: CachedFrame)] = []

        /// Frame `index`, now the most recently used.
        mutating func take(_ index: Int) -> CachedFrame? {
            guard let hit = entries.last(where: { $0.index == index }) else { return nil }
            keep(hit.frame, for: index)
            return hit.frame
        }

        mutating func keep(_ frame: CachedFrame, for index: Int) {
            entries.removeAll { $0.index == index }
            entries.append((index, frame))
            if entries.count > FootageFrames.cached { entries.removeFirst() }
        }
    }

    init(_ decoder: sending any FootageSource, name: String) {
        self.name = name
        self.decoder = Locked(decoder)
    }

    /// Source frame `index`, converted.
    func picture(_ index: Int, of timeline: FootageTimeline) throws(EffectError) -> FootagePicture {
        try cached(index, of: timeline).picture(name: name, pool: pool)
    }

    /// Decodes source frame `index` into the cache unless it is there, and converts it when `converting`; a
    /// frame that fails is left to the thread that draws it, which reports the failure.
    func prepare(_ index: Int, of timeline: FootageTimeline, converting: Bool) {
        guard let frame = try? cached(index, of: timeline), converting else { return }
        _ = try? frame.picture(name: name, pool: pool)
    }

    private func cached(_ index: Int, of timeline: FootageTimeline) throws(EffectError) -> CachedFrame {
        if let hit = cache.withLock({ $0.take(index) }) { return hit }
        let cache = cache
        return try decoder.withLock { (decoder: inout any FootageSource) throws(EffectError) -> CachedFrame in
            // Another thread may have decoded it while this one waited for the decoder.
            if let hit = cache.withLock({ $0.take(index) }) { return hit }
            let frame = CachedFrame(try decoder.frame(index, of: timeline))
            cache.withLock { $0.keep(frame, for: index) }
            return frame
        }
    }
}

/// One cached source frame: decoded, then converted once. The thread that needs its pixels first converts it
/// (a drawing thread or the decode-ahead); another that needs them meanwhile waits for that conversion instead
/// of making the same bytes again. Converting releases the decoded frame (the decoder's buffers).
final class CachedFrame: Sendable {
    private enum State: Sendable {
        case decoded(any ConvertibleFrame)
        case converted(FootagePicture)
    }

    private let state: Locked<State>

    init(_ frame: any ConvertibleFrame) {
        state = Locked(.decoded(frame))
    }

    func picture(name: String, pool: FootagePicture.Pool) throws(EffectError) -> FootagePicture {
        try state.withLock { (state: inout State) throws(EffectError) -> FootagePicture in
            switch state {
            case .converted(let picture): return picture
            case .decoded(let frame):
                let picture = try frame.picture(name: name, pool: pool)
                state = .converted(picture)
                return picture
            }
        }
    }
}
