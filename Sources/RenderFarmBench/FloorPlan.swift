import Foundation
import StrictJSON

/// Writes the plan the C floor draws from: the scene and, per frame, every visible heart as
/// `renderfarm trace` reports it (the same numbers the plugin draws with).
enum FloorPlan {
    enum Failure: Error, CustomStringConvertible {
        case trace(String)
        var description: String {
            switch self {
            case .trace(let message): message
            }
        }
    }

    /// Traces `frames` of the job with `renderfarm` and writes the plan to `path`.
    static func write(
        scene: FloorScene, job: String, frames: String, renderfarm: String, scratch: URL,
        to path: String
    ) throws {
        let traceFile = scratch.appendingPathComponent("trace.jsonl").path
        let run = ChildProcess.run([renderfarm, "trace", job, "--frames", frames], stdout: traceFile)
        guard run.exitCode == 0 else { throw Failure.trace("renderfarm trace \(job) exited \(run.exitCode)") }
        let text = try Data(contentsOf: URL(fileURLWithPath: traceFile))
        try? FileManager.default.removeItem(atPath: traceFile)

        var values: [Double] = [
            Double(0x5246_4250), 1, Double(scene.pixelWidth), Double(scene.pixelHeight),
            scene.scale, scene.width, scene.height,
        ]
        values += scene.background
        values += [Double(scene.level), scene.adaptive ? 1 : 0]
        values += scene.stroke
        if let gradient = scene.gradient {
            values += [1] + gradient.from + gradient.to + [gradient.angle, gradient.vignette]
        } else {
            values += [0] + [Double](repeating: 0, count: 10)
        }
        let lines = text.split(separator: UInt8(ascii: "\n"))
        values.append(Double(lines.count))
        let limits = JSONParser.Limits(
            maxBytes: 1 << 30, maxDepth: 64, maxStringBytes: 1 << 20,
            maxContainerCount: 10_000_000)
        for line in lines {
            let frame = try JSONParser.parse(line, limits: limits).objectValue ?? JSONObject()
            var hearts: [Double] = []
            var count = 0
            let layers = frame["layers"]?.arrayValue ?? []
            for layer in layers where layer.objectValue?["effect"]?.stringValue == "floating-heart" {
                for item in layer.objectValue?["items"]?.arrayValue ?? [] {
                    guard let heart = item.objectValue, heart["visible"]?.boolValue == true,
                        let plan = heart["plan"]?.objectValue
                    else { continue }
                    let number = { (key: String) in heart[key]?.doubleValue ?? 0 }
                    hearts += [
                        number("x"), number("y"), number("scale"), number("alpha"),
                        plan["size"]?.doubleValue ?? 0,
                    ]
                    hearts += FloorScene.color(plan["color"]?.stringValue ?? "#000000").prefix(3)
                    count += 1
                }
            }
            values += [frame["frame"]?.doubleValue ?? 0, Double(count)] + hearts
        }
        // Native-endian doubles; the C floor runs on the same machine.
        let bytes = values.withUnsafeBytes { Data($0) }
        try bytes.write(to: URL(fileURLWithPath: path))
    }
}
