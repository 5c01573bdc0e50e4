/// Decides when a simulated item has left the canvas for good, so the simulation can drop it: its
/// bounds lie wholly beyond one side, nothing there can stop it (no barrier reaches past that side),
/// and neither its velocity nor gravity brings it back. An item thrown over the top edge under
/// gravity pointing down comes back, so it stays.
struct CanvasDeparture {
    let canvas: Rect
    let gravity: Point
    /// Whether some barrier reaches past the left, right, top and bottom side.
    private let caught: (left: Bool, right: Bool, top: Bool, bottom: Bool)

    init(canvas: Rect, scene: PhysicsScene) {
        self.canvas = canvas
        gravity = scene.gravity
        let points = scene.barriers.flatMap { [$0.from, $0.to] }
        caught = (
            points.contains { $0.x < canvas.minX }, points.contains { $0.x > canvas.maxX },
            points.contains { $0.y < canvas.minY }, points.contains { $0.y > canvas.maxY }
        )
    }

    /// Whether an item with outline `body` in `state` is gone for good.
    func hasLeft(_ body: PhysicsBody, _ state: PhysicsState) -> Bool {
        guard state.present else { return false }
        let halfWidth = body.extent(along: Point(1, 0), angle: state.angle)
        let halfHeight = body.extent(along: Point(0, 1), angle: state.angle)
        let (position, velocity) = (state.position, state.velocity)
        if position.x + halfWidth < canvas.minX, !caught.left, velocity.x <= 0, gravity.x <= 0 { return true }
        if position.x - halfWidth > canvas.maxX, !caught.right, velocity.x >= 0, gravity.x >= 0 { return true }
        if position.y + halfHeight < canvas.minY, !caught.top, velocity.y <= 0, gravity.y <= 0 { return true }
        if position.y - halfHeight > canvas.maxY, !caught.bottom, velocity.y >= 0, gravity.y >= 0 { return true }
        return false
    }
}
