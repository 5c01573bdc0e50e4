/// The frames of a footage stream in presentation order: their timestamps, and where decoding can start.
///
/// Built from every packet of the stream (demuxing only, no decoding) by the plugin in `create`. A packet is one frame, so the n-th smallest
/// presentation timestamp is source frame n. The rule and the frame keys need nothing else.
package struct FootageTimeline: Sendable, Equatable {
    /// Presentation timestamps in the stream's time base, ascending, one per frame.
    package let timestamps: [Int64]
    /// Presentation times in seconds from the first frame (timestamps[0] is 0 s).
    package let seconds: [Double]
    /// Indices of the frames decoding can start from (keyframes), ascending; always holds 0.
    package let keyframes: [Int]
    /// Where the last frame ends, in seconds from the first frame.
    package let duration: Double
    /// The first frame's time in the container's seconds: where the rule's times count from.
    package let origin: Double

    /// How early a frame is reached: one tick of the stream's time base, at most a millisecond (and at least
    /// `tolerance`). Containers round times to their tick: a 30 fps WebM stores frame 2 at 67 ms, after
    /// 2/30 s, and with it the first frame's time, so a frame's time from the first can be one tick late.
    package let slack: Double

    /// Times closer than this count as equal: a tenth of a microsecond, far below any container's time base
    /// (MP4's 1/90000 s, Matroska's 1/1000 s), far above the rounding of `in + t × speed` in doubles.
    package static let tolerance = 1e-7
    /// The largest `slack`: a millisecond, Matroska's tick. A coarser time base (1/600 s, 1/30 s) counts
    /// only this early, so that a clip whose times its ticks state exactly is not shown a frame early.
    package static let largestSlack = 0.001

    package init(timestamps: [Int64], keyframes: Set<Int64>, lastDuration: Int64, timeBase: (num: Int32, den: Int32)) {
        self.timestamps = timestamps
        let first = timestamps.first ?? 0
        let unit = Double(timeBase.num) / Double(timeBase.den)
        seconds = timestamps.map { Double($0 - first) * unit }
        origin = Double(first) * unit
        slack = min(max(unit, Self.tolerance), Self.largestSlack)
        var starts = timestamps.indices.filter { keyframes.contains(timestamps[$0]) }
        if starts.first != 0 { starts.insert(0, at: 0) }
        self.keyframes = starts
        let last = timestamps.last ?? first
        duration = Double(last - first + max(lastDuration, 1)) * unit
    }

    /// The frame with the largest presentation time ≤ `time` (seconds from the first frame), a frame stored
    /// up to `slack` later counting as on time; nil before the first.
    package func frame(at time: Double) -> Int? {
        var (low, high) = (0, seconds.count)  // the answer is low − 1 once they meet
        while low < high {
            let middle = (low + high) / 2
            if seconds[middle] <= time + slack { low = middle + 1 } else { high = middle }
        }
        return low == 0 ? nil : low - 1
    }

    /// The frame of a decoded timestamp; nil for a frame the demuxer did not list.
    package func frame(timestamp: Int64) -> Int? {
        var (low, high) = (0, timestamps.count)
        while low < high {
            let middle = (low + high) / 2
            if timestamps[middle] < timestamp { low = middle + 1 } else { high = middle }
        }
        return low < timestamps.count && timestamps[low] == timestamp ? low : nil
    }

    /// The last keyframe at or before frame `index`, going `earlier` keyframes further back.
    package func keyframe(before index: Int, earlier: Int = 0) -> Int {
        var position = keyframes.count - 1
        while position > 0, keyframes[position] > index { position -= 1 }
        return keyframes[max(0, position - earlier)]
    }

    /// Seconds for messages: rounded to the millisecond.
    package static func shown(_ seconds: Double) -> String {
        String((seconds * 1000).rounded() / 1000)
    }
}
