import Motion
import StrictJSON

extension LayerNode {
    /// What the node draws with at time `t` of its list: its own time, opacity and transformation
    /// then, and the same of what it holds; `null` when it is not drawn. With `withoutAnimation`, which
    /// holds every other field, it decides the node's drawing: two frames of one job with the same state
    /// and the same frame keys draw the same (a frame's fingerprint includes both).
    package func state(at t: Double) -> JSONValue {
        guard let local = fields.localTime(at: t, bounded: hasSpan) else { return .null }
        var object: JSONObject = ["t": .number(local), "opacity": .number(fields.opacity.value(at: local))]
        if let transform = fields.transform?.resolved(at: local) {
            object["transform"] = .array(
                [
                    transform.position.x, transform.position.y, transform.scale.x, transform.scale.y,
                    transform.rotation,
                ].map(JSONValue.number))
        }
        if case .group(let children) = content { object["group"] = .array(children.map { $0.state(at: local) }) }
        return .object(object)
    }

    /// The node and what it holds with the values `state(at:)` gives per frame (opacity, position, scale,
    /// rotation) set to constants and a motion path left out: what every frame of the node shares, so that a frame's fingerprint holds
    /// the keyframes it is drawn with, not the others. A keyframed field not replaced here stays whole, so
    /// its every edit redraws every frame: never a stale one.
    package var withoutAnimation: LayerNode {
        var node = self
        node.fields.opacity = .constant(1)
        if var transform = node.fields.transform {
            if transform.position != nil { transform.position = .constant(Point(0, 0)) }
            // The place and turn a motion path gives are in the state: the path itself is not needed.
            transform.path = nil
            transform.scale = .constant(Point(1, 1))
            transform.rotation = .constant(0)
            node.fields.transform = transform
        }
        if case .group(let children) = content { node.content = .group(children.map(\.withoutAnimation)) }
        return node
    }
}

extension LayerFields {
    /// The fields set, as the job file writes them (with `mask.source`, the masking layer's place): what the
    /// studio shows.
    package var json: JSONObject {
        var object: JSONObject = ["start": .number(start)]
        if let name { object["name"] = .string(name) }
        if let end { object["end"] = .number(end) }
        if speed != 1 { object["speed"] = .number(speed) }
        if let loop { object["loop"] = .number(loop) }
        if opacity != .constant(1) { object["opacity"] = opacity.json }
        if blend != .normal { object["blend"] = .string(blend.rawValue) }
        if gain != 0 { object["gain"] = .number(gain) }
        if muted { object["muted"] = .bool(true) }
        if let transform {
            var value: JSONObject = [
                "anchor": transform.anchor.json, "scale": transform.scale.json, "rotation": transform.rotation.json,
            ]
            if let position = transform.position { value["position"] = position.json }
            if let path = transform.path {
                value["path"] = .object([
                    "d": .string(path.path.data), "progress": path.progress.json, "autoOrient": .bool(path.autoOrient),
                ])
            }
            object["transform"] = .object(value)
        }
        if let mask {
            object["mask"] = .object([
                "layer": .string(mask.layer), "source": .number(Double(mask.source)),
                "mode": .string(mask.mode.rawValue),
                "invert": .bool(mask.invert),
            ])
        }
        if let style { object["style"] = .object(style.json) }
        if let motionBlur {
            object["motionBlur"] = .object([
                "shutterAngle": .number(motionBlur.shutterAngle), "shutterPhase": .number(motionBlur.shutterPhase),
                "samples": .number(Double(motionBlur.samples)),
            ])
        }
        return object
    }
}

extension LayerStyle {
    /// The style as the job file writes it, every field filled.
    var json: JSONObject {
        var object: JSONObject = [:]
        if let shadow = dropShadow {
            object["dropShadow"] = .object([
                "color": .string(shadow.color.hex), "opacity": shadow.opacity.json, "angle": shadow.angle.json,
                "distance": shadow.distance.json, "blur": shadow.blur.json, "spread": shadow.spread.json,
            ])
        }
        for (key, glow) in [("outerGlow", outerGlow), ("innerGlow", innerGlow)] {
            guard let glow else { continue }
            object[key] = .object([
                "color": .string(glow.color.hex), "opacity": glow.opacity.json, "blur": glow.blur.json,
                "spread": glow.spread.json,
            ])
        }
        if let stroke {
            object["stroke"] = .object([
                "color": .string(stroke.color.hex), "opacity": stroke.opacity.json, "width": stroke.width.json,
                "position": .string(stroke.position.rawValue),
            ])
        }
        if let blur { object["blur"] = blur.json }
        if let adjust {
            object["adjust"] = .object([
                "brightness": adjust.brightness.json, "contrast": adjust.contrast.json,
                "saturation": adjust.saturation.json, "tint": .string(adjust.tint.hex),
                "tintAmount": adjust.tintAmount.json,
            ])
        }
        return object
    }
}

/// A value as the job file writes it.
protocol JSONWritable { var json: JSONValue { get } }

extension Double: JSONWritable { var json: JSONValue { .number(self) } }
extension Point: JSONWritable {}

extension Animated where Value: JSONWritable {
    var json: JSONValue {
        switch self {
        case .constant(let value): return value.json
        case .keyframes(let keys):
            return .object([
                "keyframes": .array(
                    keys.map { key in
                        var object: JSONObject = [
                            "t": .number(key.t), "value": key.value.json, "timing": key.timing.json,
                        ]
                        if key.inTangent != .zero { object["inTangent"] = key.inTangent.json }
                        if key.outTangent != .zero { object["outTangent"] = key.outTangent.json }
                        return .object(object)
                    })
            ])
        }
    }
}

extension KeyframeTiming {
    var json: JSONValue {
        switch self {
        case .curve(let f): .array([f.c1x, f.c1y, f.c2x, f.c2y].map(JSONValue.number))
        case .spring(let damping, let velocity): .object(["damping": .number(damping), "velocity": .number(velocity)])
        }
    }
}
