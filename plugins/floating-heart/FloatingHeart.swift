import EffectKit

/// The live-stream "like" heart of the first seed: a heart that blooms with a UIView spring,
/// travels along a random cubic Bezier and fades out (EffectKit article FloatingHeartMotion).
struct FloatingHeart: TracingEffect {
    static let descriptor = EffectDescriptor(
        id: "floating-heart",
        identifier: "org.renderfarm.floating-heart",
        version: "1.0.0",
        summary: "Hearts that bloom, float up along a random Bezier path and fade (iOS live-stream likes)",
        threadSafety: .full,
        keysCoverParameters: true,
        parameters: [
            ParameterSpec(
                "emitter", .point, default: [315, 620], range: -100_000...100_000,
                doc: "where each heart starts: its bottom centre, in points"),
            ParameterSpec("size", .number, default: 36, range: 4...512, doc: "heart view width and height in points"),
            ParameterSpec(
                "rate", .number, default: 4, range: 0...120,
                doc: "hearts per second from the layer's start (ignored when times is set)"),
            ParameterSpec(
                "times", .numberList, default: nil, range: 0...86_400,
                doc: "explicit spawn times in layer seconds, instead of rate"),
            ParameterSpec(
                "events", .events([EventField("color", .color), EventField("size", .number)]), default: nil,
                range: 0...86_400,
                doc: "one heart per event at its time (layer seconds), with its own color and size; instead of "
                    + "rate and times"),
            ParameterSpec(
                "lifetime", .number, default: 6, range: 0.05...600,
                doc: "liveAnimationDuration: seconds until a heart is removed"),
            ParameterSpec(
                "spring", .json, default: ["duration": 0.5, "damping": 0.6, "velocity": 0.8],
                doc: "bloom spring {duration, damping, velocity} (UIView spring, Framer converter)"),
            ParameterSpec("peakAlpha", .number, default: 0.9, range: 0...1, doc: "opacity the bloom animates to"),
            ParameterSpec(
                "colors", .json, default: "random",
                doc: "\"random\" (arc4random RGB per heart) or a palette [\"#RRGGBB\", ...]"),
            ParameterSpec("stroke", .color, default: "#FFFFFF", doc: "outline colour (1 pt, round caps and joins)"),
            ParameterSpec(
                "pathSampling", .choice(PathSampling.allCases.map(\.rawValue)), default: "bezier",
                doc: "motion inside the path: bezier = B(u), paced = constant speed (arc length)"),
            ParameterSpec(
                "fade", .choice(Fade.allCases.map(\.rawValue)), default: "replace",
                doc: "replace: alpha = peak·(1 − easeInEaseOut(t/lifetime)); additive: adds the spring fade-in"),
        ]
    )

    /// How the fade-out combines with the bloom's fade-in (EffectKit article FloatingHeartMotion, "Timeline").
    enum Fade: String, CaseIterable, Sendable {
        case replace, additive
    }

    /// Hearts per layer beyond which `create` refuses the layer: a three-hour stream at 90 likes/s.
    /// Hearts cost nothing until they are on screen (see ``HeartSchedule``); `times` and `events`
    /// keep one entry per heart.
    static let maximumHearts = 1_000_000
    /// The seed's `[UIView animateWithDuration:liveAnimationDuration …]` uses the default curve.
    static let fadeCurve = TimingFunction.easeInEaseOut

    let size: Double
    let lifetime: Double
    let spring: SpringCurve
    let peakAlpha: Double
    let stroke: Color
    let fade: Fade
    let sampling: PathSampling
    let schedule: HeartSchedule
    let shape: HeartShape
    /// What a heart's plan is drawn from besides its own spawn (``plan(_:)``).
    let emitter: Point
    let canvasHeight: Double
    let palette: [Color]?
    let seeds: EffectContext
    /// The parameters that shape every drawn heart, hashed once for ``frameKey(at:)``.
    let parametersKey: FrameKey

