import CairoKit
import Foundation
import StrictJSON

/// A job `make bench` renders, with the frames it measures.
struct ReferenceJob {
    /// The label in the table.
    var label: String
    /// The job file; a missing file skips the row with a note.
    var path: String
    /// First frame measured (after the effects reach their steady state).
    var firstFrame: Int
    /// Frames per measured run, full and `--quick`.
    var frames: Int
    var quickFrames: Int
    /// The speed-up over `cairo_surface_write_to_png` the issue asks for (nil: drawing-bound).
    var naiveTarget: Double? = nil

    /// The frame set of a run of `count` frames, for `--frames`.
    func frameSet(count: Int) -> String { "\(firstFrame)-\(firstFrame + count - 1)" }

    /// The reference jobs: the bench's own files, then the repository's live-stream example.
    static func all(packageRoot: URL) -> [ReferenceJob] {
        let own = packageRoot.appendingPathComponent("Sources/RenderFarmBench/Jobs")
        return [
            ReferenceJob(
                label: "1080p opaque, 50 hearts", path: own.appendingPathComponent("hd-opaque.json").path,
                firstFrame: 420, frames: 120, quickFrames: 10, naiveTarget: 4),
            ReferenceJob(
                label: "720p transparent, 50 hearts",
                path: own.appendingPathComponent("hd720-transparent.json").path,
                firstFrame: 420, frames: 120, quickFrames: 10, naiveTarget: 3),
            ReferenceJob(
                label: "1080p, 500 hearts", path: own.appendingPathComponent("hd-500-items.json").path,
                firstFrame: 360, frames: 60, quickFrames: 6),
            ReferenceJob(
                label: "live-stream (3 effects)",
                path: packageRoot.appendingPathComponent("jobs/live-stream.json").path,
                firstFrame: 0, frames: 120, quickFrames: 10),
        ]
    }
}

/// What the hand-written C floor needs to know about a job besides the hearts: canvas,
/// background, PNG settings, stroke and an optional gradient layer. `unsupported` is set when
/// the job has layers it cannot draw (any effect but one optional bottom `gradient` and
/// `floating-heart` layers); the bench then uses the plugin ABI host (`HostPlan`) instead.
struct FloorScene {
    var pixelWidth: Int
    var pixelHeight: Int
    var scale: Double
    var width: Double
    var height: Double
    var background: [Double]
    var level: Int
    var adaptive: Bool
    var stroke: [Double]
    var gradient: (from: [Double], to: [Double], angle: Double, vignette: Double)?
    /// Why the floor cannot draw this job, when it cannot.
    var unsupported: String?

    init(jobFile path: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let job = try JSONParser.parse(Array(data)).objectValue ?? JSONObject()
        let canvas = job["canvas"]?.objectValue ?? JSONObject()
        width = canvas["width"]?.doubleValue ?? 375
        height = canvas["height"]?.doubleValue ?? 667
        scale = canvas["scale"]?.doubleValue ?? 2
        pixelWidth = Int((width * scale).rounded())
        pixelHeight = Int((height * scale).rounded())
        background = Self.color(canvas["background"]?.stringValue ?? "#00000000")
        let compression = (job["output"]?.objectValue ?? JSONObject())["compression"]
        switch compression?.stringValue {
        case "fast": (level, adaptive) = (1, false)
        case "small": (level, adaptive) = (9, true)
        default:
            level = Int(compression?.doubleValue ?? 1)
            adaptive = level >= 4
        }
        stroke = [1, 1, 1, 1]
        let layers = job["layers"]?.arrayValue ?? []
        for (index, layer) in layers.enumerated() {
            let effect = layer.objectValue?["effect"]?.stringValue ?? ""
            let params = layer.objectValue?["params"]?.objectValue ?? JSONObject()
            switch effect {
            case "gradient" where index == 0:
                gradient = (
                    Self.color(params["from"]?.stringValue ?? "#1B1B2F"),
                    Self.color(params["to"]?.stringValue ?? "#3A1C71"),
                    params["angle"]?.doubleValue ?? 90, params["vignette"]?.doubleValue ?? 0
                )
            case "floating-heart":
                stroke = Self.color(params["stroke"]?.stringValue ?? "#FFFFFF")
            default:
                unsupported = (unsupported.map { $0 + ", " } ?? "no C version of ") + effect
            }
        }
    }

    /// `#RRGGBB[AA]` as straight components in 0…1, parsed by CairoKit as the engine parses it.
    static func color(_ hex: String) -> [Double] {
        let color = Color(hex: hex) ?? .black
        return [color.red, color.green, color.blue, color.alpha]
    }
}
