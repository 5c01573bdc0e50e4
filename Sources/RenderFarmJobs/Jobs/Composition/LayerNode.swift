import CairoKit
import Foundation
import Motion

/// The host-level fields of a layer or group (the RenderFarm article ComposingLayers): when it is
/// drawn and at which of its own times, and how it is composited over what is under it.
package struct LayerFields: Sendable, Equatable, Encodable {
    /// What `mask.layer` calls this layer.
    package var name: String?
    /// The time of the layer's list (the job's, or its group's) at which its own time is 0.
    package var start = 0.0
    /// From this time of its list on, the layer is not drawn.
    package var end: Double?
    /// How fast the layer's own time runs: local time = (t − start) × speed.
    package var speed = 1.0
    /// The length, in local seconds, after which the layer's own time starts again from 0.
    package var loop: Double?
    package var opacity = Animated.constant(1.0)
    package var blend = BlendMode.normal
    package var transform: LayerTransform?
    package var mask: LayerMask?
    /// Shadows, glows, a stroke, a blur and colour adjustments drawn from the layer's pixels.
    package var style: LayerStyle?
    /// The layer drawn at several times while a camera's shutter is open, and averaged.
    package var motionBlur: MotionBlur?
    /// The level of the sound its plugin plays (ABI `sounds`), in dB; a group's adds to its layers'.
    package var gain = 0.0
    /// Whether that sound is left out of the mix; a muted group mutes its layers.
    package var muted = false

    /// The range of `gain`: that of a sound's own gain (ABI `rf_sound`).
    package static let gains = DeclaredSound.gains

    package init() {}

    /// Whether the layer's own time is not the list's time shifted by `start`.
    package var remapsTime: Bool { speed != 1 || loop != nil }

    /// Whether the layer is drawn only from `start` to `end` (a layer with `end`, `speed` or `loop`;
    /// groups are bounded always). A layer with none of them is drawn at every frame, its plugin
    /// seeing negative local times before `start`, as version 1 jobs always were.
    package var hasSpan: Bool { end != nil || remapsTime }

    /// Whether it changes with time: keyframed opacity, transform or style.
    package var isAnimated: Bool {
        opacity.isAnimated || (transform?.isAnimated ?? false) || (style?.isAnimated ?? false)
    }

    /// Whether it draws only as a plain layer would (every field at its default but `start`).
    package var isPlain: Bool {
        end == nil && !remapsTime && opacity == .constant(1) && blend == .normal && transform == nil && mask == nil
            && style == nil && motionBlur == nil
    }

    /// The layer's own time at `t` of its list, or nil when it is not drawn then.
    package func localTime(at t: Double, bounded: Bool) -> Double? {
        if let end, t >= end { return nil }
        let elapsed = t - start
        if bounded && elapsed < 0 { return nil }
        var local = elapsed * speed
        if let loop, local >= 0 {
            local = local.truncatingRemainder(dividingBy: loop)
            // (2.6 − 0.2) × 1.5 is 3.5999999999999996 in doubles: a remainder a rounding error short of the
            // loop starts it again, as exact arithmetic would, instead of showing its very end.
            if loop - local <= Self.sameTime { local = 0 }
        }
        return local
    }

    /// Times closer than this count as equal: a tenth of a microsecond, far above the rounding of
    /// `(t − start) × speed` in doubles and far below a frame (the footage rule counts the same).
    static let sameTime = 1e-7
}

/// Motion blur (the RenderFarm article ComposingLayers, "Motion blur"): the layer is drawn at `samples` times
/// spread evenly over the shutter, which opens `shutterPhase` degrees of a frame after the frame's time and stays
/// open `shutterAngle` degrees (360: a whole frame), and the drawings are averaged, as After Effects does.
package struct MotionBlur: Sendable, Equatable, Encodable {
    package var shutterAngle = 180.0
    package var shutterPhase = -90.0
    package var samples = 8

    package static let angles = 1.0...720.0
    package static let phases = -360.0...360.0
    package static let sampleCounts = 2...64

    package init() {}

    /// The samples' times from the frame's, in seconds of the job at `fps`: the first when the shutter opens, the
    /// last when it closes.
    package func offsets(fps: Double) -> [Double] {
        (0..<samples).map { index in
            (shutterPhase + shutterAngle * Double(index) / Double(samples - 1)) / 360 / fps
        }
    }
}