    init(parameters: EffectParameters, context: EffectContext) throws(EffectError) {
        // Every value is read even after a bad one, so `create` reports all problems at once.
        var problems = EffectProblems()
        let size = problems.check { () throws(EffectError) in try parameters.number("size") }
        let lifetime = problems.check { () throws(EffectError) in try parameters.number("lifetime") }
        let peakAlpha = problems.check { () throws(EffectError) in try parameters.number("peakAlpha") }
        let stroke = problems.check { () throws(EffectError) in try parameters.color("stroke") }
        let fade: Fade? = problems.check { () throws(EffectError) in try parameters.choice("fade") }
        let sampling: PathSampling? = problems.check { () throws(EffectError) in try parameters.choice("pathSampling") }
        let spring = problems.check { () throws(EffectError) in try Self.spring(parameters["spring"]) }
        let palette = problems.check { () throws(EffectError) in try Self.palette(parameters["colors"]) }
        let spawns = problems.check { () throws(EffectError) in
            // Without a valid size the spawns are still checked; the job fails on the size anyway.
            try Self.schedule(parameters, until: context.layerDuration)
        }
        let emitter = problems.check { () throws(EffectError) in try parameters.point("emitter") }
        try problems.throwIfAny()
        guard let size, let lifetime, let peakAlpha, let stroke, let fade, let sampling, let spring, let palette,
            let schedule = spawns, let emitter
        else { throw EffectError("parameters could not be read") }
        self.size = size
        self.lifetime = lifetime
        self.peakAlpha = peakAlpha
        self.stroke = stroke
        self.fade = fade
        self.sampling = sampling
        self.spring = spring
        shape = HeartShape(size: size)
        self.schedule = schedule
        self.emitter = emitter
        canvasHeight = context.height
        self.palette = palette
        seeds = context
        var key = FrameKey.Hasher()
        key.combine(Self.descriptor.version)
        for value in [
            size, lifetime, peakAlpha, spring.duration, spring.dampingRatio, spring.initialVelocity, context.height,
        ] {
            key.combine(value)
        }
        key.combine(emitter)
        key.combine(stroke)
        key.combine(fade.rawValue)
        key.combine(sampling.rawValue)
        key.combine(palette?.count ?? -1)
        for color in palette ?? [] { key.combine(color) }
        parametersKey = key.finalize()
    }

    /// Each heart's `spawn` and the end of its fade-out, when it is removed (`faded`): a job's sound can play at
    /// them (`"at": {"layer": …, "moment": "spawn"}`). None for a layer of more hearts than the host takes
    /// moments of (``warnings`` says so).
    var moments: [EffectMoment] {
        guard schedule.count * 2 <= EffectMoment.limit else { return [] }
        return (0..<schedule.count).flatMap { index in
            let spawn = schedule.spawn(index).time
            // A fade that would end more than a day into the layer is past any job's end: not a moment to report.
            return [
                EffectMoment(item: index, name: "spawn", time: spawn),
                EffectMoment(item: index, name: "faded", time: spawn + lifetime),
            ].filter { EffectMoment.times.contains($0.time) }
        }
    }

    var warnings: [EffectError] {
        guard schedule.count * 2 > EffectMoment.limit else { return [] }
        return [
            EffectError(
                "\(schedule.count) hearts: too many to report their moments (at most \(EffectMoment.limit / 2)); "
                    + "a sound cannot play at them")
        ]
    }

    func render(in context: DrawingContext, at frame: FrameTime) throws(EffectError) {
        for index in liveHearts(at: frame.local) {
            let heart = plan(index)
            let state = state(of: heart, at: frame.local)
            guard state.alpha > 0, state.scale > 0 else { continue }
            draw(heart, state, in: context)
        }
    }

    /// A hash of the parameters that shape drawing and, for each heart drawn, its plan's inputs (seed,
    /// spawn, size, event colour) and its age: the plan and state follow from these alone.
    func frameKey(at frame: FrameTime) -> FrameKey? {
        var key = FrameKey.Hasher()
        var drawn = false
        for index in liveHearts(at: frame.local) {
            let spawn = schedule.spawn(index)
            let age = frame.local - spawn.time
            let look = appearance(atAge: age)
            guard look.alpha > 0, look.scale > 0 else { continue }
            if !drawn { key.combine(parametersKey) }
            drawn = true
            key.combine(seeds.itemSeed(index))
            key.combine(spawn.time)
            key.combine(spawn.size ?? size)
            key.combine(spawn.color)
            key.combine(age)
        }
        return drawn ? key.finalize() : .nothingDrawn
    }

