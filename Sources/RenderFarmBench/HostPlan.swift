import Foundation
import RenderFarm
import RenderFarmJobs
import StrictJSON

/// Writes the plan of the C floor's plugin ABI host (`Sources/RenderFarmBenchFloor/floor_host.c`),
/// for jobs whose effects have no hand-written C version: the host loads the same plugin
/// libraries and creates every layer exactly as the engine does. Nothing here re-derives what
/// the engine decides: the job is prepared by `RenderPlan` (defaults filled by the parameter
/// validator, seeds derived, instances created), and `params_json` and each getter's answer come
/// from the engine's own `ParamStore`.
///
/// Text, one record per line; numbers in Swift's shortest round-trip form (read back exactly by
/// `strtod`), seeds as decimal integers, strings as `<byte count>:<bytes>` so they may hold
/// anything:
///
///     RFHOST 1
///     canvas <px width> <px height> <width pt> <height pt> <scale>
///     time <fps> <duration> <frame count of the job>
///     background <r> <g> <b> <a>
///     png <level> <adaptive 0/1>
///     jobdir <s>
///     layers <n>
///     layer <library path s> <effect id s> <start> <seed> <params_json s> <param count>
///     param <name s> <has number 0/1> <number> <numbers count> <numbers…> <has string 0/1> <string s> <json s>
///     frames <n>
///     frame <index> <time> <file name s>
enum HostPlan {
    enum Failure: Error, CustomStringConvertible {
        case prepare(String)
        var description: String {
            switch self {
            case .prepare(let message): "C host plan: \(message)"
            }
        }
    }

    /// Prepares `job` for `frames` with the plugins `renderfarm` would load (the same search path:
    /// RENDERFARM_PLUGIN_PATH, then the build folder both binaries sit in) and writes the plan.
    static func write(job path: String, frames: String, scratch: URL, to plan: String) throws {
        let prepared: PlannedJob
        do {
            let loaded = try JobLoader.load(path)
            let catalog = PluginCatalog.discover(searchPath: PluginCatalog.searchPath())
            let options = PlanOptions(outputOverride: scratch.appendingPathComponent("out-plan").path, frames: frames)
            guard let first = try RenderEngine(catalog: catalog, options: options).prepare([loaded]).first else {
                throw Failure.prepare("\(path): nothing to render")
            }
            prepared = first
        } catch let error as Failure {
            throw error
        } catch {
            throw Failure.prepare("\(error)")
        }
        let spec = prepared.job.spec
        let canvas = spec.canvas
        let background = canvas.background
        let compression = spec.output.compression
        var text = "RFHOST 1\n"
        text += line("canvas", canvas.pixelWidth, canvas.pixelHeight, canvas.width, canvas.height, canvas.scale)
        text += line("time", spec.fps, spec.duration, spec.frameCount)
        text += line("background", background.red, background.green, background.blue, background.alpha)
        text += line("png", compression.level, compression.adaptiveFilters ? 1 : 0)
        text += line("jobdir", string(prepared.job.directory))
        let layers = prepared.layerCreations
        text += line("layers", layers.count)
        for layer in layers {
            let store = ParamStore(layer.params)
            text += line(
                "layer", string(layer.plugin.path), string(layer.plugin.id), layer.start, layer.seed,
                string(store.paramsJSON), layer.params.count)
            for name in layer.params.keys {
                let numbers = store.numbers(name) ?? []
                let number = store.number(name)
                let value = store.string(name)
                let words: [any CustomStringConvertible] =
                    [string(name), number == nil ? 0 : 1, number ?? 0, numbers.count] + numbers
                    + [value == nil ? 0 : 1, string(value ?? ""), string(store.json(name) ?? "null")]
                text += joined("param", words)
            }
        }
        let indices = prepared.frames.frames
        text += line("frames", indices.count)
        for index in indices {
            text += line("frame", index, spec.time(ofFrame: index), string(spec.output.fileName(ofFrame: index)))
        }
        try Data(text.utf8).write(to: URL(fileURLWithPath: plan))
    }

    /// A length-prefixed string: its UTF-8 byte count, a colon, the bytes.
    private struct Counted: CustomStringConvertible {
        var text: String
        var description: String { "\(text.utf8.count):\(text)" }
    }

    private static func string(_ text: String) -> Counted { Counted(text: text) }

    private static func line(_ key: String, _ words: any CustomStringConvertible...) -> String {
        joined(key, words)
    }

    /// `key` and the words separated by spaces; a Double prints in its shortest round-trip form.
    private static func joined(_ key: String, _ words: [any CustomStringConvertible]) -> String {
        ([key] + words.map { "\($0)" }).joined(separator: " ") + "\n"
    }
}
