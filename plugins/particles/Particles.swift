import CCairo
import EffectKit
import Foundation

/// Particles as iOS makes them with `CAEmitterLayer` and `CAEmitterCell`: confetti, sparkles, snow. Every
/// particle's state is a formula of its age and its seeded draws (EffectKit article ParticlesEffect).
struct Particles: TracingEffect {
    static let descriptor = EffectDescriptor(
        id: "particles",
        identifier: "org.renderfarm.particles",
        version: "1.0.0",
        summary:
            "Confetti, sparkles, snow: a particle emitter with the properties of iOS's CAEmitterLayer and CAEmitterCell",
        threadSafety: .full,
        parameters: [
            ParameterSpec(
                "cells", .json, default: defaultCells,
                doc: "the emitter cells (CAEmitterCell): a list of objects with birthRate, lifetime, velocity, "
                    + "emissionLongitude, color, contents, … (EffectKit article ParticlesEffect)"),
            ParameterSpec(
                "emitterPosition", .point, default: nil,
                doc: "the centre of the emitter shape in points; default: the canvas centre"),
            ParameterSpec(
                "emitterSize", .numberList, default: [0, 0], range: 0...EffectParameters.sizeLimit,
                doc: "[width, height] of the emitter shape ([side]: both); a circle's radius is the width"),
            ParameterSpec(
                "emitterShape", .choice(ParticleEmitter.Shape.allCases.map(\.rawValue)), default: "point",
                doc: "where particles are born: a point, a horizontal line, a rectangle or a circle"),
            ParameterSpec(
                "emitterMode", .choice(ParticleEmitter.Mode.allCases.map(\.rawValue)), default: "volume",
                doc: "which part of the shape: its defining points, its outline, or its inside (surface, volume)"),
            ParameterSpec(
                "renderMode", .choice(RenderMode.allCases.map(\.rawValue)), default: "unordered",
                doc: "drawing order: cell by cell (unordered), oldestFirst, oldestLast, backToFront (by depth), "
                    + "or additive (colours add up)"),
            ParameterSpec(
                "birthRate", .number, default: 1, range: 0...1000, doc: "multiplies every cell's birthRate"),
            ParameterSpec("lifetime", .number, default: 1, range: 0...1000, doc: "multiplies every cell's lifetime"),
            ParameterSpec(
                "velocity", .number, default: 1, range: -1000...1000, doc: "multiplies every cell's velocity"),
            ParameterSpec("scale", .number, default: 1, range: -1000...1000, doc: "multiplies every cell's scale"),
            ParameterSpec("spin", .number, default: 1, range: -1000...1000, doc: "multiplies every cell's spin"),
            ParameterSpec(
                "timeOffset", .number, default: 0, range: 0...86_400,
                doc: "seconds the emitter has already run at the layer's start (a snowfall that starts full)"),
        ]
    )

    /// `renderMode`: the order particles are drawn in (`kCAEmitterLayerUnordered`, …).
    enum RenderMode: String, CaseIterable, Sendable {
        case unordered, oldestFirst, oldestLast, backToFront, additive
    }

    static let defaultCells: JSONValue = [
        [
            "name": "sparkle", "contents": "spark", "size": 14, "birthRate": 40, "lifetime": 1.6, "lifetimeRange": 0.4,
            "velocity": 140, "velocityRange": 40, "emissionRange": 6.283185307179586, "yAcceleration": 60,
            "color": "#FFD24D", "greenRange": 0.2, "alphaSpeed": -0.5, "scaleSpeed": -0.3,
        ]
    ]

    let cells: [ParticleCell]
    let emitter: ParticleEmitter
    let renderMode: RenderMode
    let timeOffset: Double
    let context: EffectContext
    let warnings: [EffectError]

