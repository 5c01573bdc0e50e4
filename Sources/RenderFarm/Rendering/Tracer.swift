import Motion
import RenderFarmJobs
import StrictJSON

/// The motion of a job as numbers, no pixels: each layer's items at each frame, from the
/// plugins' optional `trace` function (`renderfarm trace`, fidelity tests).
package enum Tracer {
    /// One JSON object per frame of `frames` (default: the job's frame set), in frame order:
    /// `{"frame": 30, "time": 0.5, "layers": [{"layer": 0, "effect": "…", "items": […]}]}`, each
    /// item where it is drawn on the canvas (`placed`). Layers whose plugin cannot trace are left
    /// out: those without a `trace` function, and those whose `trace` answers `RF_ERROR_UNSUPPORTED`
    /// (the optional function is then "not offered", as Swift plugins built with an older EffectKit
    /// say), which `untraced` hears of once each.
    package static func trace(
        _ job: PlannedJob, frames: FrameSet? = nil, untraced: (_ layer: Int, _ effect: String) -> Void = { _, _ in }
    ) throws(TraceError) -> [JSONValue] {
        try layers(job, frames: frames, untraced: untraced).map { frame in
            .object([
                "frame": .number(Double(frame.index)), "time": .number(frame.time),
                "layers": .array(frame.layers.map(\.json)),
            ])
        }
    }

    /// The traced layers of each frame of `frames` (default: the job's frame set), in frame order,
    /// their items in the layer's own points.
    static func layers(
        _ job: PlannedJob, frames: FrameSet? = nil, untraced: (_ layer: Int, _ effect: String) -> Void = { _, _ in }
    ) throws(TraceError) -> [TracedFrame] {
        var result: [TracedFrame] = []
        var skipped: Set<Int> = []
        for index in (frames ?? job.frames).frames {
            let time = job.spec.time(ofFrame: index)
            var layers: [TracedLayer] = []
            for (layer, instance) in job.layers.enumerated()
            where instance.plugin.info.canTrace && !skipped.contains(layer) {
                guard let frame = job.abiFrame(index, layer: layer) else { continue }
                switch instance.trace(frame: frame) {
                case .success(let items):
                    var traced = TracedLayer(layer: layer, effect: instance.plugin.info.id, items: items)
                    if job.spec.isComposed {
                        let clock = job.clocks[layer]
                        traced.opacity = clock.opacity(at: time) ?? 1
                        traced.placement = clock.isPlaced ? clock.placement(at: time) : nil
                        traced.rate = clock.rate
                    }
                    layers.append(traced)
                case .failure(let error) where error.isUnsupported:
                    skipped.insert(layer)
                    untraced(layer, instance.plugin.info.id)
                case .failure(let error):
                    throw TraceError(frame: index, layer: layer, message: error.message)
                }
            }
            result.append(TracedFrame(index: index, time: time, layers: layers))
        }
        return result
    }
}

/// The traced layers of one frame.
struct TracedFrame {
    var index: Int
    var time: Double
    var layers: [TracedLayer]
}

/// One layer's trace at one frame: its items as its plugin gave them, in the layer's own points and
/// seconds, and how the host draws the layer then.
struct TracedLayer {
    var layer: Int
    var effect: String
    /// The plugin's JSON array of items.
    var items: JSONValue
    /// The product of the opacities of the layer and its groups.
    var opacity = 1.0
    /// Where the layer's points land on the canvas; nil when neither it nor a group holding it has
    /// a transform (its points are the canvas's).
    var placement: AffineMap?
    /// How fast the layer's own time runs against the job's (its speed times its groups').
    var rate = 1.0

    /// The layer as `renderfarm trace` prints it: `matrix` (cairo's `[xx, yx, xy, yy, x0, y0]`)
    /// when the layer is placed by a transform, and its items where they are drawn (`placed`).
    var json: JSONValue {
        var object: JSONObject = ["layer": .number(Double(layer)), "effect": .string(effect)]
        if let placement { object["matrix"] = .array(placement.numbers.map { .number($0) }) }
        object["items"] = placed
        return .object(object)
    }

    /// The items as they land on the canvas (the RenderFarm article ComposingLayers, "Trace and the
    /// debug overlay"): `x`, `y` and the points of `plan.path` through the placement; `scale` times
    /// its `lengthScale`; `angle` turned with it; `vx`, `vy` through its linear part, per second of
    /// the job; `alpha` times the opacities. Other plan fields are left as the plugin gave them. A
    /// layer without transform or opacity below 1 is left as it is.
    var placed: JSONValue {
        guard let list = items.arrayValue, placement != nil || opacity != 1 else { return items }
        return .array(
            list.map { item in
                guard var object = item.objectValue else { return item }
                if let placement { place(&object, by: placement) }
                if opacity != 1, let alpha = object["alpha"]?.doubleValue { object["alpha"] = .number(alpha * opacity) }
                return .object(object)
            })
    }

    private func place(_ object: inout JSONObject, by map: AffineMap) {
        if let x = object["x"]?.doubleValue, let y = object["y"]?.doubleValue {
            let point = map.apply(Point(x, y))
            (object["x"], object["y"]) = (.number(point.x), .number(point.y))
        }
        if let vx = object["vx"]?.doubleValue, let vy = object["vy"]?.doubleValue {
            let velocity = map.applyVector(Point(vx, vy)) * rate
            (object["vx"], object["vy"]) = (.number(velocity.x), .number(velocity.y))
        }
        if let angle = object["angle"]?.doubleValue { object["angle"] = .number(map.direction(angle)) }
        if let scale = object["scale"]?.doubleValue { object["scale"] = .number(scale * map.lengthScale) }
        if var plan = object["plan"]?.objectValue, let path = plan["path"]?.arrayValue {
            plan["path"] = .array(
                path.map { entry in
                    guard let pair = entry.arrayValue, pair.count == 2, let x = pair[0].doubleValue,
                        let y = pair[1].doubleValue
                    else { return entry }
                    let point = map.apply(Point(x, y))
                    return .array([.number(point.x), .number(point.y)])
                })
            object["plan"] = .object(plan)
        }
    }
}

/// A plugin's trace function failed.
package struct TraceError: Error, Equatable, CustomStringConvertible {
    package var frame: Int
    package var layer: Int
    package var message: String
    package var description: String { "frame \(frame), layer \(layer): \(message)" }
}
