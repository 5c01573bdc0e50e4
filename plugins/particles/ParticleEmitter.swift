import EffectKit
import Foundation

/// Where particles are born (`CAEmitterLayer`'s `emitterShape`, `emitterMode`, `emitterPosition`,
/// `emitterSize`), in the canvas plane: EffectKit article ParticlesEffect, "The emitter".
struct ParticleEmitter: Sendable {
    enum Shape: String, CaseIterable, Sendable {
        case point, line, rectangle, circle
    }

    enum Mode: String, CaseIterable, Sendable {
        case points, outline, surface, volume
    }

    var position: Point
    var size: Size
    var shape: Shape
    var mode: Mode

    /// The birth point for two uniform draws `u` and `v` in [0, 1).
    func birthPoint(_ u: Double, _ v: Double) -> Point {
        let (x, y, w, h) = (position.x, position.y, size.width, size.height)
        switch (shape, mode) {
        case (.point, _):
            return position
        case (.line, .points):
            // The line's two ends.
            return Point(u < 0.5 ? x - w / 2 : x + w / 2, y)
        case (.line, _):
            return Point(x - w / 2 + u * w, y)
        case (.rectangle, .points):
            // The four corners.
            let corner = min(Int(u * 4), 3)
            return Point(corner % 2 == 0 ? x - w / 2 : x + w / 2, corner < 2 ? y - h / 2 : y + h / 2)
        case (.rectangle, .outline):
            return perimeterPoint(u * 2 * (w + h))
        case (.rectangle, _):
            return Point(x - w / 2 + u * w, y - h / 2 + v * h)
        case (.circle, .points):
            return position
        case (.circle, .outline):
            let angle = 2 * Double.pi * u
            return Point(x + w * cos(angle), y + w * sin(angle))
        case (.circle, _):
            // Uniform over the disc's area: the radius goes as the square root of a uniform draw.
            let angle = 2 * Double.pi * u
            let radius = w * v.squareRoot()
            return Point(x + radius * cos(angle), y + radius * sin(angle))
        }
    }

    /// The point `distance` along the rectangle's edge, clockwise from its top-left corner.
    private func perimeterPoint(_ distance: Double) -> Point {
        let (left, top, w, h) = (position.x - size.width / 2, position.y - size.height / 2, size.width, size.height)
        var d = distance
        if d < w { return Point(left + d, top) }
        d -= w
        if d < h { return Point(left + w, top + d) }
        d -= h
        if d < w { return Point(left + w - d, top + h) }
        d -= w
        return Point(left, top + h - min(d, h))
    }
}