/// Where a layer is placed: its `anchor` point is moved to `position` (or to a point along `path`), then it is
/// rotated (degrees, clockwise on screen) and scaled about it, as in After Effects. Points in job points.
package struct LayerTransform: Sendable, Equatable, Encodable {
    package var anchor: Point
    /// Nil: the anchor itself (no move), unless `path` places it.
    package var position: Animated<Point>?
    /// A motion path the anchor travels along, instead of `position`.
    package var path: Path?
    package var scale: Animated<Point>
    package var rotation: Animated<Double>

    /// A motion path: the anchor at `progress` of the way along it by length, turned to face along it when
    /// `autoOrient` (the layer's +x axis along the path's direction, as After Effects' auto-orient does).
    package struct Path: Sendable, Equatable, Encodable {
        package var path: MotionPath
        /// 0 at the path's start, 1 at its end; a value outside (a spring's overshoot) stays at the end.
        package var progress: Animated<Double>
        package var autoOrient = false
    }

    package var isAnimated: Bool {
        (position?.isAnimated ?? false) || (path?.progress.isAnimated ?? false) || scale.isAnimated
            || rotation.isAnimated
    }

    /// The transformation at local time `t`: where the layer's point (x, y) lands is
    /// position + R(rotation) · S(scale) · ((x, y) − anchor).
    package func resolved(at t: Double) -> Resolved {
        var resolved = Resolved(
            anchor: anchor, position: position?.value(at: t) ?? anchor, scale: scale.value(at: t),
            rotation: rotation.value(at: t))
        if let path {
            let (point, direction) = path.path.point(at: path.progress.value(at: t))
            resolved.position = point
            if path.autoOrient { resolved.rotation += direction * 180 / .pi }
        }
        return resolved
    }

    /// A transformation at one time.
    package struct Resolved: Sendable, Equatable {
        package var anchor: Point
        package var position: Point
        package var scale: Point
        /// Degrees, clockwise on screen (y grows downwards).
        package var rotation: Double

        /// Where the layer's point `p` lands.
        package func apply(_ p: Point) -> Point { map.apply(p) }

        /// The transformation as a map of the layer's points: the cairo transformation that
        /// `LayerCompositor` builds from translate(position), rotate, scale, translate(−anchor).
        package var map: AffineMap {
            let radians = rotation * .pi / 180
            let (s, c) = (sin(radians), cos(radians))
            let (xx, yx, xy, yy) = (c * scale.x, s * scale.x, -s * scale.y, c * scale.y)
            return AffineMap(
                xx: xx, yx: yx, xy: xy, yy: yy, x0: position.x - xx * anchor.x - xy * anchor.y,
                y0: position.y - yx * anchor.x - yy * anchor.y)
        }
    }
}

/// A layer that masks another by its alpha or its luminance.
package struct LayerMask: Sendable, Equatable, Encodable {
    package enum Mode: String, Sendable, CaseIterable, Encodable {
        case alpha
        case luminance
    }

    /// The name of the masking layer, in the same list.
    package var layer: String
    package var mode = Mode.alpha
    package var invert = false
    /// Where the masking layer is in the list (set when the list is read).
    package var source = 0
}

/// A layer or group the job file turns off (`"enabled": false`, which a variant's column or a matrix value may
/// fill): it is not created, drawn or heard, its parameters are not checked (its own fields are), and a job
/// renders as if the file did not have it. Listed (`JobSpec.disabled`) so a tool can show it.
package struct DisabledLayer: Sendable, Equatable, Encodable {
    /// Where it is in the job file: `layers[2]`, `layers[1].group[0]`.
    package var path: String
    /// Its effect; nil for a group.
    package var effect: String?
    package var name: String?
}

/// One entry of a layer list: an effect layer or a group of layers, with its host-level fields.
package struct LayerNode: Sendable, Equatable, Encodable {
    package var fields: LayerFields
    package var content: Content
    /// Whether another layer of the list uses this one as its mask (then it is not drawn itself).
    package var isMask = false
    /// Where it is in the job file: `layers[2]`, `layers[1].group[0]`.
    package var path: String
    /// For a group that places a composition file, the composition's canvas: its layers are drawn inside it.
    package var canvas: CompositionCanvas? = nil

    package enum Content: Sendable, Equatable, Encodable {
        /// The effect layer `JobSpec.layers[index]`.
        case effect(Int)
        /// A precomposition: the layers drawn on a surface of their own, then as one layer.
        case group([LayerNode])
    }

    /// Whether the node is drawn only from `start` to `end`.
    package var hasSpan: Bool {
        if case .group = content { return true }
        return fields.hasSpan
    }
}

/// The canvas of a composition a layer places (the RenderFarm article ComposingLayers, "Compositions"): what its
/// layers draw is cut to the rectangle from (0, 0) of this size, in the composition's points, over its background.
package struct CompositionCanvas: Sendable, Equatable, Encodable {
    /// The composition file, relative to the job's folder.
    package var file: String
    package var width: Double
    package var height: Double
    package var background: Color
}