    init(parameters: EffectParameters, context: EffectContext) throws(EffectError) {
        var problems = EffectProblems()
        let multipliers = ParticleCell.Multipliers(
            birthRate: problems.check { () throws(EffectError) in try parameters.number("birthRate") } ?? 1,
            lifetime: problems.check { () throws(EffectError) in try parameters.number("lifetime") } ?? 1,
            velocity: problems.check { () throws(EffectError) in try parameters.number("velocity") } ?? 1,
            scale: problems.check { () throws(EffectError) in try parameters.number("scale") } ?? 1,
            spin: problems.check { () throws(EffectError) in try parameters.number("spin") } ?? 1)
        let loader = ItemLookLoader(context: context)
        var cells: [ParticleCell] = []
        var warnings: [EffectError] = []
        if let list = parameters["cells"]?.arrayValue, list.count <= ParticleLimits.maxCells {
            for (index, value) in list.enumerated() {
                guard
                    let cell = ParticleCell.read(
                        value, index: index, layer: multipliers, loader: loader, problems: &problems)
                else { continue }
                if cell.count == 0 {
                    warnings.append(
                        EffectError(
                            parameter: "cells[\(index)]",
                            "emits nothing: its birthRate, lifetime or duration (times the layer's) is 0"))
                }
                cells.append(cell)
            }
        } else {
            problems.add(
                EffectError(
                    parameter: "cells",
                    "expected a list of at most \(ParticleLimits.maxCells) cell objects"
                        + EffectParameters.got(parameters["cells"])))
        }
        let alive = cells.reduce(0) { $0 + $1.birthRate * $1.longestLife }
        if alive > ParticleLimits.maxAlive {
            problems.add(
                EffectError(
                    parameter: "cells",
                    "up to \(Int(alive)) particles alive at once (birthRate × the longest lifetime, over the cells); "
                        + "at most \(Int(ParticleLimits.maxAlive))"))
        }
        let center = Point(context.width / 2, context.height / 2)
        let position = problems.check { () throws(EffectError) in
            parameters.contains("emitterPosition") ? try parameters.point("emitterPosition") : center
        }
        let size = problems.check { () throws(EffectError) -> Size in
            let sides = try parameters.numbers("emitterSize")
            guard (1...2).contains(sides.count) else {
                throw EffectError(parameter: "emitterSize", "expected [width, height], got \(sides.count) numbers")
            }
            return Size(width: sides[0], height: sides[sides.count - 1])
        }
        let shape: ParticleEmitter.Shape? = problems.check { () throws(EffectError) in
            try parameters.choice("emitterShape")
        }
        let mode: ParticleEmitter.Mode? = problems.check { () throws(EffectError) in
            try parameters.choice("emitterMode")
        }
        let renderMode: RenderMode? = problems.check { () throws(EffectError) in try parameters.choice("renderMode") }
        let timeOffset = problems.check { () throws(EffectError) in try parameters.number("timeOffset") }
        try problems.throwIfAny()
        self.cells = cells
        emitter = ParticleEmitter(
            position: position ?? center, size: size ?? Size(width: 0, height: 0), shape: shape ?? .point,
            mode: mode ?? .volume)
        self.renderMode = renderMode ?? .unordered
        self.timeOffset = timeOffset ?? 0
        self.context = context
        self.warnings = warnings
    }

    /// The images of the cells (``Effect/inputFiles``).
    var inputFiles: [String] {
        ItemLook.imageFiles(
            of: cells.compactMap { cell in
                if case .image(let image, _) = cell.contents { image.look } else { nil }
            })
    }

    /// A particle and its age at a frame.
    private typealias Aged = (particle: Particle, age: Double)

    /// The particles alive at `frame` (cell after cell, each cell's in birth order) and their ages, computed as
    /// they are asked for. (The closures' types are spelt out: inferred, this took the type checker 1.7 s.)
    private func living(at frame: FrameTime) -> some Sequence<Aged> {
        let time = frame.local + timeOffset
        let born = cells.indices.lazy.flatMap { (index: Int) -> LazyMapSequence<Range<Int>, Aged> in
            cells[index].candidates(at: time).lazy.map { (k: Int) -> Aged in
                let particle = Particle(cells[index], cellIndex: index, index: k, emitter: emitter, context: context)
                return (particle: particle, age: time - particle.born)
            }
        }
        return born.filter { (aged: Aged) -> Bool in aged.age >= 0 && aged.age < aged.particle.lifetime }
    }

