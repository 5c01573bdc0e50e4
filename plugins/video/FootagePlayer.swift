import EffectKit
import Locking

/// The footage's decoder and its last converted frames, shared by the threads drawing one layer.
///
/// Workers draw neighbouring frames at once (frame n on one thread, n + 1 on another), so one decoder
/// running forward serves them all: a frame is decoded and converted once, under the lock, and kept among
/// the last few for the other threads and for held frames (speed below 1). Jumps backwards, or forwards
/// past a keyframe, seek to the keyframe before the frame wanted. Which thread asks first never changes
/// the pixels: frame n is always decoded from a keyframe's clean start.
///
/// Why `@unchecked Sendable`: the decoder and the cache are only touched inside `state`'s lock; pictures
/// are immutable once made.
final class FootagePlayer: @unchecked Sendable {
    let timeline: FootageTimeline
    let pictureWidth: Int
    let pictureHeight: Int
    private let state: Locked<State>

    /// Converted frames kept for reuse.
    static let cached = 4

    private struct State: @unchecked Sendable {
        let decoder: FootageDecoder
        /// Most recently used last.
        var pictures: [(index: Int, picture: FootagePicture)] = []
    }

    init(_ file: FootageFile) throws(EffectError) {
        let decoder = try FootageDecoder(file)
        timeline = try decoder.timeline()
        (pictureWidth, pictureHeight) = (decoder.width, decoder.height)
        state = Locked(State(decoder: decoder))
        // A stream whose first frame does not decode is refused now, not at its first frame.
        _ = try picture(0)
    }

    /// Source frame `index`, converted.
    func picture(_ index: Int) throws(EffectError) -> FootagePicture {
        let timeline = timeline
        return try state.withLock { (state: inout State) throws(EffectError) -> FootagePicture in
            if let hit = state.pictures.firstIndex(where: { $0.index == index }) {
                let entry = state.pictures.remove(at: hit)
                state.pictures.append(entry)
                return entry.picture
            }
            let picture = try state.decoder.picture(index, of: timeline)
            state.pictures.append((index, picture))
            if state.pictures.count > Self.cached { state.pictures.removeFirst() }
            return picture
        }
    }
}
