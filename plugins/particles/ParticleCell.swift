import EffectKit

/// One `CAEmitterCell`: how often it emits, and what each particle it emits starts with and how that
/// changes with age (EffectKit article ParticlesEffect). Values are the cell's own times the layer's
/// multipliers (`birthRate`, `lifetime`, `velocity`, `scale`, `spin`), applied once here.
struct ParticleCell: Sendable {
    /// The cell's `name`, shown by `renderfarm trace`.
    var name: String?
    /// Particles per second.
    var birthRate: Double
    var lifetime: Double
    var lifetimeRange: Double
    /// The emission direction: the angle in the canvas plane from +x towards +y (down), and out of it.
    var longitude: Double
    var latitude: Double
    /// The full angle of the emission cone around that direction.
    var emissionRange: Double
    var velocity: Double
    var velocityRange: Double
    var acceleration: (x: Double, y: Double, z: Double)
    var scale: Double
    var scaleRange: Double
    var scaleSpeed: Double
    /// Radians per second, clockwise on screen.
    var spin: Double
    var spinRange: Double
    /// Red, green, blue and alpha: the start colour, how far each may vary, and its change per second.
    var color: SIMD4<Double>
    var colorRange: SIMD4<Double>
    var colorSpeed: SIMD4<Double>
    var contents: ParticleContents
    /// Emission runs from `beginTime` until `end` (layer seconds, exclusive).
    var beginTime: Double
    var end: Double

    /// The longest a particle of the cell lives.
    var longestLife: Double { max(0, lifetime + lifetimeRange) }

    /// How many particles the cell emits in all (`Int.max` when it never stops), bounded so that birth
    /// times `beginTime + k / birthRate` stay exact enough to order.
    var count: Int {
        guard birthRate > 0, end > beginTime, longestLife > 0 else { return 0 }
        let span = (end - beginTime) * birthRate
        guard span < Double(ParticleLimits.maxBirths) else { return ParticleLimits.maxBirths }
        var count = Int(span.rounded(.up))
        while count > 0, birthTime(count - 1) >= end { count -= 1 }
        return count
    }

    /// When particle `k` is born.
    func birthTime(_ k: Int) -> Double { beginTime + Double(k) / birthRate }

    /// The particles alive at layer time `time`: born at or before it, and not older than the longest life
    /// (each one's own lifetime is checked when it is drawn).
    func candidates(at time: Double) -> Range<Int> {
        let total = count
        guard total > 0, time >= beginTime else { return 0..<0 }
        var last = min(total - 1, Int(((time - beginTime) * birthRate).rounded(.down)))
        while last >= 0, birthTime(last) > time { last -= 1 }
        while last + 1 < total, birthTime(last + 1) <= time { last += 1 }
        var first = max(0, Int(((time - longestLife - beginTime) * birthRate).rounded(.down)))
        while first <= last, birthTime(first) + longestLife <= time { first += 1 }
        return first <= last ? first..<(last + 1) : 0..<0
    }
}

/// Bounds that keep a layer's work per frame and its numbers sane.
enum ParticleLimits {
    /// At most this many particles alive at once, over all cells of a layer (by `rate × longest life`).
    static let maxAlive = 1_000_000.0
    /// At most this many births per cell (a day at 10,000 a second).
    static let maxBirths = 1 << 40
    static let maxCells = 64
}

extension ParticleCell {
    static let keys = [
        "name", "enabled", "birthRate", "lifetime", "lifetimeRange", "emissionLongitude", "emissionLatitude",
        "emissionRange", "velocity", "velocityRange", "xAcceleration", "yAcceleration", "zAcceleration", "scale",
        "scaleRange", "scaleSpeed", "spin", "spinRange", "color", "redRange", "greenRange", "blueRange", "alphaRange",
        "redSpeed", "greenSpeed", "blueSpeed", "alphaSpeed", "contents", "image", "size", "beginTime", "duration",
        "emitterCells",
    ]

