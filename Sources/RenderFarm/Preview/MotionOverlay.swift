import CairoKit
import StrictJSON

/// The `--debug` drawing over a thumbnail, from the plugins' trace data: each visible item's
/// path (cyan), its Bezier control points (magenta), its bounds (yellow) and its velocity
/// (orange, the distance covered in the next quarter second).
enum MotionOverlay {
    /// Seconds of motion the velocity arrow shows.
    static let arrowSeconds = 0.25

    /// Draws the items of `frame` with their top-left at (x, y), `pointScale` pixels per point.
    static func draw(
        _ job: PreparedJob, frame: Int, on context: DrawingContext, x: Double, y: Double,
        pointScale: Double
    ) throws(PreviewError) {
        let next = min(frame + 1, max(frame, job.spec.frameCount - 1))
        let lines: [JSONValue]
        do {
            lines = try Tracer.trace(job, frames: FrameSet([frame, next]))
        } catch {
            throw .trace(error)
        }
        let now = items(lines.first)
        let later = Dictionary(items(lines.last).map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        context.save()
        context.translate(x, y)
        context.scale(pointScale, pointScale)
        let line = 1 / pointScale
        for item in now where item.visible {
            if let path = item.path, path.count == 4 {
                context.setLineWidth(line)
                context.setSource(Color(red: 0, green: 0.9, blue: 1, alpha: 0.9))
                context.move(to: path[0].x, path[0].y)
                context.curve(to: path[3].x, path[3].y, control1: path[1].x, path[1].y, control2: path[2].x, path[2].y)
                context.stroke()
                context.setSource(Color(red: 1, green: 0.2, blue: 1, alpha: 0.9))
                context.setDash([3 * line, 2 * line])
                context.move(to: path[0].x, path[0].y)
                context.line(to: path[1].x, path[1].y)
                context.move(to: path[2].x, path[2].y)
                context.line(to: path[3].x, path[3].y)
                context.stroke()
                context.setDash([])
                for point in path[1...2] {
                    context.rectangle(x: point.x - 2 * line, y: point.y - 2 * line, width: 4 * line, height: 4 * line)
                }
                context.fill()
            }
            if let size = item.size {
                // Positions are the bottom centre of an item of size × size points, scaled.
                let side = size * item.scale
                context.setSource(Color(red: 1, green: 0.9, blue: 0, alpha: 0.9))
                context.setLineWidth(line)
                context.rectangle(x: item.x - side / 2, y: item.y - side, width: side, height: side)
                context.stroke()
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
        var visible: Bool
        var size: Double?
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
                let path = plan?["path"]?.arrayValue?.compactMap { point -> (x: Double, y: Double)? in
                    guard let pair = point.arrayValue, pair.count == 2, let px = pair[0].doubleValue,
                        let py = pair[1].doubleValue
                    else { return nil }
                    return (px, py)
                }
                let id = object["id"].map { $0.serialized() } ?? "?"
                result.append(
                    Item(
                        key: "\(Int(number))/\(id)", x: x, y: y, scale: object["scale"]?.doubleValue ?? 1,
                        visible: object["visible"]?.boolValue ?? true, size: plan?["size"]?.doubleValue, path: path))
            }
        }
        return result
    }
}
