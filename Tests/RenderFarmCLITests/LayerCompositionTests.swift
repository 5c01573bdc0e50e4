import CairoKit
import Foundation
import Testing

/// Host-level layer fields (the RenderFarm article ComposingLayers), read back from the PNGs: the
/// test plugin `test-probe` fills a rectangle with a colour, or with the local time and frame the
/// host asked it for.
@Suite("Layers that compose: blend, opacity, transform, masks, groups, time")
struct LayerCompositionTests {
    static let plugins = ["--plugin-path", Binary.testPluginDirectory]

    /// A probe layer: `rect` filled with `color` (0…1 straight RGBA), plus host-level `fields`.
    static func probe(_ rect: [Double], _ color: [Double], _ fields: String = "") -> String {
        let numbers = { (list: [Double]) in list.map { String($0) }.joined(separator: ", ") }
        return #"{"effect": "test-probe", "params": {"rect": [\#(numbers(rect))], "color": [\#(numbers(color))]}"#
            + (fields.isEmpty ? "" : ", " + fields) + "}"
    }

    /// Renders a 100×100-point job at scale 1 (10 fps, `duration` s) with `layers` over `background`;
    /// returns the folder.
    static func render(
        _ layers: [String], background: String = "#FFFFFFFF", duration: Double = 0.1, extra: [String] = [],
        in folder: TemporaryFolder
    ) throws -> URL {
        let job = try folder.write(
            """
            {"name": "compose", "canvas": {"width": 100, "height": 100, "scale": 1, "background": "\(background)"},
             "fps": 10, "duration": \(duration), "output": {"dir": "out"},
             "layers": [\(layers.joined(separator: ",\n"))]}
            """, to: "job.json")
        let result = CLI.run(["render", job, "--progress", "none"] + plugins + extra)
        #expect(result.status == 0, "\(result.stderr)")
        return folder.url.appendingPathComponent("out")
    }

    static func frame(_ folder: URL, _ index: Int = 0) throws -> ImageSurface {
        try ImageSurface(contentsOfPNG: folder.appendingPathComponent(String(format: "frame_%05d.png", index)).path)
    }

    /// Whether pixel (x, y) is `expected` (0…255 RGBA) within `tolerance`.
    static func pixel(_ image: ImageSurface, _ x: Int, _ y: Int, is expected: [Double], tolerance: Double = 1.5)
        -> Bool
    {
        let p = image.pixel(x: x, y: y)
        return zip([p.r, p.g, p.b, p.a].map(Double.init), expected).allSatisfy { abs($0 - $1) <= tolerance }
    }

    static func rgba(_ image: ImageSurface, _ x: Int, _ y: Int) -> [Int] {
        let p = image.pixel(x: x, y: y)
        return [Int(p.r), Int(p.g), Int(p.b), Int(p.a)]
    }

    // MARK: Blend modes

    /// The W3C Compositing and Blending formula of each separable mode, for one channel in 0…1.
    static let formulas: [(String, @Sendable (Double, Double) -> Double)] = [
        ("normal", { _, s in s }),
        ("multiply", { b, s in b * s }),
        ("screen", { b, s in b + s - b * s }),
        ("overlay", { b, s in hardLight(s: b, b: s) }),
        ("darken", { b, s in min(b, s) }),
        ("lighten", { b, s in max(b, s) }),
        ("color-dodge", { b, s in b == 0 ? 0 : s >= 1 ? 1 : min(1, b / (1 - s)) }),
        ("color-burn", { b, s in b >= 1 ? 1 : s <= 0 ? 0 : 1 - min(1, (1 - b) / s) }),
        ("hard-light", { b, s in hardLight(s: s, b: b) }),
        (
            "soft-light",
            { b, s in
                if s <= 0.5 { return b - (1 - 2 * s) * b * (1 - b) }
                let d = b <= 0.25 ? ((16 * b - 12) * b + 4) * b : b.squareRoot()
                return b + (2 * s - 1) * (d - b)
            }
        ),
        ("difference", { b, s in abs(b - s) }),
        ("exclusion", { b, s in b + s - 2 * b * s }),
        ("add", { b, s in min(1, b + s) }),
    ]

    static func hardLight(s: Double, b: Double) -> Double {
        s <= 0.5 ? b * 2 * s : b + (2 * s - 1) - b * (2 * s - 1)
    }

