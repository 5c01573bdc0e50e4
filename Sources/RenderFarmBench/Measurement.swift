import Foundation
import StrictJSON

/// The programs a row compares: RenderFarm and the three C programs of renderfarm-bench-floor.
enum Variant: String, CaseIterable {
    case renderfarm
    /// libpng directly, same settings: the floor the issue names.
    case floorLibpng = "libpng"
    /// The same C drawing with RenderFarm's C encoder: same bytes as RenderFarm.
    case floorEngine = "engine"
    /// The same C drawing with `cairo_surface_write_to_png`.
    case naive
}

/// Milliseconds per frame spent in each step (RenderFarm's own split, from `--progress json`).
struct FrameSteps {
    var draw = 0.0
    var convert = 0.0
    var encode = 0.0
    var write = 0.0
}

/// One run of one program over a row's frames.
struct Measurement {
    var seconds: Double
    var frames: Int
    var peakKiB: Int
    var bytesPerFrame: Double
    var steps: FrameSteps?

    var fps: Double { seconds > 0 ? Double(frames) / seconds : 0 }
}

/// Runs the programs of a row and measures them.
struct Runner {
    var renderfarm: String
    var floor: String
    var scratch: URL

    enum Failure: Error, CustomStringConvertible {
        case failed(String)
        var description: String {
            switch self {
            case .failed(let message): message
            }
        }
    }

    /// Renders `frames` of `job` with `renderfarm render` into `output`.
    func renderfarm(
        job: String, frames: String, count: Int, concurrency: Int, output: String, extra: [String] = []
    ) throws -> Measurement {
        let log = scratch.appendingPathComponent("progress.jsonl").path
        let run = ChildProcess.run(
            [
                renderfarm, "render", job, "--frames", frames, "--out", output, "-j", String(concurrency), "--force",
                "--progress", "json",
            ] + extra, stderr: log)
        guard run.exitCode == 0 else { throw Failure.failed("renderfarm render \(job) exited \(run.exitCode)") }
        var steps: FrameSteps?
        if let text = try? String(contentsOfFile: log, encoding: .utf8),
            let last = text.split(separator: "\n").last(where: { $0.contains("\"finish\"") }),
            let finish = try? JSONParser.parse(String(last)).objectValue,
            let sums = finish["stepMs"]?.objectValue
        {
            let frames = Double(max(1, count))
            let value = { (key: String) in (sums[key]?.doubleValue ?? 0) / frames }
            steps = FrameSteps(
                draw: value("draw"), convert: value("convert"), encode: value("encode"),
                write: value("write"))
        }
        return Measurement(
            seconds: run.seconds, frames: count, peakKiB: run.peakKiB,
            bytesPerFrame: Self.averagePNGBytes(in: output), steps: steps)
    }

    /// Renders every frame of `plan` with one of the C programs into `output`.
    func floor(_ variant: Variant, plan: String, count: Int, concurrency: Int, output: String) throws -> Measurement {
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        let run = ChildProcess.run([floor, variant.rawValue, plan, output, String(concurrency)])
        guard run.exitCode == 0 else {
            throw Failure.failed("renderfarm-bench-floor \(variant.rawValue) exited \(run.exitCode)")
        }
        return Measurement(
            seconds: run.seconds, frames: count, peakKiB: run.peakKiB,
            bytesPerFrame: Self.averagePNGBytes(in: output))
    }

    static func pngFiles(in folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".png") }
    }

    /// Average size of the PNG files in `folder`.
    static func averagePNGBytes(in folder: String) -> Double {
        let names = pngFiles(in: folder)
        guard !names.isEmpty else { return 0 }
        let total = names.reduce(0) { sum, name in
            let attributes = try? FileManager.default.attributesOfItem(atPath: folder + "/" + name)
            return sum + ((attributes?[.size] as? NSNumber)?.intValue ?? 0)
        }
        return Double(total) / Double(names.count)
    }
}

/// The order in which a round of measurements runs `count` programs: 0, 1, … turned by `round` places, so that
/// over the rounds each program runs first, second, … alike and drift in the machine's load falls on all of them.
func rotation(of count: Int, round: Int) -> [Int] {
    (0..<count).map { ($0 + round) % count }
}

/// The middle value (the mean of the two middle ones for an even count); 0 when empty.
func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return 0 }
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}
