import RenderFarm
import RenderFarmJobs
import StrictJSON

/// The JSON shapes of the studio's API that are not the engine's own.
enum StudioJSON {
    /// The width of the preview image the page asks for by default, in pixels.
    static let previewWidth = 540.0

    /// Timing, frame set and canvas of a job, and the scale the page previews it at.
    static func job(_ spec: JobSpec) -> JSONValue {
        let canvas = spec.canvas
        let fitting = min(canvas.scale, previewWidth / canvas.width)
        let previewScale = max(0.05, (fitting * 100).rounded(.down) / 100)
        return .object([
            "name": .string(spec.name), "frameCount": .number(Double(spec.frameCount)), "fps": .number(spec.fps),
            "duration": .number(spec.duration), "width": .number(canvas.width), "height": .number(canvas.height),
            "scale": .number(canvas.scale), "previewScale": .number(previewScale),
            "frames": .string(spec.frames.description),
            "firstFrame": spec.frames.frames.first.map { .number(Double($0)) } ?? .null,
            "lastFrame": spec.frames.frames.last.map { .number(Double($0)) } ?? .null,
        ])
    }

    /// One effect layer: its effect, where it is in the file, when it is drawn in job time (through its groups),
    /// its host-level fields and those of the groups holding it (outermost first), its parameters as written
    /// and its plugin's library. Its parameter table is its effect's, in `GET /api/job`'s `effects`: not
    /// repeated per layer.
    static func layer(_ layer: LayerSpec, clock: LayerClock, plugin: PluginInfo?) -> JSONValue {
        var object: JSONObject = [
            "effect": .string(layer.effect), "start": .number(clock.start),
            "end": clock.end.map(JSONValue.number) ?? .null,
            "path": .string(layer.path), "params": .object(layer.params), "placed": .bool(clock.isPlaced),
            "fields": .array(clock.links.map { .object($0.fields.json) }),
        ]
        if let plugin { object["library"] = .string(plugin.path) }
        return .object(object)
    }

    /// One row of a plugin's parameter table; unbounded ends are null.
    static func parameter(_ parameter: PluginParameter) -> JSONValue {
        .object([
            "name": .string(parameter.name), "kind": .string(parameter.kind.rawValue),
            "default": parameter.defaultValue ?? .null,
            "min": parameter.min.isFinite ? .number(parameter.min) : .null,
            "max": parameter.max.isFinite ? .number(parameter.max) : .null,
            "choices": .array(parameter.choices.map { .string($0) }), "doc": .string(parameter.doc),
            "type": .string(parameter.typeText),
        ])
    }

    /// `{"error": message}`.
    static func error(_ message: String) -> String {
        JSONValue.object(["error": .string(message)]).serialized()
    }
}