    @Test("each blend mode over an opaque backdrop equals its W3C formula, channel by channel")
    func blendModes() throws {
        let folder = try TemporaryFolder()
        let backdrop = [0.2, 0.55, 0.8]
        let source = [0.7, 0.3, 0.45]
        var layers = [Self.probe([0, 0, 100, 100], backdrop + [1])]
        for (column, (mode, _)) in Self.formulas.enumerated() {
            layers.append(Self.probe([Double(column) * 7, 0, 7, 100], source + [1], #""blend": "\#(mode)""#))
        }
        let image = try Self.frame(Self.render(layers, in: folder))
        for (column, (mode, formula)) in Self.formulas.enumerated() {
            // Colours go through 8 bits on the way in: compute with what cairo had.
            let quantised = { (value: Double) in (value * 255).rounded() / 255 }
            let expected = zip(backdrop, source).map { formula(quantised($0), quantised($1)) * 255 } + [255]
            #expect(
                Self.pixel(image, column * 7 + 3, 50, is: expected, tolerance: 2.5),
                "\(mode): \(Self.rgba(image, column * 7 + 3, 50)) instead of \(expected.map { Int($0.rounded()) })")
        }
    }

    @Test("opacity: a red layer at 0.25 over white; 0 draws nothing")
    func opacity() throws {
        let folder = try TemporaryFolder()
        let image = try Self.frame(
            Self.render(
                [
                    Self.probe([0, 0, 50, 100], [1, 0, 0, 1], #""opacity": 0.25"#),
                    Self.probe([50, 0, 50, 100], [1, 0, 0, 1], #""opacity": 0"#),
                ],
                in: folder))
        #expect(Self.pixel(image, 25, 50, is: [255, 191.25, 191.25, 255]), "\(Self.rgba(image, 25, 50))")
        #expect(Self.pixel(image, 75, 50, is: [255, 255, 255, 255]))
    }

    // MARK: Transforms

    @Test("a 90° rotation turns a bar at the bottom into a bar on the left (clockwise, about the centre)")
    func rotation() throws {
        let folder = try TemporaryFolder()
        let image = try Self.frame(
            Self.render(
                [Self.probe([0, 90, 100, 10], [0, 0, 1, 1], #""transform": {"rotation": 90}"#)],
                background: "#00000000",
                in: folder))
        for y in stride(from: 2, to: 100, by: 12) {
            #expect(Self.rgba(image, 5, y) == [0, 0, 255, 255], "left column at y \(y)")
            #expect(Self.rgba(image, 50, y)[3] == 0, "nothing in the middle at y \(y)")
        }
        #expect(Self.rgba(image, 50, 95)[3] == 0, "the bottom is empty")
    }

    @Test("scale 2 about an anchor: the square grows around it; position moves the anchor")
    func scaleAboutAnchor() throws {
        let folder = try TemporaryFolder()
        let image = try Self.frame(
            Self.render(
                [
                    Self.probe([10, 10, 10, 10], [0, 1, 0, 1], #""transform": {"anchor": [20, 20], "scale": 2}"#),
                    Self.probe(
                        [60, 60, 10, 10], [1, 0, 0, 1],
                        #""transform": {"anchor": [60, 60], "position": [80, 70], "scale": [2, 1]}"#),
                ],
                background: "#00000000", in: folder))
        // [10, 20] scaled by 2 about 20: [0, 20].
        #expect(Self.rgba(image, 1, 1) == [0, 255, 0, 255])
        #expect(Self.rgba(image, 19, 19) == [0, 255, 0, 255])
        #expect(Self.rgba(image, 21, 21)[3] == 0)
        // [60, 70] × [60, 70] about (60, 60), scaled 2 × 1 and moved to (80, 70): [80, 100] × [70, 80].
        #expect(Self.rgba(image, 81, 71) == [255, 0, 0, 255])
        #expect(Self.rgba(image, 98, 78) == [255, 0, 0, 255])
        #expect(Self.rgba(image, 78, 71)[3] == 0 && Self.rgba(image, 81, 68)[3] == 0)
    }

    // MARK: Masks

    @Test("alpha and luminance masks, inverted or not; the mask layer is not drawn itself")
    func masks() throws {
        // The masking group: opaque white on the left quarter, opaque 50 % grey in the second,
        // half-transparent white in the third, nothing in the fourth.
        func job(_ mask: String) -> [String] {
            [
                #"{"name": "window", "group": [\#(Self.probe([0, 0, 25, 100], [1, 1, 1, 1])), \#(Self.probe([25, 0, 25, 100], [0.5, 0.5, 0.5, 1])), \#(Self.probe([50, 0, 25, 100], [1, 1, 1, 0.5]))]}"#,
                Self.probe([0, 0, 100, 100], [1, 0, 0, 1], #""mask": \#(mask)"#),
            ]
        }
        let cases: [(String, [Double])] = [
            (#"{"layer": "window"}"#, [1, 1, 0.5, 0]),
            (#"{"layer": "window", "invert": true}"#, [0, 0, 0.5, 1]),
            (#"{"layer": "window", "mode": "luminance"}"#, [1, 0.5, 0.5, 0]),
            (#"{"layer": "window", "mode": "luminance", "invert": true}"#, [0, 0.5, 0.5, 1]),
        ]
        for (mask, alphas) in cases {
            let sub = try TemporaryFolder()
            let image = try Self.frame(Self.render(job(mask), background: "#00000000", in: sub))
            for (quarter, alpha) in alphas.enumerated() {
                let p = Self.rgba(image, quarter * 25 + 12, 50)
                #expect(abs(Double(p[3]) - alpha * 255) <= 2, "\(mask), quarter \(quarter): \(p)")
                if alpha > 0 { #expect(p[0] == 255 && p[1] == 0 && p[2] == 0, "\(mask): only the red layer shows") }
            }
        }
    }

    // MARK: Groups

    @Test("a group's opacity applies to the flattened group: two overlapping squares show one uniform 50 %")
    func groupFlattening() throws {
        let folder = try TemporaryFolder()
        let image = try Self.frame(
            Self.render(
                [
                    #"{"group": [\#(Self.probe([10, 10, 50, 50], [1, 0, 0, 1])), \#(Self.probe([40, 40, 50, 50], [1, 0, 0, 1]))], "opacity": 0.5}"#
                ],
                in: folder))
        let half = [255, 127.5, 127.5, 255]
        #expect(Self.pixel(image, 20, 20, is: half), "\(Self.rgba(image, 20, 20))")
        #expect(Self.pixel(image, 50, 50, is: half), "overlap: \(Self.rgba(image, 50, 50))")
        #expect(Self.pixel(image, 80, 80, is: half))
        #expect(Self.rgba(image, 5, 95) == [255, 255, 255, 255])
    }

    // MARK: Time

    /// Red, green and alpha of the time probe at frame `index` (red: local time in 1/100 s;
    /// green: frame index), or nil when nothing was drawn.
    static func shown(_ folder: URL, _ index: Int) throws -> (hundredths: Int, frame: Int)? {
        let p = try Self.frame(folder, index).pixel(x: 50, y: 50)
        return p.a == 0 ? nil : (Int(p.r), Int(p.g))
    }

    static func timeProbe(_ fields: String) -> String {
        #"{"effect": "test-probe", "params": {"showTime": true}, \#(fields)}"#
    }

    @Test("end hides a layer; speed 2 shows local time 2t; loop wraps; a group shifts its layers' time")
    func time() throws {
        let folder = try TemporaryFolder()
        let out = try Self.render(
            [Self.timeProbe(#""start": 0.5, "end": 2, "speed": 2"#)], background: "#00000000", duration: 2.5,
            in: folder)
        #expect(try Self.shown(out, 4) == nil, "before start: not drawn")
        #expect(try Self.shown(out, 5).map { [$0.hundredths, $0.frame] } == [0, 5])
        // t = 1.0: local (1.0 − 0.5) × 2 = 1.0; a plain layer is at local 1.0 at job time 1.5 (frame 15).
        #expect(try Self.shown(out, 10).map { [$0.hundredths, $0.frame] } == [100, 15])
        #expect(try Self.shown(out, 19).map { [$0.hundredths, $0.frame] } == [255, 24])
        #expect(try Self.shown(out, 20) == nil, "from end on: not drawn")

        let looped = try TemporaryFolder()
        let loopOut = try Self.render(
            [Self.timeProbe(#""start": 0.2, "loop": 0.6"#)], background: "#00000000", duration: 1.5, in: looped)
        // t = 1.0: local 0.8 mod 0.6 = 0.2.
        #expect(try Self.shown(loopOut, 10).map(\.hundredths) == 20)
        #expect(try Self.shown(loopOut, 13).map(\.hundredths) == 50)

        let grouped = try TemporaryFolder()
        let groupOut = try Self.render(
            [#"{"group": [\#(Self.timeProbe(#""start": 0.3"#))], "start": 0.5, "speed": 0.5}"#],
            background: "#00000000", duration: 2, in: grouped)
        // t = 1.5: group time (1.5 − 0.5) × 0.5 = 0.5; the layer's 0.5 − 0.3 = 0.2.
        #expect(try Self.shown(groupOut, 15).map(\.hundredths) == 20)
        #expect(try Self.shown(groupOut, 4) == nil, "a group is not drawn before its start")
    }

    @Test("keyframed opacity: the midpoint of a linear ramp is half; easeIn is below it")
    func keyframes() throws {
        let folder = try TemporaryFolder()
        let ramp = #"{"keyframes": [{"t": 0, "value": 0}, {"t": 1, "value": 1}]}"#
        let eased = #"{"keyframes": [{"t": 0, "value": 0}, {"t": 1, "value": 1, "timing": "easeIn"}]}"#
        let out = try Self.render(
            [
                Self.probe([0, 0, 50, 100], [1, 0, 0, 1], #""opacity": \#(ramp)"#),
                Self.probe([50, 0, 50, 100], [1, 0, 0, 1], #""opacity": \#(eased)"#),
            ],
            duration: 1.1, in: folder)
        let middle = try Self.frame(out, 5)
        #expect(Self.pixel(middle, 25, 50, is: [255, 127.5, 127.5, 255]), "\(Self.rgba(middle, 25, 50))")
        // easeIn (0.42, 0, 1, 1) at x = 0.5 is y ≈ 0.3154: white shows through more.
        let white: Double = 255 * (1 - 0.3154)
        #expect(Self.pixel(middle, 75, 50, is: [255, white, white, 255], tolerance: 2), "\(Self.rgba(middle, 75, 50))")
        #expect(Self.rgba(try Self.frame(out, 0), 25, 50) == [255, 255, 255, 255])
        #expect(Self.rgba(try Self.frame(out, 10), 25, 50) == [255, 0, 0, 255])
    }

    // MARK: Determinism, trace, incremental

    static let composed = [
        Self.probe([0, 0, 100, 100], [0.1, 0.6, 0.9, 1]),
        #"{"name": "m", "effect": "test-probe", "params": {"showTime": true, "rect": [20, 20, 60, 60]}, "transform": {"rotation": {"keyframes": [{"t": 0, "value": 0}, {"t": 2, "value": 90}]}}}"#,
        #"{"group": [\#(Self.timeProbe(#""blend": "screen""#)), \#(Self.probe([30, 30, 40, 40], [0, 1, 0, 0.7], #""blend": "multiply""#))], "opacity": {"keyframes": [{"t": 0, "value": 0.2}, {"t": 1, "value": 1, "timing": {"damping": 0.5, "velocity": 0}}]}, "mask": {"layer": "m", "mode": "luminance"}}"#,
    ]

    @Test("a composing job is byte-identical at -j 1, -j 2, in shards and under --isolate")
    func deterministic() throws {
        func hashes(_ out: URL) throws -> [String] {
            try (0..<20).map {
                sha256(try Data(contentsOf: out.appendingPathComponent(String(format: "frame_%05d.png", $0))))
            }
        }
        let (first, second) = (try TemporaryFolder(), try TemporaryFolder())
        let one = try hashes(Self.render(Self.composed, duration: 2, extra: ["-j", "1"], in: first))
        #expect(try hashes(Self.render(Self.composed, duration: 2, extra: ["-j", "2"], in: second)) == one)
        #expect(Set(one).count > 10, "the frames differ from each other")

        let sharded = try TemporaryFolder()
        let out = try Self.render(Self.composed, duration: 2, extra: ["--shard", "0/3"], in: sharded)
        for shard in ["1/3", "2/3"] {
            let result = CLI.run(
                ["render", sharded.url.appendingPathComponent("job.json").path, "--shard", shard, "--progress", "none"]
                    + Self.plugins)
            #expect(result.status == 0, "\(result.stderr)")
        }
        #expect(try hashes(out) == one)

        let isolated = try TemporaryFolder()
        _ = try Self.render(Self.composed, duration: 2, extra: ["--frames", "0"], in: isolated)
        let result = CLI.run(
            [
                "render", isolated.url.appendingPathComponent("job.json").path, "--isolate", "-j", "2", "--force",
                "--progress", "none",
            ] + Self.plugins)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try hashes(isolated.url.appendingPathComponent("out")) == one)
    }

    @Test("a still bottom layer with constant fields, drawn once per process, draws what drawing it every frame draws")
    func staticLayers() throws {
        let folder = try TemporaryFolder()
        let layers = [
            ##"{"effect": "gradient", "params": {"from": "#102030", "to": "#F0A040"}, "opacity": 0.6, "blend": "screen", "transform": {"rotation": 30, "scale": 0.8}}"##,
            Self.timeProbe(#""opacity": 0.5"#),
        ]
        _ = try Self.renderedAsRedrawn(layers, background: "#204060FF", in: folder, "")
    }

    /// Renders `layers` for 0.5 s (5 frames) as usual, then again with every still layer drawn at every frame
    /// (`RENDERFARM_STATIC_LAYERS=redraw`, read by the binary), expects the same files both ways and returns them.
    static func renderedAsRedrawn(
        _ layers: [String], background: String = "#FFFFFFFF", in folder: TemporaryFolder, _ label: String
    ) throws -> [Data] {
        let cached = try Self.render(layers, background: background, duration: 0.5, in: folder)
        let redrawn = folder.url.appendingPathComponent("redrawn")
        let result = CLI.run(
            ["render", folder.url.appendingPathComponent("job.json").path, "--out", redrawn.path, "--progress", "none"]
                + Self.plugins,
            environment: ["RENDERFARM_STATIC_LAYERS": "redraw"])
        #expect(result.status == 0, "\(result.stderr)")
        return try (0..<5).map { index in
            let name = String(format: "frame_%05d.png", index)
            let frame = try Data(contentsOf: cached.appendingPathComponent(name))
            #expect(frame == (try Data(contentsOf: redrawn.appendingPathComponent(name))), "\(label)\(name)")
            return frame
        }
    }

    @Test(
        "a still mask source, drawn once per worker and again only when its transformation changes, masks as drawing it every frame does",
        arguments: [UInt64(1), 2])
    func stillMaskSources(seed: UInt64) throws {
        // Generated: masked time probes that move, each through a still source (an ellipse, a rectangle or a
        // gradient with a constant transform and opacity, alpha or luminance, inverted or not), some with motion
        // blur; half of them in a group, whose rotation is keyframed half the time, so that the source's
        // transformation changes at every frame. A group is drawn only from its start, so a motion blur sample
        // before it is left out: the source in a group does not draw the same at frame 0 (time 0) as later.
        var random = FuzzRandom(seed: seed)
        func number(_ range: ClosedRange<Double>) -> Double {
            (random.uniform(range.lowerBound, range.upperBound) * 10).rounded() / 10
        }
        var layers: [String] = [Self.probe([0, 0, 100, 100], [0.2, 0.3, 0.4, 1])]
        for k in 0..<4 {
            let source: String
            switch random.integer(0...2) {
            case 0: source = ##""effect": "shape", "params": {"kind": "ellipse", "fill": "#FFFFFF"}"##
            case 1:
                source =
                    ##""effect": "shape", "params": {"kind": "rect", "fill": "#FF8000", "rect": {"x": 10, "y": 20, "width": 50, "height": 40}}"##
            default: source = ##""effect": "gradient", "params": {"from": "#00000000", "to": "#FFFFFFFF"}"##
            }
            let blur = random.chance(0.5) ? #", "motionBlur": {"samples": 2, "shutterPhase": -90}"# : ""
            let fixed =
                #""transform": {"rotation": \#(number(-40...40)), "scale": \#(number(0.5...1.2))}, "opacity": \#(number(0.3...1))\#(blur)"#
            let mode = random.chance(0.5) ? "alpha" : "luminance"
            let mask = #"{"name": "m\#(k)", \#(source), \#(fixed)}"#
            let masked =
                #"{"effect": "test-probe", "params": {"showTime": true, "rect": [\#(number(0...40)), \#(number(0...40)), 50, 50]}, "transform": {"position": {"keyframes": [{"t": 0, "value": [30, 40]}, {"t": 0.5, "value": [70, 60]}]}}, "mask": {"layer": "m\#(k)", "mode": "\#(mode)", "invert": \#(random.chance(0.5))}}"#
            if random.chance(0.5) {
                let turn = number(10...90)
                let rotation =
                    random.chance(0.5)
                    ? #"{"keyframes": [{"t": 0, "value": 0}, {"t": 0.5, "value": \#(turn)}]}"# : "\(turn)"
                layers.append(#"{"group": [\#(mask), \#(masked)], "transform": {"rotation": \#(rotation)}}"#)
            } else {
                layers += [mask, masked]
            }
        }
        let frames = try Self.renderedAsRedrawn(layers, in: try TemporaryFolder(), "seed \(seed), ")
        #expect(Set(frames).count == 5, "seed \(seed): the frames differ from each other")
    }

    @Test("trace reports positions after the layer's transform and alpha times its opacity")
    func traceAfterTransforms() throws {
        let folder = try TemporaryFolder()
        let job = try folder.write(
            """
            {"name": "t", "canvas": {"width": 100, "height": 100, "scale": 1}, "fps": 10, "duration": 0.1,
             "layers": [{"group": [{"effect": "test-probe", "params": {"rect": [10, 20, 10, 10], "color": [1, 0, 0, 0.8]},
               "transform": {"anchor": [0, 0], "position": [5, 0]}}], "opacity": 0.5,
               "transform": {"anchor": [50, 50], "rotation": 90}}]}
            """, to: "job.json")
        let result = CLI.run(["trace", job] + Self.plugins)
        #expect(result.status == 0, "\(result.stderr)")
        let line = try #require(result.stdout.split(separator: "\n").first)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let item = try #require(((object["layers"] as? [[String: Any]])?.first?["items"] as? [[String: Any]])?.first)
        // (15, 25) moved by (5, 0) to (20, 25), then turned 90° clockwise about (50, 50): (75, 20).
        let (x, y) = (try #require(item["x"] as? Double), try #require(item["y"] as? Double))
        #expect(abs(x - 75) < 1e-9 && abs(y - 20) < 1e-9, "(\(x), \(y))")
        #expect(abs((item["alpha"] as? Double ?? 0) - 0.4) < 1e-9)
    }

    @Test("an edit of a keyframe after 1 s redraws only the frames from then on")
    func incremental() throws {
        let folder = try TemporaryFolder()
        func write(_ late: Double) throws -> String {
            try folder.write(
                """
                {"name": "inc", "canvas": {"width": 40, "height": 40, "scale": 1}, "fps": 10, "duration": 2,
                 "output": {"dir": "out"},
                 "layers": [{"effect": "test-probe", "params": {"keyed": true, "rect": [0, 0, 40, 40]},
                   "opacity": {"keyframes": [{"t": 0, "value": 1}, {"t": 1, "value": 1}, {"t": 2, "value": \(late)}]}}]}
                """, to: "job.json")
        }
        let job = try write(0.5)
        #expect(CLI.run(["render", job, "--progress", "none"] + Self.plugins).status == 0)
        _ = try write(0.2)
        let edit = CLI.run(["render", job, "--progress", "json"] + Self.plugins)
        #expect(edit.status == 0, "\(edit.stderr)")
        let redrawn = Set(FrameKeyTests.frameEvents(edit).keys)
        #expect(redrawn == Set(11..<20), "redrawn: \(redrawn.sorted())")
    }

    // MARK: Errors

    @Test("bad fields are located errors (65) with the fix; nothing is written")
    func errors() throws {
        let folder = try TemporaryFolder()
        let job = try folder.write(
            """
            {"name": "bad", "canvas": {"width": 40, "height": 40, "scale": 1}, "fps": 10, "duration": 1,
             "output": {"dir": "out"},
             "layers": [{"effect": "test-probe", "blend": "multiplY", "opacity": 2},
                        {"group": [{"effect": "test-probe", "mask": {"layer": "nowhere"}}], "end": 0},
                        {"effect": "test-probe", "opacity": {"keyframes": [{"t": 1, "value": 0}, {"t": 0.5, "value": 1, "timing": "bouncy"}]}}]}
            """, to: "job.json")
        let result = CLI.run(["render", job, "--progress", "none"] + Self.plugins)
        #expect(result.status == 65)
        for expected in [
            #"layers[0].blend: unknown blend mode "multiplY" (did you mean "multiply"?)"#,
            "layers[0].opacity: expected an opacity 0…1, got 2",
            #"layers[1].group[0].mask.layer: no layer named "nowhere" in this list"#,
            "layers[1].end: 0 is not after start (0)",
            "layers[2].opacity.keyframes[1].t: 0.5 is not after the keyframe before (1)",
            #"layers[2].opacity.keyframes[1].timing: unknown timing "bouncy""#,
        ] {
            #expect(result.stderr.contains(expected), "missing: \(expected)\n\(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("out").path))
    }
}