    func trace(at frame: FrameTime) -> [TraceItem]? {
        liveHearts(at: frame.local).map { index in
            let heart = plan(index)
            let state = state(of: heart, at: frame.local)
            var plan = JSONObject()
            plan["spawn"] = .number(heart.spawn)
            plan["size"] = .number(heart.size)
            plan["path"] = .array([
                heart.travel.curve.p0.json, heart.travel.curve.p1.json, heart.travel.curve.p2.json,
                heart.travel.curve.p3.json,
            ])
            plan["duration"] = .number(heart.travelDuration)
            plan["lifetime"] = .number(lifetime)
            plan["color"] = .string(String(heart.fill.hex.prefix(7)))
            return TraceItem(
                id: heart.id, position: state.position, scale: state.scale, alpha: state.alpha,
                visible: state.alpha > 0 && state.scale > 0, plan: plan)
        }
    }

    // MARK: Timeline

    struct HeartState {
        var position: Point
        var scale: Double
        var alpha: Double
    }

    /// The numbers of the hearts added at or before `time` and not yet removed (`removeFromSuperview`
    /// at lifetime).
    private func liveHearts(at time: Double) -> Range<Int> {
        schedule.added(after: time - lifetime, through: time)
    }

    /// Heart `index`'s plan, drawn from its own seed whenever it is needed: a plan costs a few random
    /// draws, so nothing is kept between frames and memory does not grow with the layer's hearts.
    func plan(_ index: Int) -> HeartPlan {
        let spawn = schedule.spawn(index)
        var random = SeededRandom(seed: seeds.itemSeed(index))
        return HeartPlan(
            id: index, spawn: spawn.time, size: spawn.size ?? size, emitter: emitter, canvasHeight: canvasHeight,
            lifetime: lifetime, palette: palette, color: spawn.color, sampling: sampling, random: &random)
    }

    func state(of heart: HeartPlan, at time: Double) -> HeartState {
        let age = time - heart.spawn
        let look = appearance(atAge: age)
        // CAKeyframeAnimation along the path, linear timing: u = age / duration.
        let progress = min(max(age / heart.travelDuration, 0), 1)
        let position = heart.travel.position(at: progress)
        return HeartState(position: position, scale: look.scale, alpha: look.alpha)
    }

    /// A heart's bloom (its scale) and opacity at an age: the same for every heart.
    private func appearance(atAge age: Double) -> (scale: Double, alpha: Double) {
        let bloom = spring.value(at: age)
        let fadeOut = Self.fadeCurve(min(max(age / lifetime, 0), 1))
        let alpha: Double =
            switch fade {
            case .replace: peakAlpha * (1 - fadeOut)
            case .additive: min(max(peakAlpha * (bloom - fadeOut), 0), 1)
            }
        return (bloom, alpha)
    }

    private func draw(_ heart: HeartPlan, _ state: HeartState, in context: DrawingContext) {
        context.withSavedState {
            // Anchor (0.5, 1): the layer's bottom centre sits at `position`; scale about it.
            context.translate(state.position.x, state.position.y)
            context.scale(state.scale, state.scale)
            let size = heart.size
            context.translate(-size / 2, -size)
            // Clip to the view's bounds (plus the stroke) so the opacity group stays small.
            context.rectangle(x: -1, y: -1, width: size + 2, height: size + 2)
            context.clip()
            context.pushGroup()
            (size == shape.size ? shape : HeartShape(size: size)).addPath(to: context)
            context.setSource(heart.fill)
            context.fillPreserve()
            context.setSource(stroke)
            context.setLineWidth(1)
            context.setLineCap(.round)
            context.setLineJoin(.round)
            context.stroke()
            // Layer opacity applies to fill and stroke together, as Core Animation composites it.
            context.popGroup(alpha: state.alpha)
        }
    }

