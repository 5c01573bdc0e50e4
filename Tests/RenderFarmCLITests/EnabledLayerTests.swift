import Foundation
import Testing

/// `"enabled": false` on a layer or group (RenderFarm article ComposingLayers, "Turning layers off"): the job
/// renders as if the file did not have it, its inputs unread, and a variant's column can switch it.
@Suite("enabled: layers turned off")
struct EnabledLayerTests {
    /// Frame `frame` of the job `text` at a quarter of its size, written as `name` in `folder`, as PNG bytes.
    static func frame(_ text: String, named name: String, in folder: TemporaryFolder, frame: Int) throws -> Data {
        let job = try folder.write(text, to: name)
        let out = folder.path + "/out-" + name
        let render = CLI.run([
            "render", job, "--frames", "\(frame)", "--scale", "0.25", "--out", out, "--progress", "none",
        ])
        try #require(render.status == 0, "\(name): \(render.stderr)")
        return try Data(contentsOf: URL(fileURLWithPath: out + String(format: "/frame_%05d.png", frame)))
    }

    /// `job` (parsed JSON) with each entry at `paths` (`layers[2]`, `layers[6].group[0]`) changed by `change`
    /// (nil: taken out), deepest and last first so the other paths stay right.
    static func editing(_ job: [String: Any], _ paths: [String], _ change: ([String: Any]) -> [String: Any]?)
        -> [String: Any]
    {
        var job = job
        // [top] or [top, child]: the places in the group's list first, then the top-level ones, each from the last.
        let places = paths.map { $0.split(whereSeparator: { "[].".contains($0) }).compactMap { Int($0) } }
            .sorted { $0.count != $1.count ? $0.count > $1.count : $1.lexicographicallyPrecedes($0) }
        for place in places {
            var layers = job["layers"] as? [Any] ?? []
            let top = place[0]
            if place.count == 1 {
                if let changed = change(layers[top] as? [String: Any] ?? [:]) {
                    layers[top] = changed
                } else {
                    layers.remove(at: top)
                }
            } else {
                var group = layers[top] as? [String: Any] ?? [:]
                var children = group["group"] as? [Any] ?? []
                let child = place[1]
                if let changed = change(children[child] as? [String: Any] ?? [:]) {
                    children[child] = changed
                } else {
                    children.remove(at: child)
                }
                group["group"] = children
                layers[top] = group
            }
            job["layers"] = layers
        }
        return job
    }

