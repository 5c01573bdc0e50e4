import Motion

/// A value that is either constant or keyframed over the layer's own time (a layer's `opacity`,
/// `transform.position`, `transform.scale` and `transform.rotation`).
package enum Animated<Value: Interpolable>: Sendable, Equatable {
    case constant(Value)
    /// At least one keyframe, sorted by `t`, no two at the same time.
    case keyframes([Keyframe<Value>])

    /// The value at local time `t` (seconds): the first keyframe's before it, the last one's after
    /// it, and between two keyframes the earlier value moved towards the later one as the later
    /// keyframe's `timing` paces it.
    package func value(at t: Double) -> Value {
        switch self {
        case .constant(let value): return value
        case .keyframes(let keys):
            guard let first = keys.first, let last = keys.last else { preconditionFailure("no keyframes") }
            if t <= first.t { return first.value }
            if t >= last.t { return last.value }
            // Few keyframes: a linear scan for the segment that holds t.
            var index = 1
            while keys[index].t <= t { index += 1 }
            let from = keys[index - 1]
            let to = keys[index]
            let progress = to.timing.progress(elapsed: t - from.t, duration: to.t - from.t)
            return Value.interpolate(from.value, to.value, progress)
        }
    }

    /// Whether the value changes with time.
    package var isAnimated: Bool {
        if case .keyframes(let keys) = self { return keys.count > 1 }
        return false
    }
}

/// One keyframe: at layer time `t` the value is `value`; `timing` paces the segment that ends here.
package struct Keyframe<Value: Interpolable>: Sendable, Equatable {
    package var t: Double
    package var value: Value
    package var timing: KeyframeTiming
}

/// How a segment between two keyframes is paced: EffectKit's timing functions (the Core Animation
/// curves) or a UIKit spring fitted to the segment's duration, as the effects use them.
package enum KeyframeTiming: Sendable, Equatable, Encodable {
    case curve(TimingFunction)
    case spring(damping: Double, velocity: Double)

    /// The names a keyframe's `timing` takes: Core Animation's, then the presets (`TimingFunction.presets`).
    package static let names = TimingFunction.names + TimingFunction.presets.map(\.key)

    /// The curve named `name` (one of `names`), or nil.
    package static func named(_ name: String) -> KeyframeTiming? {
        (TimingFunction(name: name) ?? TimingFunction.preset(named: name)).map { .curve($0) }
    }

    /// Progress (0 at the start, 1 at the end; a spring may overshoot) after `elapsed` of `duration` seconds.
    package func progress(elapsed: Double, duration: Double) -> Double {
        switch self {
        case .curve(let function): function(elapsed / duration)
        case .spring(let damping, let velocity):
            SpringCurve(duration: duration, damping: damping, velocity: velocity).value(at: elapsed)
        }
    }
}

extension Animated: Encodable where Value: Encodable {}
extension Keyframe: Encodable where Value: Encodable {}

/// A value keyframes can move between.
package protocol Interpolable: Sendable, Equatable {
    /// `from` moved `progress` of the way to `to` (0: `from`, 1: `to`, beyond: extrapolated).
    static func interpolate(_ from: Self, _ to: Self, _ progress: Double) -> Self
}

extension Double: Interpolable {
    package static func interpolate(_ from: Double, _ to: Double, _ progress: Double) -> Double {
        from + (to - from) * progress
    }
}

extension Point: Interpolable {
    package static func interpolate(_ from: Point, _ to: Point, _ progress: Double) -> Point {
        Point(from.x + (to.x - from.x) * progress, from.y + (to.y - from.y) * progress)
    }
}
