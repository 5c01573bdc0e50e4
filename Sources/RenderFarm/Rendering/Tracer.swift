import EffectKit
import RenderFarmJobs
import StrictJSON

/// The motion of a job as numbers, no pixels: each layer's items at each frame, from the
/// plugins' optional `trace` function (`renderfarm trace`, fidelity tests).
package enum Tracer {
    /// One JSON object per frame of `frames` (default: the job's frame set), in frame order:
    /// `{"frame": 30, "time": 0.5, "layers": [{"layer": 0, "effect": "…", "items": […]}]}`.
    /// Layers whose plugin cannot trace are left out: those without a `trace` function, and those
    /// whose `trace` answers `RF_ERROR_UNSUPPORTED` (the optional function is then "not offered",
    /// as Swift plugins built with an older EffectKit say), which `untraced` hears of once each.
    package static func trace(
        _ job: PlannedJob, frames: FrameSet? = nil, untraced: (_ layer: Int, _ effect: String) -> Void = { _, _ in }
    ) throws(TraceError) -> [JSONValue] {
        var lines: [JSONValue] = []
        var skipped: Set<Int> = []
        for index in (frames ?? job.frames).frames {
            var layers: [JSONValue] = []
            for (layer, instance) in job.layers.enumerated()
            where instance.plugin.info.canTrace && !skipped.contains(layer) {
                guard let frame = job.abiFrame(index, layer: layer) else { continue }
                switch instance.trace(frame: frame) {
                case .success(let items):
                    let items = job.spec.isComposed ? placed(items, clock: job.clocks[layer], at: job.spec.time(ofFrame: index)) : items
                    layers.append(
                        .object([
                            "layer": .number(Double(layer)), "effect": .string(instance.plugin.info.id), "items": items,
                        ]))
                case .failure(let error) where error.isUnsupported:
                    skipped.insert(layer)
                    untraced(layer, instance.plugin.info.id)
                case .failure(let error):
                    throw TraceError(frame: index, layer: layer, message: error.message)
                }
            }
            lines.append(
                .object([
                    "frame": .number(Double(index)), "time": .number(job.spec.time(ofFrame: index)),
                    "layers": .array(layers),
                ]))
        }
        return lines
    }
}

extension Tracer {
    /// Items as they land on the canvas: `position` through the transforms of the layer and its
    /// groups, `alpha` times their opacities (what a layer that composes shows where).
    static func placed(_ items: JSONValue, clock: LayerClock, at time: Double) -> JSONValue {
        guard let list = items.arrayValue else { return items }
        let opacity = clock.opacity(at: time) ?? 1
        return .array(
            list.map { item in
                guard var object = item.objectValue else { return item }
                if let pair = object["position"]?.arrayValue, pair.count == 2, let x = pair[0].doubleValue,
                    let y = pair[1].doubleValue, let placed = clock.place(Point(x, y), at: time)
                {
                    object["position"] = .array([.number(placed.x), .number(placed.y)])
                }
                if let alpha = object["alpha"]?.doubleValue { object["alpha"] = .number(alpha * opacity) }
                return .object(object)
            })
    }
}

/// A plugin's trace function failed.
package struct TraceError: Error, Equatable, CustomStringConvertible {
    package var frame: Int
    package var layer: Int
    package var message: String
    package var description: String { "frame \(frame), layer \(layer): \(message)" }
}
