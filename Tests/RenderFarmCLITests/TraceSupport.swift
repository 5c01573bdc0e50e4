import Foundation
import Testing

/// One item of one `renderfarm trace` line, decoded with Foundation (independently of the renderer's JSON).
struct TracedItem {
    let object: [String: Any]

    var id: Int { (object["id"] as? NSNumber)?.intValue ?? -1 }
    var x: Double { number("x") }
    var y: Double { number("y") }
    var vx: Double { number("vx") }
    var vy: Double { number("vy") }
    var visible: Bool { object["visible"] as? Bool ?? false }
    var resting: Bool? { object["resting"] as? Bool }
    var plan: [String: Any] { object["plan"] as? [String: Any] ?? [:] }
    var scale: Double { number("scale") }
    var alpha: Double { number("alpha") }

    func number(_ key: String) -> Double { (object[key] as? NSNumber)?.doubleValue ?? .nan }
    func planNumber(_ key: String) -> Double { (plan[key] as? NSNumber)?.doubleValue ?? .nan }

    /// `plan.path` as (x, y) pairs.
    var path: [(x: Double, y: Double)] {
        (plan["path"] as? [[NSNumber]] ?? []).map { ($0[0].doubleValue, $0[1].doubleValue) }
    }
}

/// One line of `renderfarm trace`.
struct TraceLine {
    let frame: Int
    let time: Double
    /// Items per layer index.
    let layers: [Int: [TracedItem]]
    /// The `matrix` of each layer placed by a transform (cairo's `[xx, yx, xy, yy, x0, y0]`).
    var matrices: [Int: [Double]] = [:]

    func items(layer: Int = 0) -> [TracedItem] { layers[layer] ?? [] }
}

enum Trace {
    /// Runs `renderfarm trace` on a job file and decodes every line; fails the test on a non-zero exit.
    static func run(_ job: String, frames: String? = nil) throws -> [TraceLine] {
        var arguments = ["trace", job]
        if let frames { arguments += ["--frames", frames] }
        let result = CLI.run(arguments)
        try #require(result.status == 0, "trace failed: \(result.stderr)")
        return try decode(result.stdout)
    }

    static func decode(_ text: String) throws -> [TraceLine] {
        try text.split(separator: "\n").map { line in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            var layers: [Int: [TracedItem]] = [:]
            var matrices: [Int: [Double]] = [:]
            for layer in object["layers"] as? [[String: Any]] ?? [] {
                let index = (layer["layer"] as? NSNumber)?.intValue ?? -1
                layers[index] = (layer["items"] as? [[String: Any]] ?? []).map(TracedItem.init)
                matrices[index] = (layer["matrix"] as? [NSNumber])?.map(\.doubleValue)
            }
            return TraceLine(
                frame: (object["frame"] as? NSNumber)?.intValue ?? -1,
                time: (object["time"] as? NSNumber)?.doubleValue ?? .nan,
                layers: layers, matrices: matrices)
        }
    }
}
