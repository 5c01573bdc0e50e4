import EffectKit

/// `onLand: "bounce"`: the seed's `addBehaviour` after the drop. Each item enters the physics when it lands, at the
/// landing point with the drop's arrival velocity, its centre raised so it rests on (not in) the target's top edge
/// (EffectKit article ParabolicDropMotion), under the physics-bounce defaults: gravity 1000 pt/s² down, the edge as
/// the only barrier (elasticity 0, friction 0.5), items with elasticity 0.6 (the `elasticity` parameter) and friction
/// 0.5 that collide with each other and do not rotate. An item whose flight runs into an item already in the world enters the physics at that
/// moment instead, with its flight velocity, so it hits the pile rather than landing inside it.
struct DropLanding: Sendable {
    var playback: PhysicsPlayback

    /// `bodies[i]` is the body of `items[i]`; `bounds`: barriers around the canvas (the `bounds` parameter),
    /// none by default as in the seed.
    init(
        items: [DropPlan], bodies: [PhysicsBody], target: Rect, bounds: [PhysicsBarrier], lifetime: Double?,
        elasticity: Double, context: EffectContext
    ) throws(EffectError) {
        guard target.width > 0 else {
            throw EffectError(parameter: "target", "width 0: onLand \"bounce\" needs a top edge to land on")
        }
        let edge = PhysicsBarrier(from: Point(target.minX, target.minY), to: Point(target.maxX, target.minY))
        let physicsItems = zip(items, bodies).map { item, body in
            let lift = body.size.height / 2
            let end = item.travel.curve.end
            let approach = PhysicsApproach(start: item.start) { time in
                (item.position(at: time), item.velocity(at: time))
            }
            return PhysicsItem(
                body: body, position: Point(end.x, end.y - lift), velocity: item.arrivalVelocity,
                spawnTime: item.landing, approach: approach, expiry: lifetime.map { item.start + $0 })
        }
        let scene = PhysicsScene(
            barriers: [edge] + bounds, items: physicsItems, material: PhysicsMaterial(elasticity: elasticity),
            canvas: Rect(x: 0, y: 0, width: context.width, height: context.height))
        playback = try PhysicsPlayback(scene: scene, context: context)
    }

    /// The physics state of item `id` at `frame`: absent while it is not in the world yet, gone once it
    /// expired or left the canvas for good.
    func state(of id: Int, at frame: FrameTime) throws(EffectError) -> PhysicsState {
        try playback.recording(for: frame.index).state(ofItem: id, atSample: frame.index)
    }
}