    static func text(_ job: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: job, options: [.sortedKeys]), as: UTF8.self)
    }

    @Test("random layers and group layers turned off: each frame is the frame of the file without them (seeded)")
    func offIsTakenOut() throws {
        let original = try #require(
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: Binary.packageRoot.appendingPathComponent("jobs/gift-basket.json")))
                as? [String: Any])
        // Every entry but the group's mask and the layer it masks (a mask needs its layer: its own test).
        let choices = (0..<8).map { "layers[\($0)]" } + ["layers[6].group[0]", "layers[6].group[3]"]
        var random = FuzzRandom(seed: 49)
        for run in 0..<6 {
            var off = choices.filter { _ in random.chance(0.35) }
            // Not every top-level entry: a job needs a layer that draws.
            if off.isEmpty || choices.prefix(8).allSatisfy(off.contains) { off = [choices[run]] }
            // A group's layer under a group that is off is off with it: taken out once.
            let removed = off.contains("layers[6]") ? off.filter { !$0.hasPrefix("layers[6].") } : off
            let frame = random.integer(0...149)
            let folder = try TemporaryFolder()
            let turnedOff = try Self.frame(
                try Self.text(Self.editing(original, off) { $0.merging(["enabled": false]) { $1 } }),
                named: "off.json", in: folder, frame: frame)
            let takenOut = try Self.frame(
                try Self.text(Self.editing(original, removed) { _ in nil }), named: "out.json", in: folder,
                frame: frame)
            #expect(turnedOff == takenOut, "run \(run): frame \(frame) with \(off) turned off")
        }
    }

    @Test("a variants column switches footage off: that variant reads no footage and draws as the job without it")
    func variantSwitch() throws {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(
            at: folder.url.appendingPathComponent("assets"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: Binary.packageRoot.appendingPathComponent("jobs/assets/footage-stream.mp4"),
            to: folder.url.appendingPathComponent("assets/footage-stream.mp4"))
        try folder.write("look,footage\nwith,true\nplain,false\n", to: "looks.csv")
        let hearts = #"{"effect": "floating-heart", "params": {"emitter": [187, 600], "rate": 6}}"#
        let footage = #"{"effect": "video", "params": {"file": "assets/footage-stream.mp4", "fit": "cover"}"#
        let head =
            #"{"name": "v", "seed": 3, "fps": 30, "duration": 2, "canvas": {"width": 375, "height": 667, "scale": 1}, "#
        let job = try folder.write(
            head
                + #""layers": [\#(footage), "enabled": "{{footage}}"}, \#(hearts)], "variants": {"rows": "looks.csv", "name": "{{look}}"}}"#,
            to: "v.json")
        let validate = CLI.run(["validate", job])
        #expect(validate.status == 0, "\(validate.stderr)")
        var inputs: [String: [String]] = [:]
        var frames: [String: Data] = [:]
        for look in ["with", "plain"] {
            let out = folder.path + "/out-" + look
            let render = CLI.run([
                "render", job, "--variants", look, "--frames", "20", "--scale", "0.25", "--out", out, "--progress",
                "none",
            ])
            try #require(render.status == 0, "\(look): \(render.stderr)")
            let manifest =
                try JSONSerialization.jsonObject(
                    with: Data(contentsOf: URL(fileURLWithPath: out + "/manifest.json"))) as? [String: Any]
            inputs[look] = ((manifest?["inputs"] as? [[String: Any]]) ?? []).compactMap { $0["file"] as? String }
            frames[look] = try Data(contentsOf: URL(fileURLWithPath: out + "/frame_00020.png"))
        }
        #expect(inputs["with"]?.contains { $0.hasSuffix("footage-stream.mp4") } == true, "\(inputs)")
        #expect(inputs["plain"]?.contains { $0.hasSuffix("footage-stream.mp4") } == false, "\(inputs)")
        let without = try Self.frame(
            head + #""layers": [\#(hearts)]}"#, named: "without.json", in: folder, frame: 20)
        #expect(frames["plain"] == without, "the variant with footage off is not the job without it")
        #expect(frames["with"] != without)
    }

    @Test("enabled takes true or false; a mask naming a layer that is off, and a job with every layer off, are refused")
    func refused() throws {
        let folder = try TemporaryFolder()
        let base =
            #"{"name": "r", "fps": 10, "duration": 1, "canvas": {"width": 32, "height": 32, "scale": 1}, "layers": "#
        for (layers, expected) in [
            (#"[{"effect": "gradient", "enabled": "no"}]"#, #"layers[0].enabled: expected true or false, got "no""#),
            (
                #"[{"effect": "gradient"}, {"name": "m", "effect": "gradient", "enabled": false}, {"effect": "gradient", "mask": {"layer": "m"}}]"#,
                #"layers[2].mask.layer: "m" is turned off ("enabled": false)"#
            ),
            (
                #"[{"effect": "gradient", "enabled": false}, {"group": [{"effect": "gradient"}], "enabled": false}]"#,
                #"layers: every layer is turned off ("enabled": false)"#
            ),
        ] {
            let job = try folder.write(base + layers + "}", to: "r.json")
            let result = CLI.run(["validate", job])
            #expect(result.status == 65 && result.stderr.contains(expected), "\(layers): \(result.stderr)")
        }
        // A layer that is off is not checked beyond its own fields: an unknown effect there is no problem.
        let job = try folder.write(
            base + #"[{"effect": "gradient"}, {"effect": "no-such-effect", "params": {"x": 1}, "enabled": false}]}"#,
            to: "ok.json")
        let result = CLI.run(["validate", job])
        #expect(result.status == 0, "\(result.stderr)")
    }
}