    /// The layer-wide multipliers of `CAEmitterLayer`.
    struct Multipliers {
        var birthRate = 1.0
        var lifetime = 1.0
        var velocity = 1.0
        var scale = 1.0
        var spin = 1.0
    }

    /// Reads cell `index` of `cells`, recording every problem in `problems`; nil for a disabled cell or one
    /// with problems.
    static func read(
        _ value: JSONValue, index: Int, layer: Multipliers, loader: ItemLookLoader, problems: inout EffectProblems
    ) -> ParticleCell? {
        let name = "cells[\(index)]"
        guard let object = NestedObject(value, parameter: name, keys: keys, problems: &problems) else { return nil }
        let before = problems.errors.count
        if object["emitterCells"] != nil {
            problems.add(
                EffectError(
                    parameter: name + ".emitterCells",
                    "cells that emit cells are not supported; give each its own entry of cells"))
        }
        func number(_ key: String, _ range: ClosedRange<Double>, _ fallback: Double) -> Double {
            let value = problems.check { () throws(EffectError) in try object.number(key, in: range) }
            return (value ?? nil) ?? fallback
        }
        let enabled = problems.check { () throws(EffectError) -> Bool in
            guard let value = object["enabled"] else { return true }
            guard let flag = value.boolValue else {
                throw EffectError(parameter: name + ".enabled", "expected true or false, got \(value.shortText)")
            }
            return flag
        }
        let label = problems.check { () throws(EffectError) in try object.string("name") } ?? nil
        let color =
            problems.check { () throws(EffectError) -> Color in
                guard let value = object["color"] else { return .white }
                return try EffectParameters.color(value, parameter: name + ".color")
            } ?? .white
        let components = ["red", "green", "blue", "alpha"]
        let ranges = components.map { number($0 + "Range", 0...1, 0) }
        let speeds = components.map { number($0 + "Speed", -100...100, 0) }
        let contents = problems.check { () throws(EffectError) in try ParticleContents.read(object, loader: loader) }
        let begin = number("beginTime", 0...86_400, 0)
        let duration = object["duration"].map { _ in number("duration", 0...86_400, 0) }
        let cell = ParticleCell(
            name: label,
            birthRate: number("birthRate", 0...1_000_000, 0) * layer.birthRate,
            lifetime: number("lifetime", 0...86_400, 0) * layer.lifetime,
            lifetimeRange: number("lifetimeRange", 0...86_400, 0) * layer.lifetime,
            longitude: number("emissionLongitude", -100...100, 0), latitude: number("emissionLatitude", -100...100, 0),
            emissionRange: abs(number("emissionRange", -100...100, 0)),
            velocity: number("velocity", -1_000_000...1_000_000, 0) * layer.velocity,
            velocityRange: number("velocityRange", 0...1_000_000, 0) * layer.velocity,
            acceleration: (
                number("xAcceleration", -1_000_000...1_000_000, 0), number("yAcceleration", -1_000_000...1_000_000, 0),
                number("zAcceleration", -1_000_000...1_000_000, 0)
            ),
            scale: number("scale", -1000...1000, 1) * layer.scale,
            scaleRange: number("scaleRange", 0...1000, 0) * layer.scale,
            scaleSpeed: number("scaleSpeed", -1000...1000, 0) * layer.scale,
            spin: number("spin", -10_000...10_000, 0) * layer.spin,
            spinRange: number("spinRange", 0...10_000, 0) * layer.spin,
            color: SIMD4(color.red, color.green, color.blue, color.alpha),
            colorRange: SIMD4(ranges), colorSpeed: SIMD4(speeds),
            contents: contents ?? .shape(.circle, Size(width: 1, height: 1)), beginTime: begin,
            end: duration.map { begin + $0 } ?? .infinity)
        guard problems.errors.count == before, enabled == true else { return nil }
        return cell
    }
}
