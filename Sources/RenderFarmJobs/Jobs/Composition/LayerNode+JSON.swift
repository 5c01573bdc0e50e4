import EffectKit
import StrictJSON

extension LayerNode {
    /// Where the node is in its own time at time `t` of its list, and the same of what it holds; `null`
    /// when it is not drawn. Every other input of its drawing (opacity, transform, blend, mask, keyframes)
    /// follows from its fields, which are in the job's identity, and this time: two frames of one job with
    /// the same state and the same frame keys draw the same (a frame's fingerprint includes it).
    package func state(at t: Double) -> JSONValue {
        guard let local = fields.localTime(at: t, bounded: hasSpan) else { return .null }
        var object: JSONObject = ["t": .number(local)]
        if case .group(let children) = content { object["group"] = .array(children.map { $0.state(at: local) }) }
        return .object(object)
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
        if let transform {
            var value: JSONObject = [
                "anchor": transform.anchor.json, "scale": transform.scale.json, "rotation": transform.rotation.json,
            ]
            if let position = transform.position { value["position"] = position.json }
            object["transform"] = .object(value)
        }
        if let mask {
            object["mask"] = .object([
                "layer": .string(mask.layer), "source": .number(Double(mask.source)), "mode": .string(mask.mode.rawValue),
                "invert": .bool(mask.invert),
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
                        .object(["t": .number(key.t), "value": key.value.json, "timing": key.timing.json])
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
