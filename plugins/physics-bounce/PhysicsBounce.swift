import EffectKit

/// UIKit Dynamics in the seed's configuration: items under gravity that bounce on boundary segments and on
/// each other (EffectKit articles PhysicsBounceMotion, UIKitDynamics), simulated with Chipmunk2D in `prepare` from
/// the layer's start, or the latest checkpoint in the job's cache, up to the last frame a run renders, keeping
/// states only for the frames it renders (EffectKit article StreamLengthEffects).
struct PhysicsBounce: TracingEffect {
    static let descriptor = EffectDescriptor(
        id: "physics-bounce",
        identifier: "org.renderfarm.physics-bounce",
        version: "1.0.0",
        summary: "Items fall under gravity and bounce on boundaries and each other (UIKit Dynamics, Chipmunk2D)",
        threadSafety: .full,
        // ItemLook's key covers its image file: an edited image redraws only the frames it is drawn in.
        keysCoverInputFiles: true,
        keysCoverParameters: true,
        parameters: [
            ParameterSpec(
                "items", .json, default: nil,
                doc: "list of {at: [x, y] centre, size, velocity: [vx, vy] pt/s, shape, image, color}"),
            ParameterSpec(
                "spawn", .json, default: nil,
                doc: "instead of items: {count, area: rect of random centres, interval: s between items}"),
            ParameterSpec(
                "events", .events(BounceSetup.eventFields), default: nil, range: 0...86_400,
                doc: "instead of items: one item per event at its time (layer seconds); at defaults to a random "
                    + "centre along the canvas top"),
            ParameterSpec(
                "size", .size, default: 40, range: 1...2000,
                doc: "item size when an item does not give one: a number or [width, height]"),
            ParameterSpec(
                "shape", .choice(ItemShape.names), default: "box",
                doc: "item look when an item does not give one; coin and circle are discs, the rest boxes"),
            ParameterSpec(
                "image", .string, default: nil,
                doc: "PNG drawn for items without their own, relative to the job file's folder"),
            ParameterSpec("color", .color, default: nil, doc: "main colour of the shapes (default: the shape's own)"),
            ParameterSpec(
                "gravity", .json, default: ["direction": [0, 1], "magnitude": 1],
                doc: "{direction: [x, y], magnitude}: 1.0 = 1000 pt/s² (UIGravityBehavior)"),
            ParameterSpec(
                "barrier", .json, default: nil,
                doc: "one boundary {from, to, elasticity: 0, friction: 0.5}; default: the canvas bottom"),
            ParameterSpec("barriers", .json, default: nil, doc: "a list of boundaries like barrier, instead of it"),
            PhysicsBounds.parameter,
            ParameterSpec(
                "elasticity", .number, default: 0.6, range: 0...1,
                doc: "item restitution; a contact uses max(item, barrier)"),
            ParameterSpec(
                "friction", .number, default: 0.5, range: 0...100,
                doc: "item friction; a contact uses sqrt(item × barrier)"),
            ParameterSpec(
                "density", .number, default: 1, range: 0.000_001...1_000_000,
                doc: "mass per area: a 100 × 100 pt item of density 1 has mass 1"),
            ParameterSpec(
                "resistance", .number, default: 0, range: 0...10_000,
                doc: "linear velocity damping per second (UIDynamicItemBehavior.resistance)"),
            ParameterSpec(
                "allowsRotation", .bool, default: false,
                doc: "false: items never turn (infinite moment of inertia), as in the seed"),
            ParameterSpec("itemsCollide", .bool, default: true, doc: "whether items collide with each other"),
            ParameterSpec(
                "restThreshold", .number, default: .number(PhysicsRules.restThreshold), range: 0...1_000_000,
                doc: "approach speed in pt/s below which a contact does not bounce"),
            ParameterSpec(
                "lifetime", .number, default: nil, range: 0.05...86_400,
                doc: "seconds from an item's spawn until it is removed from the world and no longer drawn; "
                    + "default: never, as in the seed"),
            ParameterSpec(
                "impacts", .bool, default: false,
                doc: "report each bounce as an \"impact\" moment a sound can play at; simulates the whole job "
                    + "when the job is planned"),
            ParameterSpec(
                "timestep", .number, default: .number(PhysicsRules.timestep), range: 0.0005...0.05,
                doc: "fixed simulation step in seconds; states are sampled at frame times"),
        ]
    )

