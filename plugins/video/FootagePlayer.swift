import Dispatch
import EffectKit
import FootageTiming
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
/// The work item also converts the frames it decodes, taking that work off the drawing threads too, but only
/// while this process draws the layer's output frames one after another. A `render --isolate` worker draws
/// every second frame (its neighbour draws the others): it still decodes every frame, as its decoder must run
/// through them, but converting the frames it never draws would be wasted.
///
/// At most one work item runs per player. Releasing the player (the layer) stops it and waits for it to end,
/// so no decoding outlives the layer.
final class FootagePlayer: Sendable {
    let timeline: FootageTimeline
    let pictureWidth: Int
    let pictureHeight: Int
    /// How the pictures turn for display, and the width of a stored pixel on screen (its height being 1).
    let orientation: FootageOrientation
    let pixelAspect: Double
    /// The first audio stream's index (the clip's sound), nil when it has none.
    let audioStream: Int?
    private let frames: FootageFrames
    private let ahead = Locked(Ahead())
    private let running = DispatchGroup()

    /// Output frames whose source frames are decoded ahead of the one just drawn: with two threads drawing n
    /// and n + 1, those of n + 2 to n + 5 are decoded while they draw.
    static let lookahead = 4

    private struct Ahead {
        /// Source frames to decode, in order.
        var wanted: [Int] = []
        /// Whether to convert them too: the last two output frames drawn were neighbours.
        var converting = false
        /// The output frame drawn last.
        var drawn: Int?
        var running = false
        var stopped = false
    }

    init(_ input: FootageInput) throws(EffectError) {
        let decoder = try input.source()
        let timeline = try decoder.timeline()
        self.timeline = timeline
        (pictureWidth, pictureHeight) = (decoder.width, decoder.height)
        orientation = decoder.orientation
        pixelAspect = decoder.pixelAspect
        audioStream = decoder.audioStream
        frames = FootageFrames(decoder, name: input.name)
    }

    /// Decodes and converts source frame `index`, the first the layer shows: a stream whose first frame played
    /// does not decode is refused at create, not at its first frame. The frame stays cached for that frame.
    func open(at index: Int) throws(EffectError) {
        _ = try frames.picture(index, of: timeline)
    }

    deinit {
        ahead.withLock { $0.stopped = true }
        running.wait()
    }

    /// Source frame `index`, converted, for output frame `output`; then `next` (the source frames the layer
    /// shows next, in order) are decoded ahead.
    func picture(_ index: Int, output: Int, next: [Int]) throws(EffectError) -> FootagePicture {
        let picture = try frames.picture(index, of: timeline)
        decodeAhead(next, after: output)
        return picture
    }

    private func decodeAhead(_ next: [Int], after output: Int) {
        let start = ahead.withLock { ahead in
            // Two threads drawing n and n + 1 may finish in either order.
            ahead.converting = ahead.drawn.map { abs($0 - output) == 1 } ?? false
            ahead.drawn = output
            guard !ahead.stopped, !next.isEmpty else { return false }
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
            while let (index, converting) = ahead.withLock({ ahead -> (Int, Bool)? in
                guard !ahead.stopped, !ahead.wanted.isEmpty else {
                    ahead.running = false
                    return nil
                }
                return (ahead.wanted.removeFirst(), ahead.converting)
            }) {
                frames.prepare(index, of: timeline, converting: converting)
            }
        }
    }
}
