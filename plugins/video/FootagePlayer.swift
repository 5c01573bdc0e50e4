import Dispatch
import EffectKit
import Locking

/// Plays one layer's footage: its frames (`FootageFrames`, shared by the threads drawing the layer) and a
/// decode-ahead that decodes the frames the layer shows next while the threads draw.
///
/// Workers draw neighbouring frames at once (frame n on one thread, n + 1 on another) and one decoder runs
/// forward for them all, so without help each thread waits on the decoder for its frame. After each frame
/// drawn, the layer names the source frames of the next output frames (`lookahead`, from its clock); one work
/// item on a Dispatch queue decodes those not cached, in order, and stops when none are left. A drawing thread
/// then finds its frame decoded, or waits for the decode under way instead of starting its own. Decoding ahead
/// changes no pixel: a frame decodes the same whichever thread decodes it.
///
/// At most one work item runs per player. Releasing the player (the layer) stops it and waits for it to end,
/// so no decoding outlives the layer.
final class FootagePlayer: Sendable {
    let timeline: FootageTimeline
    let pictureWidth: Int
    let pictureHeight: Int
    private let frames: FootageFrames
    private let ahead = Locked(Ahead())
    private let running = DispatchGroup()

    /// Output frames whose source frames are decoded ahead of the one just drawn: with two threads drawing n
    /// and n + 1, those of n + 2 to n + 5 are decoded while they draw.
    static let lookahead = 4

    private struct Ahead {
        /// Source frames to decode, in order.
        var wanted: [Int] = []
        var running = false
        var stopped = false
    }

    init(_ file: FootageFile) throws(EffectError) {
        let decoder = try FootageDecoder(file)
        let timeline = try decoder.timeline()
        self.timeline = timeline
        (pictureWidth, pictureHeight) = (decoder.width, decoder.height)
        frames = FootageFrames(decoder, name: file.name)
        // A stream whose first frame does not decode is refused now, not at its first frame.
        _ = try frames.picture(0, of: timeline)
    }

    deinit {
        ahead.withLock { $0.stopped = true }
        running.wait()
    }

    /// Source frame `index`, converted; then `next` (the source frames the layer shows next, in order) are
    /// decoded ahead.
    func picture(_ index: Int, next: [Int]) throws(EffectError) -> FootagePicture {
        let picture = try frames.picture(index, of: timeline)
        decodeAhead(next)
        return picture
    }

    private func decodeAhead(_ next: [Int]) {
        guard !next.isEmpty else { return }
        let start = ahead.withLock { ahead in
            guard !ahead.stopped else { return false }
            ahead.wanted = next
            guard !ahead.running else { return false }
            ahead.running = true
            return true
        }
        guard start else { return }
        // The work item holds the frames and the list, never the player, so that the player's deinit runs
        // when the layer is released and can wait for it.
        let (frames, ahead, timeline) = (frames, ahead, timeline)
        DispatchQueue.global().async(group: running) {
            while let index = ahead.withLock({ ahead -> Int? in
                guard !ahead.stopped, !ahead.wanted.isEmpty else {
                    ahead.running = false
                    return nil
                }
                return ahead.wanted.removeFirst()
            }) {
                frames.prepare(index, of: timeline)
            }
        }
    }
}
