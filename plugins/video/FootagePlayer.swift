import EffectKit
import Locking

/// The footage's decoder and its last frames, shared by the threads drawing one layer.
///
/// Workers draw neighbouring frames at once (frame n on one thread, n + 1 on another), so one decoder
/// running forward serves them all: each frame is decoded once, under the lock, and kept among the last
/// few for the other threads and for held frames (speed below 1); the thread that asked converts it outside
/// the lock, and the converted picture replaces the decoded frame. Jumps backwards, or forwards past a
/// keyframe, seek to the keyframe before the frame wanted. Which thread asks first never changes the pixels:
/// decoding is deterministic from a keyframe, and two threads converting one frame make the same bytes.
///
/// Why `@unchecked Sendable`: the decoder and the cache are only touched inside `state`'s lock; frames and
/// pictures are immutable once shared.
final class FootagePlayer: @unchecked Sendable {
    let timeline: FootageTimeline
    let pictureWidth: Int
    let pictureHeight: Int
    private let name: String
    private let state: Locked<State>

    /// Frames kept for reuse.
    static let cached = 4

    private enum Entry {
        case decoded(DecodedFrame)
        case converted(FootagePicture)
    }

    private struct State: @unchecked Sendable {
        let decoder: FootageDecoder
        /// Most recently used last.
        var entries: [(index: Int, entry: Entry)] = []

        mutating func keep(_ entry: Entry, for index: Int) {
            entries.removeAll { $0.index == index }
            entries.append((index, entry))
            if entries.count > FootagePlayer.cached { entries.removeFirst() }
        }
    }

    init(_ file: FootageFile) throws(EffectError) {
        let decoder = try FootageDecoder(file)
        timeline = try decoder.timeline()
        (pictureWidth, pictureHeight) = (decoder.width, decoder.height)
        name = file.name
        state = Locked(State(decoder: decoder))
        // A stream whose first frame does not decode is refused now, not at its first frame.
        _ = try picture(0)
    }

    /// Source frame `index`, converted.
    func picture(_ index: Int) throws(EffectError) -> FootagePicture {
        let timeline = timeline
        let entry = try state.withLock { (state: inout State) throws(EffectError) -> Entry in
            if let hit = state.entries.last(where: { $0.index == index }) {
                state.keep(hit.entry, for: index)
                return hit.entry
            }
            let entry = Entry.decoded(try state.decoder.frame(index, of: timeline))
            state.keep(entry, for: index)
            return entry
        }
        switch entry {
        case .converted(let picture): return picture
        case .decoded(let frame):
            let picture = try frame.picture(name: name)
            state.withLock { state in
                if state.entries.contains(where: { $0.index == index }) { state.keep(.converted(picture), for: index) }
            }
            return picture
        }
    }
}
