import EffectKit
import StrictJSON

/// Which source frame the layer shows at a local time: the documented rule (`FootageEffect` article).
///
/// At layer time t the layer shows the frame with the largest presentation time ≤ `in + t × speed` (a frame
/// stored up to a tick late counting as on time: `FootageTimeline.slack`); with `loop` the time wraps inside
/// [in, out), without it nothing is drawn from `out` on. Times count from the clip's first frame. Frame n
/// depends on t alone, so every worker, shard and resumed run picks the same.
/// The clip's sound follows the same time (`VideoEffect.sounds` declares this rule to the host), so picture and
/// sound stay together.
package struct FootageClock: Sendable, Equatable {
    package let start: Double
    package let end: Double
    package let speed: Double
    package let loop: Bool

    /// The `speed` parameter's range.
    package static let speeds = 0.01...100.0

    /// The clock of a layer's `trim` (`{"in": s, "out": s}`, both optional, inside the clip of `duration`
    /// seconds), `speed` and `loop`.
    package init(trim: JSONValue?, duration: Double, speed: Double, loop: Bool) throws(EffectError) {
        (start, end) = try Self.trim(trim, duration: duration)
        self.speed = speed
        self.loop = loop
    }

    /// The clip time (seconds from its first frame) the layer plays at layer time `local`, or nil when
    /// nothing is drawn (or heard).
    package func sourceTime(at local: Double) -> Double? {
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
        return start + elapsed
    }

    /// The source frame at layer time `local`, or nil when nothing is drawn.
    package func frame(at local: Double, in timeline: FootageTimeline) -> Int? {
        sourceTime(at: local).flatMap { timeline.frame(at: $0) }
    }

    private static func trim(_ value: JSONValue?, duration: Double) throws(EffectError) -> (Double, Double) {
        guard let value else { return (0, duration) }
        guard let object = value.objectValue else {
            throw EffectError(parameter: "trim", "expected {\"in\": seconds, \"out\": seconds}")
        }
        for key in object.keys where key != "in" && key != "out" {
            throw EffectError(parameter: "trim.\(key)", "unknown key; trim has \"in\" and \"out\"")
        }
        func seconds(_ key: String, _ fallback: Double) throws(EffectError) -> Double {
            guard let field = object[key] else { return fallback }
            guard let number = field.doubleValue, number.isFinite, number >= 0 else {
                throw EffectError(parameter: "trim.\(key)", "expected seconds ≥ 0")
            }
            return number
        }
        let start = try seconds("in", 0)
        let end = try seconds("out", duration)
        let length = FootageTimeline.shown(duration)
        guard end <= duration + FootageTimeline.tolerance else {
            throw EffectError(parameter: "trim.out", "\(end) is past the clip's end at \(length) s")
        }
        guard start < end else {
            throw EffectError(parameter: "trim.in", "\(start) must be before out (\(end)); the clip is \(length) s")
        }
        return (start, end)
    }
}
