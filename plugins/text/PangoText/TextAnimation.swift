import EffectKit
import Foundation

/// A circle the text's lines follow (`path`): the middle of each line at `angle` degrees (−90: the top),
/// glyphs upright along it, later lines further in (EffectKit article TextEffect, "Text on a circle").
struct TextPath: Sendable, Equatable {
    var center: Point
    var radius: Double
    var angle: Double

    static func read(_ value: JSONValue?) throws(EffectError) -> TextPath? {
        guard let value else { return nil }
        let object = try NestedObject(value, parameter: "path", keys: ["center", "radius", "angle"])
        guard object["center"] != nil, object["radius"] != nil else {
            throw EffectError(parameter: "path", "needs a \"center\" [x, y] and a \"radius\" in points")
        }
        return TextPath(
            center: try EffectParameters.point(object["center"], parameter: "path.center"),
            radius: try object.number("radius", in: 1...100_000) ?? 1,
            angle: try object.number("angle", in: -3600...3600) ?? -90)
    }
}

/// Where one cluster is drawn and how: its anchor's place, its turn and scale about the anchor, its opacity,
/// and its fill and outline colours when an animator changed them.
struct ClusterPose: Sendable, Equatable {
    var place: Point
    var rotation = 0.0
    var scale = 1.0
    var alpha = 1.0
    var fill: Color?
    var stroke: Color?

    /// The cluster's transformation: its anchor to `place`, turned and scaled about it.
    func apply(to context: DrawingContext, anchor: Point) {
        context.translate(place.x, place.y)
        if rotation != 0 { context.rotate(rotation) }
        if scale != 1 { context.scale(scale, scale) }
        context.translate(-anchor.x, -anchor.y)
    }

    func combine(into key: inout FrameKey.Hasher) {
        key.combine(place)
        key.combine(rotation)
        key.combine(scale)
        key.combine(alpha)
        key.combine(fill)
        key.combine(stroke)
    }
}

/// The animators and the path of a text layer: each cluster's pose at a time.
struct TextAnimation: Sendable {
    var animators: [TextAnimator]
    var path: TextPath?

    var isEmpty: Bool { animators.isEmpty && path == nil }

    /// How long the longest `countPop` swells after a change of the count; nil without one.
    var countPopWindow: Double? {
        animators.compactMap { animator in
            if case .countChange(let duration) = animator.selector { duration } else { nil }
        }.max()
    }

    /// The characters of `{{count}}` in a banner's text and how long ago the count last changed.
    struct CountChange {
        var bytes: Range<Int>
        var since: Double?
    }

