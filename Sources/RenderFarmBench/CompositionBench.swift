import Foundation

/// What each kind of layer costs (issues 27 and 47): the same 50-heart layer drawn plain, then at opacity 0.5 (a
/// surface of its own, composited with an alpha), inside a group, placed as a composition, with a blend mode, through a mask, over an image
/// layer, over a shape layer, plain again under `render --isolate`, with each layer style and with motion blur, at `-j 2`: fps and
/// the time against plain's, whose goal is at most 1.3× (the styles' cost is stated, with no goal). Then sound mixing: `render --video` of the plain job, the new baseline, and
/// of the same job with a music bed and a sound at each heart's birth (mixed and muxed into the video).
/// `--quick` renders a quarter of the frames.
struct CompositionBench {
    var runner: Runner
    var packageRoot: URL
    var quick: Bool

    static let frames = 240
    /// The most a kind of layer may cost against plain.
    static let goal = 1.3

    /// One row: its label, the job's layers, and extra `render` arguments.
    struct Variant {
        var label: String
        var layers: String
        var arguments: [String] = []
        /// Whether the row renders straight into a video (`render --video`) instead of PNGs.
        var video = false
        /// The job's `audio` section, if any.
        var audio: String? = nil
        /// Whether this row is the one the rows after it are compared with, instead of the first.
        var baseline = false
        /// The most the row may cost against its baseline; nil: its cost is stated, with no goal.
        var goal: Double? = CompositionBench.goal
    }