    // MARK: Parameters

    private static func spring(_ value: JSONValue?) throws(EffectError) -> SpringCurve {
        var problems = EffectProblems()
        let keys = ["duration", "damping", "velocity"]
        guard let object = NestedObject(value, parameter: "spring", keys: keys, problems: &problems) else {
            try problems.throwIfAny()
            throw EffectError(parameter: "spring", "expected an object")
        }
        let duration = problems.check { () throws(EffectError) in try object.number("duration", in: 0.01...10) }
        let damping = problems.check { () throws(EffectError) in try object.number("damping", in: 0.01...1) }
        let velocity = problems.check { () throws(EffectError) in try object.number("velocity", in: -100...100) }
        try problems.throwIfAny()
        // Absent keys keep the UIView defaults of the seed.
        return SpringCurve(
            duration: duration.flatMap { $0 } ?? 0.5, damping: damping.flatMap { $0 } ?? 0.6,
            velocity: velocity.flatMap { $0 } ?? 0.8)
    }

    private static func palette(_ value: JSONValue?) throws(EffectError) -> [Color]? {
        if value?.stringValue == "random" { return nil }
        guard let list = value?.arrayValue, !list.isEmpty, list.count <= 256 else {
            throw EffectError(
                parameter: "colors",
                "expected \"random\" or a list of 1 to 256 colours" + EffectParameters.got(value))
        }
        var problems = EffectProblems()
        let colors = list.enumerated().map { index, element in
            problems.check { () throws(EffectError) in
                try EffectParameters.color(element, parameter: "colors[\(index)]")
            }
        }
        try problems.throwIfAny()
        return colors.compactMap { $0 }
    }

    private static func schedule(_ parameters: EffectParameters, until end: Double) throws(EffectError)
        -> HeartSchedule
    {
        if let events = parameters["events"]?.arrayValue {
            guard !parameters.contains("times") else {
                throw EffectError(parameter: "events", "give events or times, not both")
            }
            guard events.count <= maximumHearts else {
                throw EffectError(
                    parameter: "events", "\(events.count) events; at most \(maximumHearts) hearts per layer")
            }
            // The host has checked and sorted them (RF_PARAM_EVENTS).
            var spawns: [HeartSchedule.Spawn] = []
            spawns.reserveCapacity(events.count)
            for (index, event) in events.enumerated() {
                let object = event.objectValue ?? [:]
                guard let time = object["time"]?.doubleValue else {
                    throw EffectError(parameter: "events[\(index)].time", "missing")
                }
                let color = try object["color"].map { value throws(EffectError) in
                    try EffectParameters.color(value, parameter: "events[\(index)].color")
                }
                let own = object["size"]?.doubleValue
                if let own, !(own >= 4 && own <= 512) {
                    throw EffectError(parameter: "events[\(index)].size", "expected a number in 4…512")
                }
                spawns.append(HeartSchedule.Spawn(time: time, size: own, color: color))
            }
            return .listed(spawns)
        }
        if parameters.contains("times") {
            let times = try parameters.numbers("times")
            guard times.count <= maximumHearts else {
                throw EffectError(
                    parameter: "times", "\(times.count) times; at most \(maximumHearts) hearts per layer")
            }
            return .listed(times.sorted().map { HeartSchedule.Spawn(time: $0) })
        }
        let rate = try parameters.number("rate")
        let schedule = HeartSchedule.rate(rate, until: end)
        guard schedule.count <= maximumHearts else {
            throw EffectError(
                parameter: "rate", "\(schedule.count) hearts over \(end) s; at most \(maximumHearts) per layer")
        }
        return schedule
    }
}

extension SeededRandom {
    /// `arc4random_uniform(bound)` where the seed passes a CGFloat: truncated to an integer bound.
    mutating func arc4randomUniform(_ bound: Double) -> Double {
        Double(uniform(UInt32(max(0, min(bound, Double(UInt32.max))))))
    }
}