    /// Each particle alive at `frame`, with its state, in the order `renderMode` draws them.
    func alive(at frame: FrameTime) -> [(particle: Particle, state: Particle.State)] {
        var drawn = living(at: frame).map { particle, age in
            (particle: particle, state: particle.state(at: age, of: cells[particle.cell]))
        }
        switch renderMode {
        case .unordered, .additive: break
        case .oldestFirst: drawn.sort { Self.older($0.particle, $1.particle) }
        case .oldestLast: drawn.sort { Self.older($1.particle, $0.particle) }
        case .backToFront:
            drawn.sort {
                ($0.state.z, $0.particle.cell, $0.particle.index) < ($1.state.z, $1.particle.cell, $1.particle.index)
            }
        }
        return drawn
    }

    /// Birth order, cells in order among particles born at the same time.
    private static func older(_ a: Particle, _ b: Particle) -> Bool {
        (a.born, a.cell, a.index) < (b.born, b.cell, b.index)
    }

    func render(in context: DrawingContext, at frame: FrameTime) throws(EffectError) {
        let cr = context.pointer
        cairo_save(cr)
        defer { cairo_restore(cr) }
        if renderMode == .additive { cairo_set_operator(cr, CAIRO_OPERATOR_ADD) }
        for (particle, state) in alive(at: frame) where state.scale != 0 && state.color[3] > 0 {
            let cell = cells[particle.cell]
            cairo_save(cr)
            cairo_translate(cr, state.position.x, state.position.y)
            if state.angle != 0 { cairo_rotate(cr, state.angle) }
            cairo_scale(cr, state.scale, state.scale)
            switch cell.contents {
            case .shape(let shape, let size):
                shape.draw(size, color: state.color, in: context)
            case .image(let image, let size):
                let picture = image.tinted(red: state.color[0], green: state.color[1], blue: state.color[2])
                picture.draw(
                    in: context, x: -size.width / 2, y: -size.height / 2, width: size.width, height: size.height,
                    alpha: state.color[3])
            }
            cairo_restore(cr)
        }
    }

    /// Frames with no particle alive draw nothing; the others move with every frame, so the host keys them by
    /// the layer's whole configuration and the frame.
    func frameKey(at frame: FrameTime) -> FrameKey? {
        var particles = living(at: frame).makeIterator()
        return particles.next() == nil ? .nothingDrawn : nil
    }

    func trace(at frame: FrameTime) -> [TraceItem]? {
        alive(at: frame).map { particle, state in
            let cell = cells[particle.cell]
            var plan = JSONObject()
            plan["cell"] = .number(Double(particle.cell))
            if let name = cell.name { plan["name"] = .string(name) }
            plan["index"] = .number(Double(particle.index))
            plan["born"] = .number(particle.born - timeOffset)
            plan["lifetime"] = .number(particle.lifetime)
            plan["origin"] = particle.origin.json
            plan["velocity"] = .array([
                .number(particle.velocity.x), .number(particle.velocity.y), .number(particle.velocity.z),
            ])
            var fields = JSONObject()
            fields["z"] = .number(state.z)
            fields["vx"] = .number(state.velocity.x)
            fields["vy"] = .number(state.velocity.y)
            fields["vz"] = .number(state.velocity.z)
            fields["angle"] = .number(state.angle)
            for (channel, name) in ["red", "green", "blue"].enumerated() {
                fields[name] = .number(state.color[channel])
            }
            return TraceItem(
                id: particle.index * cells.count + particle.cell, position: state.position, scale: state.scale,
                alpha: state.color[3], visible: state.scale != 0 && state.color[3] > 0, plan: plan, fields: fields)
        }
    }
}
