import EffectKit
import Locking

/// The footage's decoder and its last frames, shared by the threads drawing one layer and by the player's
/// decode-ahead.
///
/// Two locks: `decoder` is held while a frame is decoded (one at a time, the decoder runs forward), `cache`
/// only to look up or store a frame. So a thread whose frame is cached never waits for a decode, and a thread
/// whose frame is being decoded waits on `decoder`, then finds it cached. Lock order: `decoder`, then `cache`.
/// A frame is decoded by whichever thread asks first and converted outside both locks by a thread that draws
/// it; the converted picture replaces the decoded frame. Which thread decodes or converts never changes the
/// pixels: decoding is deterministic from a keyframe, and two threads converting one frame make the same bytes.
///
/// Why `@unchecked Sendable`: the decoder is only touched inside `decoder`'s lock, the cache inside `cache`'s;
/// frames and pictures are immutable once shared.
final class FootageFrames: @unchecked Sendable {
    let name: String
    private let decoder: Locked<FootageDecoder>
    private let cache = Locked(Cache())
    private let pool = FootagePicture.Pool()

    /// Frames kept: the ones drawn last (held frames are drawn again at speeds below 1) and the ones decoded
    /// ahead (`FootagePlayer.lookahead`) — at most this many, decoded (the decoder's buffers) or converted
    /// (a picture of width × height × 4 bytes).
    static let cached = 6

    enum Entry: Sendable {
        case decoded(DecodedFrame)
        case converted(FootagePicture)
    }

    private struct Cache {
        /// Most recently used last.
        var entries: [(index: Int, entry: Entry)] = []

        /// The entry of frame `index`, now the most recently used.
        mutating func take(_ index: Int) -> Entry? {
            guard let hit = entries.last(where: { $0.index == index }) else { return nil }
            keep(hit.entry, for: index)
            return hit.entry
        }

        mutating func keep(_ entry: Entry, for index: Int) {
            entries.removeAll { $0.index == index }
            entries.append((index, entry))
            if entries.count > FootageFrames.cached { entries.removeFirst() }
        }
    }

    init(_ decoder: sending FootageDecoder, name: String) {
        self.name = name
        self.decoder = Locked(decoder)
    }

    /// Source frame `index`, converted.
    func picture(_ index: Int, of timeline: FootageTimeline) throws(EffectError) -> FootagePicture {
        switch try entry(index, of: timeline) {
        case .converted(let picture): return picture
        case .decoded(let frame):
            let picture = try frame.picture(name: name, pool: pool)
            cache.withLock { cache in
                if cache.entries.contains(where: { $0.index == index }) { cache.keep(.converted(picture), for: index) }
            }
            return picture
        }
    }

    /// Decodes source frame `index` into the cache unless it is there; a frame that fails is left to the
    /// thread that draws it, which reports the failure.
    func prepare(_ index: Int, of timeline: FootageTimeline) {
        _ = try? entry(index, of: timeline)
    }

    private func entry(_ index: Int, of timeline: FootageTimeline) throws(EffectError) -> Entry {
        if let hit = cache.withLock({ $0.take(index) }) { return hit }
        let cache = cache
        return try decoder.withLock { (decoder: inout FootageDecoder) throws(EffectError) -> Entry in
            // Another thread may have decoded it while this one waited for the decoder.
            if let hit = cache.withLock({ $0.take(index) }) { return hit }
            let entry = Entry.decoded(try decoder.frame(index, of: timeline))
            cache.withLock { $0.keep(entry, for: index) }
            return entry
        }
    }
}
