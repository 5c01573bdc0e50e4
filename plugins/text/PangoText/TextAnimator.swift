import EffectKit
import Foundation

/// One text animator (`animators[i]`), modelled on After Effects' animators: properties applied to the
/// characters, words or lines a range selector picks, each by how much it picks them (EffectKit article
/// TextEffect, "Animators").
struct TextAnimator: Sendable {
    enum Unit: String, CaseIterable, Sendable {
        case character, word, line
    }

    /// How the amount picked varies across the range (a unit's centre at `u` of the range, 0…1).
    enum Shape: String, CaseIterable, Sendable {
        case square, rampUp, rampDown, triangle, smooth
    }

    /// What the animator does to a unit it picks fully; a partial pick goes that part of the way.
    struct Properties: Sendable {
        var opacity: Double?
        var position: Point?
        var scale: Double?
        /// Degrees, clockwise.
        var rotation: Double?
        /// Points added after each character.
        var tracking: Double?
        var fill: Color?
        var stroke: Color?
    }

    /// A value that moves from `from` to `to` over `duration` seconds after `delay`, with a timing function (or
    /// stays at `from`).
    struct Animated: Sendable {
        var from: Double
        var to: Double
        var delay = 0.0
        var duration = 0.0
        var timing = TimingFunction.linear

        func value(at time: Double) -> Double {
            guard duration > 0 else { return time >= delay ? to : from }
            let t = min(max((time - delay) / duration, 0), 1)
            return from + (to - from) * timing(t)
        }
    }

    /// The range selector: which units, in percent of them all, with an animated offset; or, for `countPop`,
    /// the characters of `{{count}}` just after it changes.
    enum Selector: Sendable {
        case range(start: Double, end: Double, offset: Animated, shape: Shape)
        case countChange(duration: Double)
    }

    var unit: Unit
    var selector: Selector
    var properties: Properties

    /// How much unit `index` of `count` is picked at `time` (seconds since the text appeared).
    func amount(_ index: Int, of count: Int, at time: Double) -> Double {
        guard case .range(let start, let end, let offset, let shape) = selector, count > 0 else { return 0 }
        let shift = offset.value(at: time)
        let (low, high) = (start + shift, end + shift)
        guard high > low else { return 0 }
        let (left, right) = (Double(index) / Double(count) * 100, Double(index + 1) / Double(count) * 100)
        switch shape {
        case .square:
            // The part of the unit's slice the range covers.
            return max(0, min(right, high) - max(left, low)) / (right - left)
        case .rampUp, .rampDown, .triangle, .smooth:
            let u = ((left + right) / 2 - low) / (high - low)
            switch shape {
            case .rampUp: return min(max(u, 0), 1)
            case .rampDown: return 1 - min(max(u, 0), 1)
            case .triangle: return (0...1).contains(u) ? 1 - abs(2 * u - 1) : 0
            default: return (0...1).contains(u) ? (1 - cos(2 * Double.pi * u)) / 2 : 0
            }
        }
    }
}

// MARK: - Reading animators

extension TextAnimator {
    static let keys = [
        "preset", "by", "shape", "start", "end", "offset", "delay", "duration", "timing", "opacity", "position",
        "scale",
        "rotation", "tracking", "fill", "stroke",
    ]
    static let presets = ["typewriter", "wordRise", "countPop"]

    /// `animators`: a list of animator objects; a `preset` gives defaults the object's own keys override.
    static func read(_ value: JSONValue?, fontSize: Double) throws(EffectError) -> [TextAnimator] {
        guard let value else { return [] }
        guard let list = value.arrayValue, list.count <= 16 else {
            throw EffectError(
                parameter: "animators", "expected a list of at most 16 animator objects" + EffectParameters.got(value))
        }
        var problems = EffectProblems()
        let animators = list.enumerated().compactMap { index, item in
            problems.check { () throws(EffectError) in
                try read(item, parameter: "animators[\(index)]", fontSize: fontSize)
            }
        }
        try problems.throwIfAny()
        return animators
    }

