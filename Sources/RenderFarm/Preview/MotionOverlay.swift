import CairoKit
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

    /// Draws the items of `frame` with their top-left at (x, y), `pointScale` pixels per point.
    static func draw(
        _ job: PlannedJob, frame: Int, on context: DrawingContext, x: Double, y: Double,
        pointScale: Double
    ) throws(PreviewError) {
        let next = min(frame + 1, max(frame, job.spec.frameCount - 1))
        let trail = trailFrames(before: frame, fps: job.spec.fps)
        let byFrame: [Int: JSONValue]
        do {
            let lines = try Tracer.trace(job, frames: FrameSet(Array(Set(trail + [frame, next])).sorted()))
            byFrame = Dictionary(
                lines.map { (Int($0.objectValue?["frame"]?.doubleValue ?? -1), $0) }, uniquingKeysWith: { a, _ in a })
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
            if let size = item.size {
                bounds(context, item, size: size, line: line)
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

    /// The item's outline box in yellow: a heart's square stands on its position (bottom centre, scaled
    /// about it); a dropped or bouncing item's box is centred on it and turned by its angle.
    private static func bounds(
        _ context: DrawingContext, _ item: Item, size: (width: Double, height: Double), line: Double
    ) {
        context.save()
        context.setSource(Color(red: 1, green: 0.9, blue: 0, alpha: 0.9))
        context.setLineWidth(line)
        context.translate(item.x, item.y)
        context.rotate(item.angle)
        let (width, height) = (size.width * item.scale, size.height * item.scale)
        context.rectangle(x: -width / 2, y: item.centred ? -height / 2 : -height, width: width, height: height)
        context.stroke()
        context.restore()
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

    struct Item {
        var key: String
        var x: Double
        var y: Double
        var scale: Double
        var angle: Double
        var visible: Bool
        var size: (width: Double, height: Double)?
        /// Whether the position is the item's centre (a `[width, height]` size), not its bottom centre.
        var centred: Bool
        /// Whether physics moves the item now (its trace carries `resting`).
        var physics: Bool
        var path: [(x: Double, y: Double)]?
    }

    /// The items of one trace line, keyed by layer and id; fields a plugin does not trace are nil.
    static func items(_ line: JSONValue?) -> [Item] {
        var result: [Item] = []
        for layer in line?.objectValue?["layers"]?.arrayValue ?? [] {
            let number = layer.objectValue?["layer"]?.doubleValue ?? 0
            for entry in layer.objectValue?["items"]?.arrayValue ?? [] {
                guard let object = entry.objectValue, let x = object["x"]?.doubleValue,
                    let y = object["y"]?.doubleValue
                else { continue }
                let plan = object["plan"]?.objectValue
                let path = plan?["path"]?.arrayValue?.compactMap(pair)
                let id = object["id"].map { $0.serialized() } ?? "?"
                // Hearts give one side (a square on its bottom centre); drops and bodies [width, height].
                let side = plan?["size"]?.doubleValue
                let box = plan?["size"].flatMap(pair)
                result.append(
                    Item(
                        key: "\(Int(number))/\(id)", x: x, y: y, scale: object["scale"]?.doubleValue ?? 1,
                        angle: object["angle"]?.doubleValue ?? 0, visible: object["visible"]?.boolValue ?? true,
                        size: side.map { ($0, $0) } ?? box.map { ($0.x, $0.y) }, centred: box != nil,
                        physics: object["resting"] != nil, path: path))
            }
        }
        return result
    }

    /// `[x, y]` as a pair of numbers.
    private static func pair(_ value: JSONValue) -> (x: Double, y: Double)? {
        guard let pair = value.arrayValue, pair.count == 2, let x = pair[0].doubleValue, let y = pair[1].doubleValue
        else { return nil }
        return (x, y)
    }
}
