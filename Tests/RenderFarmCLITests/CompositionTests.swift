import CairoKit
import Foundation
import Testing

/// Compositions (RenderFarm article ComposingLayers, "Compositions"), through the real binary: a job file placed
/// by another draws, frame for frame, what it draws rendered alone, moved to where it is placed; its parameters
/// are filled from the placing layer; bad placements are refused with the place and the fix.
@Suite("Compositions")
struct CompositionTests {
    /// A generated composition: random layers of the effects that read the job's canvas, seed or duration, drawn
    /// with four parameters of different types; its text with given defaults.
    struct Generated {
        let width: Int
        let height: Int
        let scale: Double
        let seed: Int
        /// Frames at `fps`.
        let frames: Int
        let background: String
        let layers: [[String: Any]]
        /// Whether its first layer places `sub/inner.json`, a second generated composition.
        let placesInner: Bool
        static let fps = 16.0

        init(random: inout FuzzRandom, scale: Double, mayPlace: Bool) {
            width = 2 * random.integer(30...80)
            height = 2 * random.integer(30...70)
            self.scale = scale
            seed = random.integer(0...99_999)
            frames = random.integer(6...14)
            background = random.chance(0.5) ? "#00000000" : random.colour()
            placesInner = mayPlace && random.chance(0.4)
            var layers: [[String: Any]] = []
            if placesInner {
                layers.append([
                    "composition": "sub/inner.json", "params": ["tint": random.colour()],
                    "transform": ["position": [Double(random.integer(20...60)), Double(random.integer(20...60))]],
                ])
            }
            let (w, h) = (Double(width), Double(height))
            for _ in 0..<random.integer(1...3) {
                var layer: [String: Any]
                switch random.integer(0...5) {
                case 0:
                    layer = [
                        "effect": "shape",
                        "params": [
                            "kind": random.pick(["rect", "ellipse"]), "fill": "{{tint}}",
                            "rect": [
                                "x": random.uniform(-10, w / 2), "y": random.uniform(-10, h / 2),
                                "width": random.uniform(10, w), "height": random.uniform(10, h),
                            ],
                        ],
                    ]
                case 1:
                    layer = [
                        "effect": "text",
                        "params": [
                            "text": "{{label}} \(random.integer(0...99))", "size": "{{size}}", "color": "{{tint}}",
                            "rect": ["x": 4, "y": 4, "width": w - 8, "height": h - 8],
                        ],
                    ]
                case 2:
                    layer = [
                        "effect": "floating-heart",
                        "params": ["emitter": "{{spot}}", "rate": 8, "size": "{{size}}", "lifetime": 0.8],
                    ]
                case 3:
                    layer = [
                        "effect": "physics-bounce",
                        "params": [
                            "items": [["at": [w / 2, 10], "shape": "box", "color": "{{tint}}"]], "size": 14,
                            "bounds": true,
                        ],
                    ]
                case 4:
                    layer = ["effect": "particles", "params": ["birthRate": 2]]
                default:
                    layer = ["effect": "gradient", "params": ["from": "{{tint}}", "angle": random.uniform(0, 180)]]
                }
                if random.chance(0.3) {
                    layer["transform"] = [
                        "rotation": [
                            "keyframes": [["t": 0, "value": 0], ["t": 0.5, "value": random.uniform(-90, 90)]]
                        ]
                    ]
                }
                if random.chance(0.3) { layer["opacity"] = random.uniform(0.3, 0.9) }
                if random.chance(0.3) { layer["start"] = Double(random.integer(0...4)) / Self.fps }
                layers.append(layer)
            }
            self.layers = layers
        }

        /// Values for its parameters.
        static func values(_ random: inout FuzzRandom, width: Int, height: Int) -> [String: Any] {
            [
                "tint": random.colour(), "size": Double(random.integer(8...30)),
                "label": random.pick(["Ana", "Łukasz", "مريم", "<b>", "{x}"]),
                "spot": [Double(random.integer(10...width - 10)), Double(random.integer(10...height - 10))],
            ]
        }

