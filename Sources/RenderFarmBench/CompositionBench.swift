import Foundation

/// Issue 27's row: the same 50-heart layer drawn plain, at opacity 0.5 (a surface of its own,
/// composited with an alpha) and inside a group, at `-j 2`: fps and the cost against plain (goal:
/// at most 1.3× plain). `--quick` renders a quarter of the frames.
struct CompositionBench {
    var runner: Runner
    var quick: Bool

    static let frames = 240

    /// The lines of the section, ready to print.
    func run() throws -> [String] {
        let count = quick ? Self.frames / 4 : Self.frames
        var lines = ["", "composing layers (issue 27): 50 hearts at 750×1334 px, \(count) frames, -j 2"]
        var plain: Double?
        for (label, fields) in [("plain", ""), ("opacity 0.5", #", "opacity": 0.5"#), ("inside a group", "group")] {
            note("layers: 50 hearts \(label)")
            let url = runner.scratch.appendingPathComponent("composition.json")
            try Self.job(fields).write(to: url, atomically: true, encoding: .utf8)
            let output = runner.scratch.appendingPathComponent("out-composition").path
            try? FileManager.default.removeItem(atPath: output)
            defer { try? FileManager.default.removeItem(atPath: output) }
            let run = ChildProcess.run([
                runner.renderfarm, "render", url.path, "--out", output, "--progress", "none", "-j", "2", "--frames",
                "0-\(count - 1)",
            ])
            guard run.exitCode == 0 else {
                throw Runner.Failure.failed("composition bench render exited \(run.exitCode)")
            }
            let fps = Double(count) / max(run.seconds, 1e-9)
            let cost = plain.map { String(format: ", %.2f× plain's time", $0 / fps) } ?? ""
            plain = plain ?? fps
            lines.append(StreamBench.row("50 hearts \(label)", String(format: "%.1f fps%@", fps, cost), run.peakKiB))
        }
        return lines
    }

    /// 50 hearts emitted over the first two seconds, each living 6 s, as a plain layer, with
    /// `fields`, or (`"group"`) as the one layer of a group.
    static func job(_ fields: String) -> String {
        let times = (0..<50).map { String(format: "%.2f", Double($0) * 0.04) }.joined(separator: ", ")
        let hearts =
            #"{ "effect": "floating-heart", "params": {"times": [\#(times)], "lifetime": 6, "emitter": [187, 600]}"#
        let layer = fields == "group" ? #"{ "group": [\#(hearts) }] }"# : hearts + fields + " }"
        return """
            { "name": "composition", "seed": 27, "fps": 30, "duration": \(Double(frames) / 30),
              "canvas": {"width": 375, "height": 667, "scale": 2}, "output": {"compression": "fast"},
              "layers": [ \(layer) ] }
            """
    }
}
