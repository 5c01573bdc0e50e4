import CairoKit
import Foundation
import Motion
import RenderFarmJobs
import StrictJSON

/// The `--debug` drawing over a thumbnail, from the plugins' trace data: each visible item's
/// path (cyan: its keyframe curve, or for items under physics the trail of the last seconds), its
/// Bezier control points (magenta), its bounds (yellow) and its velocity (orange, the distance
/// covered in the next quarter second).
enum MotionOverlay {
    /// Seconds of motion the velocity arrow shows.
    static let arrowSeconds = 0.25
    /// Seconds of trail drawn behind an item moved by physics, and at most this many samples of it.
    static let trailSeconds = 2.0
    static let trailSamples = 60

    /// Draws the items of `frame` with their top-left at (x, y), `pointScale` pixels per point,
    /// where the items are drawn: through the transforms of their layers and groups.
    static func draw(
        _ job: PlannedJob, frame: Int, on context: DrawingContext, x: Double, y: Double,
        pointScale: Double
    ) throws(PreviewError) {
        let next = min(frame + 1, max(frame, job.spec.frameCount - 1))
        let trail = trailFrames(before: frame, fps: job.spec.fps)
        let byFrame: [Int: TracedFrame]
        do {
            let traced = try Tracer.layers(job, frames: FrameSet(Array(Set(trail + [frame, next])).sorted()))
            byFrame = Dictionary(traced.map { ($0.index, $0) }, uniquingKeysWith: { a, _ in a })
        } catch {
            throw .trace(error)
        }
        let now = items(byFrame[frame])
        let later = Dictionary(items(byFrame[next]).map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        let history = trail.map { Dictionary(items(byFrame[$0]).map { ($0.key, $0) }, uniquingKeysWith: { a, _ in a }) }
        context.save()
        context.translate(x, y)
        context.scale(pointScale, pointScale)
        let line = 1 / pointScale
        for item in now where item.visible {
            if let path = item.path, path.count == 4 || path.count == 3 {
                curve(context, path, line: line)
            }
            if item.physics {
                // Where the physics moved it: the positions of the last seconds, joined.
                let points = history.compactMap { $0[item.key] }.filter(\.visible).map { ($0.x, $0.y) }
                polyline(context, points + [(item.x, item.y)], line: line)
            }
            if let outline = item.outline {
                bounds(context, outline, line: line)
            }
            if let after = later[item.key], next != frame {
                let seconds = Double(next - frame) / job.spec.fps
                let dx = (after.x - item.x) / seconds * arrowSeconds
                let dy = (after.y - item.y) / seconds * arrowSeconds
                arrow(context, from: (item.x, item.y), by: (dx, dy), line: line)
            }
        }
        context.restore()
    }

    /// The frames of the trail before `frame`: up to `trailSeconds`, at most `trailSamples` of them.
    static func trailFrames(before frame: Int, fps: Double) -> [Int] {
        let first = max(0, frame - Int((trailSeconds * fps).rounded()))
        let step = max(1, (frame - first + trailSamples - 1) / trailSamples)
        return Array(stride(from: first, to: frame, by: step))
    }

    private static let cyan = Color(red: 0, green: 0.9, blue: 1, alpha: 0.9)

    /// A cubic (4 points) or quadratic (3 points) Bezier in cyan, its control polygon dashed and its
    /// control points as squares in magenta.
    private static func curve(_ context: DrawingContext, _ path: [(x: Double, y: Double)], line: Double) {
        let start = path[0]
        let end = path[path.count - 1]
        // A quadratic as the cubic with the same curve: controls 2/3 of the way to the quadratic's control.
        let controls =
            path.count == 4
            ? [path[1], path[2]]
            : [
                (x: start.x + 2 / 3 * (path[1].x - start.x), y: start.y + 2 / 3 * (path[1].y - start.y)),
                (x: end.x + 2 / 3 * (path[1].x - end.x), y: end.y + 2 / 3 * (path[1].y - end.y)),
            ]
        context.setLineWidth(line)
        context.setSource(cyan)
        context.move(to: start.x, start.y)
        context.curve(to: end.x, end.y, control1: controls[0].x, controls[0].y, control2: controls[1].x, controls[1].y)
        context.stroke()
        context.setSource(Color(red: 1, green: 0.2, blue: 1, alpha: 0.9))
        context.setDash([3 * line, 2 * line])
        context.move(to: start.x, start.y)
        for point in path.dropFirst() { context.line(to: point.x, point.y) }
        context.stroke()
        context.setDash([])
        for point in path.dropFirst().dropLast() {
            context.rectangle(x: point.x - 2 * line, y: point.y - 2 * line, width: 4 * line, height: 4 * line)
        }
        context.fill()
    }

    private static func polyline(_ context: DrawingContext, _ points: [(Double, Double)], line: Double) {
        guard let first = points.first, points.count > 1 else { return }
        context.setLineWidth(line)
        context.setSource(cyan)
        context.move(to: first.0, first.1)
        for point in points.dropFirst() { context.line(to: point.0, point.1) }
        context.stroke()
    }

    /// The item's outline box in yellow, its corners on the canvas.
    private static func bounds(_ context: DrawingContext, _ corners: [(x: Double, y: Double)], line: Double) {
        guard let first = corners.first else { return }
        context.setSource(Color(red: 1, green: 0.9, blue: 0, alpha: 0.9))
        context.setLineWidth(line)
        context.move(to: first.x, first.y)
        for corner in corners.dropFirst() { context.line(to: corner.x, corner.y) }
        context.closePath()
        context.stroke()
    }

    private static func arrow(
        _ context: DrawingContext, from start: (Double, Double), by delta: (Double, Double),
        line: Double
    ) {
        let length = (delta.0 * delta.0 + delta.1 * delta.1).squareRoot()
        guard length > line else { return }
        let end = (start.0 + delta.0, start.1 + delta.1)
        let (ux, uy) = (delta.0 / length, delta.1 / length)
        let head = min(6 * line, length / 2)
        context.setSource(Color(red: 1, green: 0.5, blue: 0, alpha: 0.95))
        context.setLineWidth(1.5 * line)
        context.move(to: start.0, start.1)
        context.line(to: end.0, end.1)
        context.move(to: end.0 - head * (ux - uy * 0.5), end.1 - head * (uy + ux * 0.5))
        context.line(to: end.0, end.1)
        context.line(to: end.0 - head * (ux + uy * 0.5), end.1 - head * (uy - ux * 0.5))
        context.stroke()
    }

    /// One traced item on the canvas.
    struct Item {
        var key: String
        var x: Double
        var y: Double
        var visible: Bool
        /// The corners of its outline box, in order: a heart's square stands on its position (bottom
        /// centre, scaled about it); a dropped or bouncing item's box (a `[width, height]` size) is
        /// centred on it and turned by its angle; then both go through the layer's placement.
        var outline: [(x: Double, y: Double)]?
        /// Whether physics moves the item now (its trace carries `resting`).
        var physics: Bool
        var path: [(x: Double, y: Double)]?
    }

    /// The items of one traced frame, keyed by layer and id; fields a plugin does not trace are nil.
    static func items(_ frame: TracedFrame?) -> [Item] {
        var result: [Item] = []
        for layer in frame?.layers ?? [] {
            let map = layer.placement ?? .identity
            let place = { (point: (x: Double, y: Double)) in
                let placed = map.apply(Point(point.x, point.y))
                return (x: placed.x, y: placed.y)
            }
            for entry in layer.items.arrayValue ?? [] {
                guard let object = entry.objectValue, let x = object["x"]?.doubleValue,
                    let y = object["y"]?.doubleValue
                else { continue }
                let plan = object["plan"]?.objectValue
                let id = object["id"].map { $0.serialized() } ?? "?"
                // Hearts give one side (a square on its bottom centre); drops and bodies [width, height].
                let side = plan?["size"]?.doubleValue
                let box = plan?["size"].flatMap(pair)
                let scale = object["scale"]?.doubleValue ?? 1
                let outline = (side.map { (width: $0, height: $0) } ?? box.map { (width: $0.x, height: $0.y) })
                    .map { size in
                        corners(
                            of: (size.width * scale, size.height * scale), at: (x, y), centred: box != nil,
                            angle: object["angle"]?.doubleValue ?? 0
                        ).map(place)
                    }
                let position = place((x, y))
                result.append(
                    Item(
                        key: "\(layer.layer)/\(id)", x: position.x, y: position.y,
                        visible: object["visible"]?.boolValue ?? true, outline: outline,
                        physics: object["resting"] != nil, path: plan?["path"]?.arrayValue?.compactMap(pair).map(place))
                )
            }
        }
        return result
    }

    /// The corners of a `size` box at `position`: centred on it, or standing on it (bottom centre),
    /// turned by `angle` radians about it.
    private static func corners(
        of size: (width: Double, height: Double), at position: (x: Double, y: Double), centred: Bool, angle: Double
    ) -> [(x: Double, y: Double)] {
        let (left, right) = (-size.width / 2, size.width / 2)
        let (top, bottom) = centred ? (-size.height / 2, size.height / 2) : (-size.height, 0)
        let (s, c) = (sin(angle), cos(angle))
        return [(left, top), (right, top), (right, bottom), (left, bottom)].map { corner in
            (x: position.x + corner.0 * c - corner.1 * s, y: position.y + corner.0 * s + corner.1 * c)
        }
    }

    /// `[x, y]` as a pair of numbers.
    private static func pair(_ value: JSONValue) -> (x: Double, y: Double)? {
        guard let pair = value.arrayValue, pair.count == 2, let x = pair[0].doubleValue, let y = pair[1].doubleValue
        else { return nil }
        return (x, y)
    }
}