    let items: [BounceItem]
    var playback: PhysicsPlayback
    /// The items' image files (``Effect/inputFiles``).
    let inputFiles: [String]
    /// Every bounce in the job, when `impacts` asks for them.
    let impacts: [PhysicsImpact]

    init(parameters: EffectParameters, context: EffectContext) throws(EffectError) {
        let setup = try BounceSetup(parameters: parameters, context: context)
        items = setup.items
        inputFiles = ItemLook.imageFiles(of: setup.items.lazy.map(\.look))
        playback = try PhysicsPlayback(scene: setup.scene, context: context)
        impacts = try parameters.bool("impacts") ? try playback.impacts() : []
    }

    mutating func prepare(frames: ClosedRange<Int>) throws(EffectError) {
        try prepare(frames: frames, cache: nil)
    }

    /// Resumes from the latest checkpoint in `cache` at or before the first frame, saving those it passes.
    mutating func prepare(frames: ClosedRange<Int>, cache: EffectCache?) throws(EffectError) {
        try playback.prepare(frames: frames, cache: cache)
    }

    func render(in context: DrawingContext, at frame: FrameTime) throws(EffectError) {
        for entry in try playback.recording(for: frame.index).present(atSample: frame.index) {
            let item = items[entry.item]
            let state = entry.state
            ItemDrawer.draw(item.look, size: item.size, center: state.position, angle: state.angle, in: context)
        }
    }

    /// A hash of what each item in the world draws: its look, size, position and angle. Items at rest
    /// give the same key frame after frame.
    func frameKey(at frame: FrameTime) -> FrameKey? {
        guard let recording = try? playback.recording(for: frame.index) else { return nil }
        let present = recording.present(atSample: frame.index)
        guard !present.isEmpty else { return .nothingDrawn }
        var key = FrameKey.Hasher()
        key.combine(Self.descriptor.version)
        for entry in present {
            let item = items[entry.item]
            item.look.combine(into: &key)
            key.combine(item.size)
            key.combine(entry.state.position)
            key.combine(entry.state.angle)
        }
        return key.finalize()
    }

    /// When each item enters the world, and with `impacts`, each time it bounces (EffectKit article
    /// PhysicsBounceMotion): a job's sound can play at them.
    var moments: [EffectMoment] {
        let spawns = items.indices.map { EffectMoment(item: $0, name: "spawn", time: items[$0].spawn) }
        let bounces = impacts.prefix(max(0, EffectMoment.limit - spawns.count)).map {
            EffectMoment(item: $0.item, name: "impact", time: $0.time)
        }
        return (spawns + bounces).filter { EffectMoment.times.contains($0.time) }
    }

    /// Items that leave the canvas for good, and impacts past the most moments a layer reports (`validate` and
    /// `render` print them).
    var warnings: [EffectError] {
        var warnings = playback.warning.map { [$0] } ?? []
        if items.count + impacts.count > EffectMoment.limit {
            warnings.append(
                EffectError(
                    parameter: "impacts",
                    "\(items.count + impacts.count) spawns and impacts, more than the \(EffectMoment.limit) moments a "
                        + "layer reports: the impacts after the first \(EffectMoment.limit - items.count) are left out")
            )
        }
        return warnings
    }

    func trace(at frame: FrameTime) -> [TraceItem]? {
        guard let recording = try? playback.recording(for: frame.index) else { return nil }
        return items.enumerated().compactMap { index, item in
            let state = recording.state(ofItem: index, atSample: frame.index)
            // An item that expired or left the canvas for good is no longer simulated, nor traced.
            guard !state.departed else { return nil }
            var fields = JSONObject()
            fields["vx"] = .number(state.velocity.x)
            fields["vy"] = .number(state.velocity.y)
            fields["angle"] = .number(state.angle)
            fields["resting"] = .bool(state.resting)
            var plan = JSONObject()
            plan["spawn"] = .number(item.spawn)
            plan["size"] = .array([.number(item.size.width), .number(item.size.height)])
            plan["start"] = item.start.json
            plan["body"] = .string(item.isDisc ? "circle" : "box")
            return TraceItem(
                id: index, position: state.present ? state.position : item.start, visible: state.present, plan: plan,
                fields: fields)
        }
    }
}