    private static func read(_ value: JSONValue, parameter: String, fontSize: Double) throws(EffectError)
        -> TextAnimator
    {
        let object = try NestedObject(value, parameter: parameter, keys: keys)
        let preset = try object.string("preset")
        if let preset, !presets.contains(preset) {
            throw EffectError(
                parameter: parameter + ".preset",
                "unknown preset \"\(preset)\"" + Suggestion.hint(for: preset, in: presets) + "; one of "
                    + presets.joined(separator: ", "))
        }
        let duration = try object.number("duration", in: 0...3600)
        let delay = try object.number("delay", in: 0...86_400) ?? 0
        let timing = try object.string("timing").map { (name) throws(EffectError) -> TimingFunction in
            guard let function = TimingFunction(name: name) ?? TimingFunction.preset(named: name) else {
                let names = TimingFunction.names + TimingFunction.presets.map(\.key)
                throw EffectError(
                    parameter: parameter + ".timing",
                    "unknown timing function \"\(name)\"" + Suggestion.hint(for: name, in: names))
            }
            return function
        }
        var animator: TextAnimator
        switch preset {
        case "typewriter":
            // Each character appears in turn: the range's start sweeps from the first to past the last.
            animator = TextAnimator(
                unit: .character,
                selector: .range(
                    start: 0, end: 100, offset: Animated(from: 0, to: 100, delay: delay, duration: duration ?? 1),
                    shape: .square),
                properties: Properties(opacity: 0))
        case "wordRise":
            // Each word rises into place and fades in, one after another, a ramp 40 % of the words wide.
            animator = TextAnimator(
                unit: .word,
                selector: .range(
                    start: 0, end: 40,
                    offset: Animated(from: -40, to: 100, delay: delay, duration: duration ?? 1, timing: .easeOut),
                    shape: .rampUp),
                properties: Properties(opacity: 0, position: Point(0, fontSize * 0.6)))
        case "countPop":
            animator = TextAnimator(
                unit: .character, selector: .countChange(duration: duration ?? 0.25), properties: Properties(scale: 1.5)
            )
        default:
            animator = TextAnimator(
                unit: .character,
                selector: .range(start: 0, end: 100, offset: Animated(from: 0, to: 0), shape: .square),
                properties: Properties())
        }
        if let unit: Unit = try object.choice("by") { animator.unit = unit }
        if case .range(var start, var end, var offset, var shape) = animator.selector {
            start = try object.number("start", in: -1000...1000) ?? start
            end = try object.number("end", in: -1000...1000) ?? end
            shape = try object.choice("shape") ?? shape
            if let value = object["offset"] {
                offset = try Self.offset(value, parameter: parameter + ".offset")
                offset.delay = delay
                offset.duration = duration ?? 0
            } else if preset == nil {
                offset.delay = delay
            }
            if preset != nil, let duration { offset.duration = duration }
            if let timing { offset.timing = timing }
            animator.selector = .range(start: start, end: end, offset: offset, shape: shape)
        } else if object["start"] != nil || object["end"] != nil || object["offset"] != nil || object["shape"] != nil {
            throw EffectError(parameter: parameter, "countPop picks the characters of {{count}}: it has no range")
        }
        var properties = animator.properties
        properties.opacity = try object.number("opacity", in: 0...1) ?? properties.opacity
        if let value = object["position"] {
            properties.position = try EffectParameters.point(value, parameter: parameter + ".position")
        }
        properties.scale = try object.number("scale", in: -100...100) ?? properties.scale
        properties.rotation = try object.number("rotation", in: -36_000...36_000) ?? properties.rotation
        properties.tracking = try object.number("tracking", in: -1000...1000) ?? properties.tracking
        if let value = object["fill"] {
            properties.fill = try EffectParameters.color(value, parameter: parameter + ".fill")
        }
        if let value = object["stroke"] {
            properties.stroke = try EffectParameters.color(value, parameter: parameter + ".stroke")
        }
        animator.properties = properties
        return animator
    }

    /// `offset`: a number (percent), or `[from, to]` moved over the animator's `duration` after its `delay`.
    private static func offset(_ value: JSONValue, parameter: String) throws(EffectError) -> Animated {
        if let number = value.doubleValue, number.isFinite, abs(number) <= 1000 {
            return Animated(from: number, to: number)
        }
        if let pair = value.arrayValue?.compactMap(\.doubleValue), pair.count == 2, pair.allSatisfy({ abs($0) <= 1000 })
        {
            return Animated(from: pair[0], to: pair[1])
        }
        throw EffectError(
            parameter: parameter, "expected a percentage or [from, to] within ±1000" + EffectParameters.got(value))
    }
}