        /// The file, whose parameters default to `defaults`.
        func text(defaults: [String: Any]) throws -> String {
            let types = ["tint": "color", "size": "number", "label": "string", "spot": "point"]
            var parameters: [String: Any] = [:]
            for (name, type) in types { parameters[name] = ["type": type, "default": defaults[name] ?? NSNull()] }
            let job: [String: Any] = [
                "version": 1, "seed": seed, "fps": Self.fps, "duration": Double(frames) / Self.fps,
                "canvas": ["width": width, "height": height, "scale": scale, "background": background],
                "parameters": parameters, "output": ["dir": "alone"], "layers": layers,
            ]
            return String(
                decoding: try JSONSerialization.data(withJSONObject: job, options: [.sortedKeys]), as: UTF8.self)
        }
    }

    @Test(
        "10 generated compositions: placed, each frame is the file rendered alone with the same values, moved"
    )
    func placedEqualsAlone() throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["RENDERFARM_COMPOSITION_SEED"] ?? "") ?? 0xC0_4D05
        for run in 0..<10 {
            let label = "RENDERFARM_COMPOSITION_SEED=\(seed &+ UInt64(run))"
            var random = FuzzRandom(seed: seed &+ UInt64(run))
            let scale = random.pick([1.0, 2.0])
            let comp = Generated(random: &random, scale: scale, mayPlace: true)
            let values = Generated.values(&random, width: comp.width, height: comp.height)
            let other = Generated.values(&random, width: comp.width, height: comp.height)
            let folder = try TemporaryFolder()
            // Alone with the values as its defaults; placed with other defaults, the values given.
            let alone = try folder.write(try comp.text(defaults: values), to: "comps/alone.json")
            try folder.write(try comp.text(defaults: other), to: "comps/placed.json")
            if comp.placesInner {
                var inner = random
                let sub = Generated(random: &inner, scale: scale, mayPlace: false)
                try folder.write(
                    try sub.text(defaults: Generated.values(&inner, width: sub.width, height: sub.height)),
                    to: "comps/sub/inner.json")
            }
            let start = random.integer(0...6)
            // Half the runs place it at the canvas's origin, half moved by whole points.
            let moved = run % 2 == 1
            let (ox, oy) = moved ? (random.integer(1...40), random.integer(1...30)) : (0, 0)
            var layer: [String: Any] = [
                "composition": "comps/placed.json", "params": values, "start": Double(start) / Generated.fps,
                "transform": ["position": [Double(ox + comp.width / 2), Double(oy + comp.height / 2)]],
            ]
            if random.chance(0.5) { layer = ["group": [layer]] }
            let frames = start + comp.frames + 2
            let outer: [String: Any] = [
                "version": 1, "seed": random.integer(0...999), "fps": Generated.fps,
                "duration": Double(frames) / Generated.fps,
                "canvas": ["width": comp.width + 40, "height": comp.height + 30, "scale": scale],
                "output": ["dir": "placed"], "layers": [layer],
            ]
            let job = try folder.write(
                String(decoding: try JSONSerialization.data(withJSONObject: outer), as: UTF8.self), to: "job.json")
            for file in [alone, job] { try Self.render(file, label) }
            for frame in 0..<frames {
                let placed = try ImageSurface(
                    contentsOfPNG: folder.url.appendingPathComponent(String(format: "placed/frame_%05d.png", frame))
                        .path)
                let index = frame - start
                let shown =
                    (0..<comp.frames).contains(index)
                    ? try ImageSurface(
                        contentsOfPNG: folder.url.appendingPathComponent(
                            String(format: "comps/alone/frame_%05d.png", index)
                        ).path) : nil
                let (count, largest) = Self.differing(
                    placed, shown, at: (Int(Double(ox) * scale), Int(Double(oy) * scale)))
                // Cairo and pixman draw the same layers a little differently on a surface of another size, or
                // through a matrix a placement makes: a gradient's or an image's sample rounds the other way (±1),
                // an edge gains or loses a row of cairo's 15-row coverage grid (17 levels at most). Measured over
                // 100 generated compositions (1,000 frames): at most 0.39 % of a frame's pixels, 33 pixels by
                // more than 1, 14 levels.
                let pixels = placed.width * placed.height
                #expect(
                    largest <= 17 && count.all * 100 <= pixels && count.rough * 1000 <= pixels,
                    "\(label): frame \(frame): \(count.all) pixels differ, \(count.rough) by more than 1, by up to \(largest)"
                )
            }
        }
    }

    /// How many pixels of `placed` are not those of `shown` where it lies at `origin`, or are not transparent
    /// elsewhere (all, and those by more than 1 in a channel), and the largest difference of a premultiplied channel.
    static func differing(_ placed: ImageSurface, _ shown: ImageSurface?, at origin: (x: Int, y: Int)) -> (
        count: (all: Int, rough: Int), largest: Int
    ) {
        placed.flush()
        shown?.flush()
        func word(_ image: ImageSurface, _ x: Int, _ y: Int) -> UInt32 {
            image.bytes.advanced(by: y * image.stride + x * 4).withMemoryRebound(to: UInt32.self, capacity: 1) {
                $0.pointee
            }
        }
        var (count, rough, largest) = (0, 0, 0)
        for y in 0..<placed.height {
            for x in 0..<placed.width {
                let (ix, iy) = (x - origin.x, y - origin.y)
                let inside = shown.map { (0..<$0.width).contains(ix) && (0..<$0.height).contains(iy) } ?? false
                let (a, b) = (word(placed, x, y), inside ? shown.map { word($0, ix, iy) } ?? 0 : 0)
                guard a != b else { continue }
                count += 1
                let difference =
                    [0, 8, 16, 24].map { (shift: UInt32) -> Int in
                        abs(Int((a >> shift) & 0xFF) - Int((b >> shift) & 0xFF))
                    }.max() ?? 0
                if difference > 1 { rough += 1 }
                largest = max(largest, difference)
            }
        }
        return ((count, rough), largest)
    }

    /// Renders the job file `file`, which must succeed (`label` says which case failed).
    static func render(_ file: String, _ label: String = "") throws {
        let render = CLI.run(["render", file, "--progress", "none"])
        try #require(render.status == 0, "\(label): \(render.stderr)")
    }

    /// A composition `comps/card.json` (a box filled with `{{tint}}` and the text `{{user}}`) placed by `job.json`
    /// with `layer` (JSON members of the placing layer).
    @discardableResult
    static func cardJob(in folder: TemporaryFolder, layer: String, tint: String = "#FF0000") throws -> String {
        try folder.write(
            """
            { "version": 1, "seed": 4, "canvas": { "width": 120, "height": 40, "scale": 1 }, "duration": 1, "fps": 10,
              "parameters": { "user": { "type": "string", "default": "guest" },
                              "tint": { "type": "color", "default": "\(tint)" },
                              "size": { "type": "number", "min": 6, "max": 40, "default": 18 } },
              "layers": [ { "effect": "shape", "params": { "rect": { "x": 0, "y": 0, "width": 40, "height": 40 },
                                                           "fill": "{{tint}}" } },
                          { "effect": "text", "params": { "text": "{{user}}", "size": "{{size}}",
                                                          "rect": { "x": 44, "y": 0, "width": 76, "height": 40 } } } ] }
            """, to: "comps/card.json")
        return try folder.write(
            """
            { "version": 1, "name": "cards", "canvas": { "width": 200, "height": 100, "scale": 1 }, "duration": 1.5,
              "fps": 10, "output": { "dir": "out" }, "layers": [ { "composition": "comps/card.json", \(layer) } ] }
            """, to: "job.json")
    }

    @Test("bad placements are refused (65) at the placing layer with the fix: files, cycles, depth, parameters")
    func refusals() throws {
        let folder = try TemporaryFolder()
        try Self.cardJob(in: folder, layer: #""params": {}"#)
        for (name, text) in [
            ("variants", #""variants": {"matrix": {"seed": [1, 2]}}"#),
            ("nodefault", #""parameters": {"user": {"type": "string"}}"#),
            ("badtype", #""parameters": {"user": {"type": "strng", "default": "a"}}"#),
            ("placeholder", #""parameters": {"user": {"type": "string", "default": "a"}}"#),
        ] {
            try folder.write(
                #"{ "version": 1, "duration": 1, \#(text), "#
                    + #""layers": [ { "effect": "text", "params": { "text": "{{usr}}" } } ] }"#,
                to: "comps/\(name).json")
        }
        let cases: [(layer: String, message: String)] = [
            (#""composition": "comps/nope.json""#, "comps/nope.json not found"),
            (#""composition": "../x.json""#, "../x.json resolves outside"),
            (#""composition": "/etc/passwd""#, "is absolute"),
            (#""composition": "job.json""#, "job.json places itself (job.json → job.json)"),
            (
                #""composition": "comps/card.json", "params": {"usr": "a"}"#,
                #"layers[0].params.usr: the composition has no parameter "usr" (did you mean "user"?)"#
            ),
            (
                #""composition": "comps/card.json", "params": {"size": "big"}"#,
                "layers[0].params.size: expected number 6…40"
            ),
            (#""composition": "comps/card.json", "params": {"size": 99}"#, "out of range (allowed: 6…40)"),
            (#""composition": "comps/card.json", "params": {"tint": "red"}"#, "expected a colour"),
            (#""composition": "comps/card.json", "effect": "shape""#, "an effect, a group or a composition"),
            (#""composition": 7"#, "layers[0].composition"),
            (#""composition": "comps/variants.json""#, "a composition has no variants"),
            (#""composition": "comps/nodefault.json""#, "layers[0].composition.parameters.user.default: missing"),
            (#""composition": "comps/badtype.json""#, #"unknown type "strng" (did you mean "string"?)"#),
            (
                #""composition": "comps/placeholder.json""#,
                "layers[0].composition.layers[0].params.text: unknown placeholder {{usr}}: no parameter \"usr\""
            ),
        ]
        for (layer, message) in cases {
            try folder.expectRefused(
                """
                { "version": 1, "canvas": { "width": 200, "height": 100 }, "duration": 1,
                  "layers": [ { \(layer) } ] }
                """, saying: message, label: layer)
        }
    }

    @Test("generated chains of compositions: a cycle of 1–4 files and nesting past 8 are refused, naming the files")
    func chains() throws {
        var random = FuzzRandom(seed: 0x63_6861_696E)
        for run in 0..<6 {
            let folder = try TemporaryFolder()
            let length = random.integer(1...4)
            let cycles = run % 2 == 0
            // c0 → c1 → … → c(n−1) → c0 (a cycle), or a chain of 9 that ends.
            let count = cycles ? length : 9
            for index in 0..<count {
                let next = index + 1 < count ? "c\(index + 1).json" : cycles ? "c0.json" : nil
                let layer =
                    next.map { #"{ "composition": "\#($0)" }"# } ?? #"{ "effect": "shape", "params": {} }"#
                try folder.write(
                    #"{ "version": 1, "duration": 1, "layers": [ \#(layer) ] }"#, to: "c\(index).json")
            }
            let chain = (0..<count).map { "c\($0).json" } + ["c0.json"]
            try folder.expectRefused(
                #"{ "version": 1, "duration": 1, "layers": [ { "composition": "c0.json" } ] }"#,
                saying: cycles ? "places itself (\(chain.joined(separator: " → ")))" : "nest at most 8 deep",
                label: "run \(run): \(count) files, cycle \(cycles)")
        }
    }

    @Test("a variant's CSV cells fill a composition's parameters as their types say: \"007\" stays text")
    func variantsFillParameters() throws {
        let folder = try TemporaryFolder()
        try folder.write("user,size,tint\n007,12,#00FF00\nAna,30,#0000FF\n", to: "senders.csv")
        let batch = try Self.cardJob(
            in: folder,
            layer: #""params": { "user": "{{user}}", "size": "{{size}}", "tint": "{{tint}}" }"#)
        var text = try String(contentsOfFile: batch, encoding: .utf8)
        text = text.replacingOccurrences(
            of: #""output": { "dir": "out" },"#,
            with: #""output": { "dir": "batch" }, "variants": { "rows": "senders.csv", "name": "{{user}}" },"#)
        try text.write(toFile: batch, atomically: true, encoding: .utf8)
        try Self.render(batch)
        for (user, size, tint) in [("007", 12, "#00FF00"), ("Ana", 30, "#0000FF")] {
            let single = try Self.cardJob(
                in: folder, layer: #""params": { "user": "\#(user)", "size": \#(size), "tint": "\#(tint)" }"#)
            try Self.render(single, user)
            for frame in [0, 5, 14] {
                let name = String(format: "frame_%05d.png", frame)
                let fromRow = try Data(contentsOf: folder.url.appendingPathComponent("batch/\(user)/\(name)"))
                let written = try Data(contentsOf: folder.url.appendingPathComponent("out/\(name)"))
                #expect(fromRow == written, "\(user): frame \(frame)")
            }
        }
    }

    @Test("the manifest lists the composition file; editing it redraws its frames, an unchanged file none")
    func editsRedraw() throws {
        let folder = try TemporaryFolder()
        let job = try Self.cardJob(in: folder, layer: #""params": { "user": "Ana" }, "start": 0.5"#)
        let first = CLI.run(["render", job, "--progress", "none"])
        try #require(first.status == 0, "\(first.stderr)")
        let manifest =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: folder.url.appendingPathComponent("out/manifest.json"))) as? [String: Any]
        let inputs = manifest?["inputs"] as? [[String: Any]] ?? []
        #expect(
            Set(inputs.filter { $0["file"] as? String == "comps/card.json" }.compactMap { $0["layer"] as? Int }) == [
                0, 1,
            ])
        let frame = folder.url.appendingPathComponent("out/frame_00010.png")
        let before = try Data(contentsOf: frame)
        let again = CLI.run(["render", job, "--progress", "none"])
        #expect(again.stdout.contains("0 frames rendered, 15 already done"), "\(again.stdout)")
        // The tint's default is what the placing layer leaves to it: a new default redraws the shown frames.
        try Self.cardJob(in: folder, layer: #""params": { "user": "Ana" }, "start": 0.5"#, tint: "#0000FF")
        let edited = CLI.run(["render", job])
        #expect(edited.status == 0 && !edited.stdout.contains(" 0 frames rendered"), "\(edited.stdout)")
        // Said in the words of the edit: the file, and the place inside it through the placing layer.
        #expect(
            (edited.stdout + edited.stderr).contains(
                "because an input file changed (comps/card.json) and the job changed "
                    + "(layers[0].composition.layers[0].params.fill)"), "\(edited.stdout)\(edited.stderr)")
        #expect(try Data(contentsOf: frame) != before)
    }

    @Test("generated edits of composition files: the re-render's frames equal a fresh render's, every time")
    func editsLeaveNothingStale() throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["RENDERFARM_COMPOSITION_SEED"] ?? "") ?? 0xED17
        var random = FuzzRandom(seed: seed)
        let folder = try TemporaryFolder()
        let comp = Generated(random: &random, scale: 1, mayPlace: true)
        let values = Generated.values(&random, width: comp.width, height: comp.height)
        // Hearts always: their paths follow the composition's seed.
        var placed =
            try JSONSerialization.jsonObject(with: Data(try comp.text(defaults: values).utf8)) as? [String: Any] ?? [:]
        let hearts: [String: Any] = [
            "effect": "floating-heart", "params": ["emitter": [40, 60], "rate": 10, "size": 16, "lifetime": 0.9],
        ]
        placed["layers"] = (placed["layers"] as? [Any] ?? []) + [hearts]
        try folder.write(
            String(decoding: try JSONSerialization.data(withJSONObject: placed), as: UTF8.self),
            to: "comps/placed.json")
        var inner = random
        let sub = Generated(random: &inner, scale: 1, mayPlace: false)
        try folder.write(
            try sub.text(defaults: Generated.values(&inner, width: sub.width, height: sub.height)),
            to: "comps/sub/inner.json")
        let job = try folder.write(
            """
            { "version": 1, "fps": 16, "duration": 1.5, "canvas": { "width": 200, "height": 160, "scale": 1 },
              "output": { "dir": "out" },
              "layers": [ { "composition": "comps/placed.json", "params": { "label": "Ana" }, "start": 0.25 },
                          { "composition": "comps/sub/inner.json", "transform": { "position": [150, 110] } } ] }
            """, to: "job.json")
        try Self.render(job)
        for step in 0..<10 {
            let file = random.pick(["comps/placed.json", "comps/sub/inner.json"])
            let url = folder.url.appendingPathComponent(file)
            var document = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any] ?? [:]
            var canvas = document["canvas"] as? [String: Any] ?? [:]
            var layers = document["layers"] as? [[String: Any]] ?? []
            var parameters = document["parameters"] as? [String: [String: Any]] ?? [:]
            let edit = random.integer(0...5)
            switch edit {
            case 0: parameters["tint"]?["default"] = random.colour()
            case 1: canvas["background"] = random.colour()
            case 2: canvas["width"] = 2 * random.integer(30...80)
            case 3: document["duration"] = Double(random.integer(4...20)) / Generated.fps
            case 4: document["seed"] = random.integer(0...9_999)
            default:
                if layers.count > 1 && random.chance(0.5) {
                    layers.remove(at: random.next(layers.count))
                } else {
                    layers.append([
                        "effect": "shape",
                        "params": [
                            "fill": random.colour(),
                            "rect": [
                                "x": random.uniform(0, 40), "y": random.uniform(0, 40), "width": 30, "height": 20,
                            ],
                        ],
                    ])
                }
            }
            (document["canvas"], document["layers"], document["parameters"]) = (canvas, layers, parameters)
            try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys]).write(to: url)
            let label = "RENDERFARM_COMPOSITION_SEED=\(seed), step \(step): edit \(edit) of \(file)"
            try Self.render(job, label)
            let fresh = try TemporaryFolder()
            for name in ["job.json", "comps/placed.json", "comps/sub/inner.json"] {
                try fresh.write(
                    try String(contentsOf: folder.url.appendingPathComponent(name), encoding: .utf8), to: name)
            }
            try Self.render(fresh.url.appendingPathComponent("job.json").path, label)
            let (incremental, whole) = (
                try Manifest(folder: folder.url.appendingPathComponent("out")),
                try Manifest(folder: fresh.url.appendingPathComponent("out"))
            )
            #expect(incremental.frames.map(\.sha256) == whole.frames.map(\.sha256), "\(label)")
        }
    }

    @Test("a composition's event log and image are its folder's, not the job's files of the same name")
    func filesOfItsFolder() throws {
        let folder = try TemporaryFolder()
        // The job's own files of those names draw otherwise: hearts at other times, another picture.
        try folder.write("time,size\n0.1,40\n0.5,20\n", to: "comps/log.csv")
        try folder.write("time,size\n0.3,60\n", to: "log.csv")
        let star = Binary.packageRoot.appendingPathComponent("jobs/assets/star.png")
        try FileManager.default.copyItem(at: star, to: folder.url.appendingPathComponent("comps/badge.png"))
        try FileManager.default.copyItem(
            at: Binary.packageRoot.appendingPathComponent("jobs/assets/avatar.jpg"),
            to: folder.url.appendingPathComponent("badge.png"))
        let comp = try folder.write(
            """
            { "version": 1, "seed": 3, "fps": 10, "duration": 1, "canvas": { "width": 120, "height": 120, "scale": 1 },
              "output": { "dir": "alone" },
              "layers": [ { "effect": "image", "params": { "file": "badge.png", "rect": { "x": 0, "y": 0, "width": 40, "height": 40 } } },
                          { "effect": "floating-heart", "params": { "emitter": [60, 110], "events": "log.csv", "lifetime": 1 } } ] }
            """, to: "comps/card.json")
        let job = try folder.write(
            """
            { "version": 1, "fps": 10, "duration": 1, "canvas": { "width": 120, "height": 120, "scale": 1 },
              "output": { "dir": "placed" }, "layers": [ { "composition": "comps/card.json" } ] }
            """, to: "job.json")
        for file in [comp, job] { try Self.render(file) }
        let (alone, placed) = (
            try Manifest(folder: folder.url.appendingPathComponent("comps/alone")),
            try Manifest(folder: folder.url.appendingPathComponent("placed"))
        )
        #expect(alone.frames.map(\.sha256) == placed.frames.map(\.sha256))
        let inputs = try String(contentsOf: folder.url.appendingPathComponent("placed/manifest.json"), encoding: .utf8)
        #expect(inputs.contains("comps/log.csv") && inputs.contains("comps/badge.png"), "\(inputs)")
    }
}
