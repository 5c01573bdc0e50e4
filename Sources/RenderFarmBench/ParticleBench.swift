import Foundation

/// Issue 50's rows: 5,000 live particles at 1080p (EffectKit article ParticlesEffect) over 50 floating hearts and a
/// gradient, against the hearts and gradient alone ("plain"), at `-j 2`: fps, the time against plain's, and peak
/// RSS. Confetti (spinning rectangles, the common case) and sparks (a soft sprite, added). `--quick` renders a
/// quarter of the frames.
struct ParticleBench {
    var runner: Runner
    var quick: Bool

    static let frames = 120
    /// Particles alive in every frame: the birth rate times the lifetime, full from the first frame.
    static let alive = 5_000

    /// The rows: label and the particle layer (nil: the gradient alone).
    static let variants: [(label: String, layer: String?)] = [
        ("plain (50 hearts over a gradient)", nil),
        ("5,000 confetti", cell(#""contents": "rectangle", "size": [14, 7], "spin": 3, "spinRange": 6"#)),
        ("5,000 sparks, additive", cell(#""contents": "spark", "size": 18"#, renderMode: "additive")),
    ]

    /// A layer whose one cell keeps `alive` particles on the canvas, spread over it, each 2 s old at most.
    static func cell(_ contents: String, renderMode: String = "unordered") -> String {
        """
        , { "effect": "particles", "params": { "emitterPosition": [960, 540], "emitterShape": "rectangle",
            "emitterSize": [1920, 1080], "timeOffset": 2, "renderMode": "\(renderMode)",
            "cells": [ { \(contents), "birthRate": \(alive / 2), "lifetime": 2, "velocity": 60, "velocityRange": 30,
              "emissionRange": 6.283, "yAcceleration": 40, "color": "#FF6F61", "greenRange": 0.4, "blueRange": 0.4,
              "alphaSpeed": -0.3 } ] } }
        """
    }

    /// The lines of the section, ready to print.
    func run() throws -> [String] {
        let count = quick ? Self.frames / 4 : Self.frames
        var lines = ["", "particles (issue 50): \(Self.alive) live particles at 1920×1080 px, \(count) frames, -j 2"]
        var plain: Double?
        for (label, layer) in Self.variants {
            note("particles: \(label)")
            let job = runner.scratch.appendingPathComponent("particles.json")
            try Self.job(layer ?? "").write(to: job, atomically: true, encoding: .utf8)
            let output = runner.scratch.appendingPathComponent("out-particles").path
            try? FileManager.default.removeItem(atPath: output)
            defer { try? FileManager.default.removeItem(atPath: output) }
            let run = ChildProcess.run([
                runner.renderfarm, "render", job.path, "--out", output, "--progress", "none", "-j", "2", "--frames",
                "0-\(count - 1)",
            ])
            guard run.exitCode == 0 else {
                throw Runner.Failure.failed("particle bench render (\(label)) exited \(run.exitCode)")
            }
            let fps = Double(count) / max(run.seconds, 1e-9)
            let cost = plain.map { String(format: ", %.2f× plain's time", $0 / fps) } ?? ""
            plain = plain ?? fps
            lines.append(StreamBench.row(label, String(format: "%.1f fps", fps) + cost, run.peakKiB))
        }
        return lines
    }

    static func job(_ particles: String) -> String {
        """
        { "name": "particles", "seed": 50, "fps": 30, "duration": \(Double(frames) / 30),
          "canvas": {"width": 1920, "height": 1080, "scale": 1}, "output": {"compression": "fast"},
          "layers": [ { "effect": "gradient", "params": {"from": "#0B1E3A", "to": "#2C4F7C", "angle": 90} },
            { "effect": "floating-heart", "params": {"emitter": [960, 1000], "rate": 12.5, "lifetime": 4, "size": 60} }
            \(particles) ] }
        """
    }
}
