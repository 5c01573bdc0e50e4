/// Which source frame the layer shows at a local time: the documented rule (`FootageEffect` article).
///
/// At layer time t the layer shows the frame with the largest presentation time ≤ `in + t × speed`; with
/// `loop` the time wraps inside [in, out), without it nothing is drawn from `out` on. Times count from the
/// clip's first frame. Frame n depends on t alone, so every worker, shard and resumed run picks the same.
struct FootageClock: Sendable, Equatable {
    let start: Double
    let end: Double
    let speed: Double
    let loop: Bool

    /// The source frame at layer time `local`, or nil when nothing is drawn.
    func frame(at local: Double, in timeline: FootageTimeline) -> Int? {
        guard local >= 0 || local > -FootageTimeline.tolerance else { return nil }
        let length = end - start
        var elapsed = max(0, local) * speed
        if loop {
            // Wrap with the tolerance, so that t × speed landing a rounding error short of a whole number of
            // plays shows the first frame again, as exact arithmetic would.
            let plays = ((elapsed + FootageTimeline.tolerance) / length).rounded(.down)
            elapsed = max(0, elapsed - plays * length)
        } else if elapsed + FootageTimeline.tolerance >= length {
            return nil
        }
        return timeline.frame(at: start + elapsed)
    }
}