    /// The pose of each cluster of `clusters` at `time` seconds after the text appeared; `fill` and `stroke` are
    /// the colours the animators start from.
    func poses(
        _ clusters: [TextCluster], at time: Double, fill: Color, stroke: Color?, count: CountChange? = nil
    ) -> [ClusterPose] {
        let units = Units(clusters)
        var poses = clusters.map { ClusterPose(place: $0.anchor) }
        var offsets = [Point](repeating: Point(0, 0), count: clusters.count)
        var tracking = [Double](repeating: 0, count: clusters.count)
        for animator in animators {
            for index in clusters.indices {
                let amount = amount(
                    of: animator, cluster: index, units: units, clusters: clusters, at: time, count: count)
                guard amount != 0 else { continue }
                let properties = animator.properties
                if let opacity = properties.opacity { poses[index].alpha *= 1 + amount * (opacity - 1) }
                if let position = properties.position {
                    offsets[index].x += amount * position.x
                    offsets[index].y += amount * position.y
                }
                if let scale = properties.scale { poses[index].scale *= 1 + amount * (scale - 1) }
                if let rotation = properties.rotation { poses[index].rotation += amount * rotation * .pi / 180 }
                if let extra = properties.tracking { tracking[index] += amount * extra }
                if let target = properties.fill {
                    poses[index].fill = Self.mix(
                        poses[index].fill ?? clusters[index].foreground ?? fill, target, amount)
                }
                if let target = properties.stroke, let base = poses[index].stroke ?? stroke {
                    poses[index].stroke = Self.mix(base, target, amount)
                }
            }
        }
        // Tracking adds space after each character: a cluster moves by what the ones before it on its line add.
        var shift = [Double](repeating: 0, count: clusters.count)
        var running = (line: -1, sum: 0.0)
        for index in clusters.indices {
            if clusters[index].line != running.line { running = (clusters[index].line, 0) }
            shift[index] = running.sum
            running.sum += tracking[index]
        }
        let lines = Dictionary(grouping: clusters.indices, by: { clusters[$0].line })
        for index in clusters.indices {
            let cluster = clusters[index]
            guard let path else {
                poses[index].place = Point(
                    cluster.anchor.x + shift[index] + offsets[index].x, cluster.anchor.y + offsets[index].y)
                continue
            }
            // On the circle: the distance from the line's middle is an arc length; later lines lie further in.
            let line = lines[cluster.line] ?? [index]
            let first = clusters[line[0]]
            let (left, right) = line.reduce((Double.infinity, -Double.infinity)) { bounds, member in
                (
                    min(bounds.0, clusters[member].pen.x),
                    max(bounds.1, clusters[member].pen.x + clusters[member].advance)
                )
            }
            let lineShift = line.last.map { shift[$0] + tracking[$0] } ?? 0
            let along = cluster.anchor.x + shift[index] - (left + right + lineShift) / 2
            let radius = max(1, path.radius - (cluster.pen.y - first.pen.y))
            let angle = path.angle * .pi / 180 + along / radius
            let (c, s) = (cos(angle), sin(angle))
            let offset = offsets[index]
            // The animators' offsets run along the tangent (x) and towards the centre (y, down for upright glyphs).
            poses[index].place = Point(
                path.center.x + (radius - offset.y) * c - offset.x * s,
                path.center.y + (radius - offset.y) * s + offset.x * c)
            poses[index].rotation += angle + .pi / 2
        }
        return poses
    }

    private func amount(
        of animator: TextAnimator, cluster index: Int, units: Units, clusters: [TextCluster], at time: Double,
        count: CountChange?
    ) -> Double {
        if case .countChange(let duration) = animator.selector {
            guard let count, let since = count.since, since < duration, clusters[index].bytes.overlaps(count.bytes)
            else { return 0 }
            return sin(Double.pi * since / duration)
        }
        switch animator.unit {
        case .character: return animator.amount(index, of: clusters.count, at: time)
        case .word:
            guard let word = units.words[index] else { return 0 }
            return animator.amount(word, of: units.wordCount, at: time)
        case .line: return animator.amount(clusters[index].line, of: units.lineCount, at: time)
        }
    }

    /// Each cluster's word (nil for white space) and the counts of words and lines.
    private struct Units {
        var words: [Int?] = []
        var wordCount = 0
        var lineCount = 0

        init(_ clusters: [TextCluster]) {
            var previousSpace = true
            var previousLine = -1
            for cluster in clusters {
                if cluster.isSpace {
                    words.append(nil)
                } else {
                    if previousSpace || cluster.line != previousLine { wordCount += 1 }
                    words.append(wordCount - 1)
                }
                previousSpace = cluster.isSpace
                previousLine = cluster.line
                lineCount = max(lineCount, cluster.line + 1)
            }
        }
    }

    private static func mix(_ a: Color, _ b: Color, _ amount: Double) -> Color {
        let t = min(max(amount, 0), 1)
        return Color(
            red: a.red + (b.red - a.red) * t, green: a.green + (b.green - a.green) * t,
            blue: a.blue + (b.blue - a.blue) * t, alpha: a.alpha + (b.alpha - a.alpha) * t)
    }
}
