/// Continuous collision of items against the static barriers, the part Chipmunk lacks.
///
/// Chipmunk finds contacts only once shapes overlap, after it has moved bodies by a whole step, so a fast
/// item ends a step up to |v|·dt inside an edge (5 pt for a 1200 pt/s drop at 1/240 s). Box2D, and so
/// UIKit Dynamics, sweeps dynamic-vs-static pairs (time of impact, <doc:UIKitDynamics>). This does the same for
/// the straight edges of the scene: a move that would cut into a barrier stops where the item just touches
/// it (`PhysicsRules.sweepContactDepth` inside), keeping its velocity, so Chipmunk sees the contact in the
/// same step and applies the bounce from the approach speed.
struct BarrierSweep: Sendable {
    /// One barrier in the form the sweep needs.
    struct Edge: Sendable {
        let start: Point
        /// Unit vector from `start` to the other end.
        let direction: Point
        /// Unit normal (direction turned by 90°); items may be on either side.
        let normal: Point
        let length: Double
    }

    let edges: [Edge]
    /// How far inside the edge a swept item stops.
    let depth: Double

    init(barriers: [PhysicsBarrier], depth: Double = PhysicsRules.sweepContactDepth) {
        edges = barriers.compactMap { barrier in
            let length = barrier.length
            guard length > 0 else { return nil }
            let direction = (barrier.to - barrier.from) / length
            return Edge(
                start: barrier.from, direction: direction, normal: Point(-direction.y, direction.x), length: length)
        }
        self.depth = depth
    }

    /// Where a `body` turned by `angle` that moves from `start` to `end` in one step must stop so it does not
    /// cut into an edge it was clear of at `start`; nil when the whole move is free.
    func limit(_ body: PhysicsBody, angle: Double, from start: Point, to end: Point) -> Point? {
        var fraction = 1.0
        for edge in edges {
            let startOffset = edge.normal.dot(start - edge.start)
            let side: Double = startOffset >= 0 ? 1 : -1
            let normal = edge.normal * side
            let extent = body.extent(along: normal, angle: angle)
            let startGap = side * startOffset - extent
            // Touching or overlapping already: the contact exists and Chipmunk's solver owns it.
            guard startGap >= 0 else { continue }
            let endGap = normal.dot(end - edge.start) - extent
            guard endGap < -depth else { continue }
            let reach = (startGap + depth) / (startGap - endGap)
            // Only an edge the item is over at that moment stops it (the ends are open).
            let centre = start + reach * (end - start)
            let along = edge.direction.dot(centre - edge.start)
            let halfWidth = body.extent(along: edge.direction, angle: angle)
            guard along + halfWidth > 0, along - halfWidth < edge.length else { continue }
            fraction = min(fraction, reach)
        }
        return fraction < 1 ? start + fraction * (end - start) : nil
    }
}