    /// The rows, plain first.
    static var variants: [Variant] {
        let hearts = heartsLayer
        let star =
            #"{ "effect": "image", "params": {"file": "star.png", "rect": {"x": 60, "y": 120, "width": 255, "height": 255}} }"#
        let stops = ##"[[0, "#1E3C72"], [1, "#F7B733"]]"##
        let gradient =
            #"{ "effect": "shape", "params": {"kind": "rect", "fill": {"linear": [[0, 0], [0, 667]], "stops": \#(stops)}} }"#
        let matte = ##"{ "name": "matte", "effect": "shape", "params": {"kind": "ellipse", "fill": "#FFFFFF"} }"##
        return [
            Variant(label: "plain", layers: hearts + " }"),
            Variant(label: "opacity 0.5", layers: hearts + #", "opacity": 0.5 }"#),
            Variant(label: "inside a group", layers: #"{ "group": [\#(hearts) }] }"#),
            // The same layer in a job file of its own (`hearts.json`, written by `run`), placed: a group cut to its canvas.
            Variant(label: "placed as a composition", layers: #"{ "composition": "hearts.json" }"#),
            Variant(label: "blend multiply", layers: hearts + #", "blend": "multiply" }"#),
            Variant(label: "through an alpha mask", layers: matte + ", " + hearts + #", "mask": {"layer": "matte"} }"#),
            Variant(label: "over an image layer", layers: star + ", " + hearts + " }"),
            Variant(label: "over a shape layer", layers: gradient + ", " + hearts + " }"),
            Variant(label: "plain, render --isolate", layers: hearts + " }", arguments: ["--isolate"]),
        ]
            + styles.map { label, style in
                Variant(label: "with " + label, layers: hearts + #", "style": \#(style) }"#, goal: nil)
            } + [
                Variant(label: "with motion blur (8 samples)", layers: hearts + #", "motionBlur": true }"#, goal: nil),
                Variant(label: "plain, render --video", layers: hearts + " }", video: true, baseline: true),
                Variant(
                    label: "with a music bed and 50 sounds, render --video", layers: hearts + " }", video: true,
                    audio: soundTrack),
            ]
    }

    /// Layer styles (issue 49), each on its own: what drawing it from the layer's pixels costs.
    static let styles = [
        ("a drop shadow (blur 10)", #"{"dropShadow": {"blur": 10}}"#),
        ("an outer glow (blur 10, spread 2)", #"{"outerGlow": {"blur": 10, "spread": 2}}"#),
        ("an inner glow (blur 6)", #"{"innerGlow": {"blur": 6}}"#),
        ("a stroke (3 pt outside)", #"{"stroke": {"width": 3}}"#),
        ("a blur (4 pt)", #"{"blur": 4}"#),
        ("colour adjustments (saturation -1)", #"{"adjust": {"saturation": -1}}"#),
    ]

    /// The lines of the section, ready to print.
    func run() throws -> [String] {
        let count = quick ? Self.frames / 4 : Self.frames
        var lines = [
            "",
            "composing layers (issues 27, 47): 50 hearts at 750×1334 px, \(count) frames, -j 2; goal: at most "
                + "\(Self.goal)× plain's time",
        ]
        let folder = runner.scratch.appendingPathComponent("composition")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for asset in ["star.png", "bed.ogg", "ding.mp3"] {
            let copy = folder.appendingPathComponent(asset)
            try? FileManager.default.removeItem(at: copy)
            try FileManager.default.copyItem(at: packageRoot.appendingPathComponent("jobs/assets/" + asset), to: copy)
        }
        try Self.job(Self.heartsLayer + " }").write(
            to: folder.appendingPathComponent("hearts.json"), atomically: true, encoding: .utf8)
        var plain: Double?
        for variant in Self.variants {
            note("layers: 50 hearts \(variant.label)")
            let url = folder.appendingPathComponent("composition.json")
            try Self.job(variant.layers, audio: variant.audio).write(to: url, atomically: true, encoding: .utf8)
            let output = folder.appendingPathComponent(variant.video ? "composition.mp4" : "out").path
            try? FileManager.default.removeItem(atPath: output)
            defer { try? FileManager.default.removeItem(atPath: output) }
            let run = ChildProcess.run(
                [
                    runner.renderfarm, "render", url.path, variant.video ? "--video" : "--out", output, "--progress",
                    "none", "-j", "2", "--frames", "0-\(count - 1)",
                ] + variant.arguments)
            guard run.exitCode == 0 else {
                throw Runner.Failure.failed("composition bench render (\(variant.label)) exited \(run.exitCode)")
            }
            let fps = Double(count) / max(run.seconds, 1e-9)
            if variant.baseline { plain = nil }
            let cost = plain.map { plain in
                let ratio = plain / fps
                guard let goal = variant.goal else { return String(format: ", %.2f× plain's time", ratio) }
                return String(format: ", %.2f× plain's time: %@", ratio, ratio <= goal ? "met" : "NOT met")
            }
            plain = plain ?? fps
            lines.append(
                StreamBench.row(
                    "50 hearts \(variant.label)", String(format: "%.1f fps", fps) + (cost ?? ""), run.peakKiB))
        }
        return lines
    }

    /// 50 hearts emitted over the first two seconds, each living 6 s, without the closing brace (a variant adds
    /// its fields).
    static var heartsLayer: String {
        #"{ "effect": "floating-heart", "params": {"times": [\#(birthTimes)], "lifetime": 6, "emitter": [187, 600]}"#
    }

    /// The 50 hearts' birth times, one every 0.04 s, as a JSON list's elements.
    static var birthTimes: String {
        (0..<50).map { String(format: "%.2f", Double($0) * 0.04) }.joined(separator: ", ")
    }

    /// A music bed and a chime at each heart's birth (the times of `heartsLayer`), as an `audio` section.
    static var soundTrack: String {
        #"{ "music": {"file": "bed.ogg", "gain": -6}, "sounds": [{"file": "ding.mp3", "at": [\#(birthTimes)]}] }"#
    }

    /// A job of `layers` at 375×667 points, scale 2, with `audio` as its sound when given.
    static func job(_ layers: String, audio: String? = nil) -> String {
        """
        { "name": "composition", "seed": 27, "fps": 30, "duration": \(Double(frames) / 30),
          "canvas": {"width": 375, "height": 667, "scale": 2}, "output": {"compression": "fast"},
          "layers": [ \(layers) ]\(audio.map { ", \"audio\": " + $0 } ?? "") }
        """
    }
}
