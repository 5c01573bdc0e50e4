import Foundation
import Testing

/// What the `text` effect takes from files and data: a font path that is no file is refused at once, in
/// the words images are refused with, and a variants row's value is drawn as text in markup.
@Suite("Text effect inputs")
struct TextInputTests {
    /// A job of one frame (200 × 50 pt unless given) with text layers of `params` (each a JSON object's members).
    static func job(
        name: String, variants: String? = nil, width: Int = 200, height: Int = 50, layers: [String]
    ) -> String {
        let rows = variants.map { #""variants": \#($0), "# } ?? ""
        return #"{"name": "\#(name)", "canvas": {"width": \#(width), "height": \#(height), "scale": 1}, "#
            + #""fps": 10, "duration": 0.1, "#
            + rows + #""layers": ["#
            + layers.map { #"{"effect": "text", "params": {\#($0)}}"# }
            .joined(separator: ", ") + "]}"
    }

    @Test(
        "a font that is a named pipe, a socket or a link out of the job's folder is refused at once",
        arguments: SpecialFile.allCases)
    func specialFont(_ special: SpecialFile) throws {
        let folder = try TemporaryFolder()
        try special.create(at: folder.path + "/font.ttf")
        try folder.write(Self.job(name: "font", layers: [#""text": "hi", "font": "font.ttf""#]), to: "job.json")
        // As for an image: a link to /dev/zero is refused by the confinement rule before anything is opened.
        let message =
            special == .deviceLink
            ? "font.ttf resolves outside the job's folder" : "font.ttf is \(special.kind), not a file"
        for command in ["validate", "render"] {
            let start = ContinuousClock.now
            // A hang is killed after 10 s and fails the test; the refusal itself must take under a second.
            let result = try Binary.run(
                [command, "job.json"] + (command == "render" ? ["--progress", "none"] : []), in: folder.url,
                timeout: 10)
            let elapsed = ContinuousClock.now - start
            report("\(command) refused a \(special) font in \(elapsed)")
            #expect(result.signal == nil && elapsed < .seconds(1), "\(command): \(elapsed) \(result.stderr)")
            #expect(result.status == 65, "\(command): \(result.stderr)")
            #expect(result.stderr.contains("job.json: layers[0].params.font: \(message)"), "\(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/out"), "a refused job wrote output")
    }

    @Test("in markup, a variants row's value is text: <b> and & in a CSV cell draw as written, like escaped text")
    func markupFromRows() throws {
        let folder = try TemporaryFolder()
        // The second layer's markup comes from the row too.
        try folder.write("n,on,title\n1,true,<b>bold</b> & co\n", to: "rows.csv")
        let lower = #""rect": {"x": 0, "y": 25, "width": 200, "height": 25}"#
        try folder.write(
            Self.job(
                name: "rows", variants: #"{"rows": "rows.csv", "name": "r{{n}}"}"#,
                layers: [
                    #""text": "{{title}}", "markup": true, "size": 16"#,
                    #""text": "<i>{{title}}</i>", "markup": "{{on}}", "size": 16, "# + lower,
                ]), to: "rows.json")
        let escaped = "&lt;b&gt;bold&lt;/b&gt; &amp; co"
        try folder.write(
            Self.job(
                name: "hand",
                layers: [
                    #""text": "\#(escaped)", "markup": true, "size": 16"#,
                    #""text": "<i>\#(escaped)</i>", "markup": true, "size": 16, "# + lower,
                ]), to: "hand.json")
        for job in ["rows.json", "hand.json"] {
            let result = CLI.run(["render", folder.path + "/" + job, "--progress", "none"])
            #expect(result.status == 0, "\(job): \(result.stderr)")
        }
        let fromRows = try Data(contentsOf: folder.url.appendingPathComponent("out/rows/r1/frame_00000.png"))
        let byHand = try Data(contentsOf: folder.url.appendingPathComponent("out/hand/frame_00000.png"))
        #expect(fromRows == byHand, "the CSV cell was not drawn as the same text escaped by hand")
    }

    /// The text plugin's library `plugin` with `marker` bytes appended, as `librenderfarm-text.so` in `folder`
    /// (made): another file, so the process loads it as another copy. Returns the folder's path.
    static func pluginCopy(_ plugin: Data, marked marker: [UInt8], in folder: URL) throws -> String {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try (plugin + Data(marker)).write(to: folder.appendingPathComponent("librenderfarm-text.so"))
        return folder.path
    }

    /// The text plugin loaded twice into one process (a rebuilt plugin the studio reloads; the incremental
    /// harness's rebuilt copies) draws each job with the job's own font, however often the font files are made
    /// anew. cairo keeps fonts by path for the whole process, and a font file made anew is given to fontconfig
    /// under a path of its own: two copies of the plugin once made the same such paths, and one copy drew the
    /// other's font.
    @Test("two copies of the text plugin in one process each draw their own job's font, round after round")
    func twoPluginCopiesKeepTheirFonts() throws {
        // Faces of four families: a family's other faces would lose to the package's regular face of it.
        let fonts = [
            "NotoSerif-Regular.ttf", "NotoSans-Regular.ttf", "NotoSerifDisplay-Regular.ttf",
            "NotoSansDisplay-Regular.ttf",
        ]
        .map { "\(TextEffectTests.noto)/\($0)" }.filter { FileManager.default.fileExists(atPath: $0) }
        try #require(fonts.count >= 2, "needs the Noto fonts of fonts-noto-core (make deps)")
        let folder = try TemporaryFolder()
        let plugin = try Data(contentsOf: Binary.buildDirectory.appendingPathComponent("librenderfarm-text.so"))
        var random = FuzzRandom(seed: 2026_12_06)
        for trial in 0..<3 {
            // Each copy: a library of other bytes (another file, so loaded again) and a job with its own font.
            let pair = random.sample(fonts, 2)
            let text = random.pick(["Hg", "aiko", "Wq 42", "fig."])
            let copies = try (0..<2).map { index in
                let copy = folder.url.appendingPathComponent("trial-\(trial)/copy-\(index)")
                let plugins = try Self.pluginCopy(
                    plugin, marked: [UInt8(trial), UInt8(index)], in: copy.appendingPathComponent("plugins"))
                try Self.job(name: "t", layers: [#""text": "\#(text)", "font": "font.ttf", "size": 30"#])
                    .write(to: copy.appendingPathComponent("job.json"), atomically: true, encoding: .utf8)
                return (folder: copy, plugins: plugins, font: pair[index])
            }
            var first: [Int: Data] = [:]
            for round in 0..<4 {
                for index in random.chance(0.5) ? [0, 1] : [1, 0] {
                    let copy = copies[index]
                    // The font file made anew, with a time of its own: another version, so another setup.
                    let font = copy.folder.appendingPathComponent("font.ttf")
                    try? FileManager.default.removeItem(at: font)
                    try FileManager.default.copyItem(atPath: copy.font, toPath: font.path)
                    try FileManager.default.setAttributes(
                        [.modificationDate: Date(timeIntervalSince1970: 1_000_000_000 + Double(round))],
                        ofItemAtPath: font.path)
                    let out = copy.folder.appendingPathComponent("out-\(round)")
                    let result = CLI.run(
                        ["render", copy.folder.appendingPathComponent("job.json").path, "--out", out.path]
                            + ["--progress", "none"] + CLI.pluginPath(copy.plugins, for: "render"))
                    try #require(result.status == 0, "\(result.stderr)")
                    let frame = try Data(contentsOf: out.appendingPathComponent("frame_00000.png"))
                    if let earlier = first[index] {
                        #expect(
                            frame == earlier,
                            "trial \(trial) round \(round): copy \(index) drew \(text) in another font than \(copy.font)"
                        )
                    } else {
                        first[index] = frame
                    }
                }
            }
            #expect(first[0] != first[1], "\(pair) draw \(text) alike: the test cannot tell them apart")
        }
    }

    /// Copies of the text plugin in one process draw at the same time as safely as one copy does, and as they draw
    /// alone: Pango, fontconfig and cairo's font caches are one per process, so every copy locks the same mutex.
    /// Each job has a font file of its own (so a copy sets fontconfig up anew while others draw) and eight lines of
    /// generated text in four scripts at sizes of their own: hundreds of fonts, more than cairo keeps, so its caches
    /// drop fonts while other copies draw. With a lock for each copy, 400 such jobs crashed the process in 3 of 9
    /// runs (`cairo_scaled_font_glyph_extents`, a bad pointer), as the incremental harness's rebuilt copies once
    /// did in CI; `make text-check` draws 600, `make test` 32. A sample is drawn again alone, for the same bytes.
    @Test("copies of the text plugin in one process draw at once, each frame as it draws alone")
    func copiesDrawAtOnce() throws {
        let jobs = ProcessInfo.processInfo.environment["RENDERFARM_TEXT_COPIES_JOBS"].flatMap { Int($0) } ?? 32
        let faces = [
            "NotoSerif-Regular.ttf", "NotoSans-Regular.ttf", "NotoSansDisplay-Regular.ttf",
            "NotoSerifDisplay-Regular.ttf",
        ]
        .map { "\(TextEffectTests.noto)/\($0)" }.filter { FileManager.default.fileExists(atPath: $0) }
        try #require(!faces.isEmpty, "needs the Noto fonts of fonts-noto-core (make deps)")
        let folder = try TemporaryFolder()
        let plugin = try Data(contentsOf: Binary.buildDirectory.appendingPathComponent("librenderfarm-text.so"))
        let copies = try (0..<4).map { index in
            try Self.pluginCopy(plugin, marked: [UInt8(index)], in: folder.url.appendingPathComponent("copy-\(index)"))
        }
        // Lower-case Latin, Latin-1 and Extended-A, Greek, Cyrillic: many glyphs, so cairo's caches keep changing.
        let scripts: [ClosedRange<UInt32>] = [0x61...0x7A, 0xC0...0x17F, 0x391...0x3C9, 0x410...0x44F]
        var random = FuzzRandom(seed: 2026_12_06_2)
        let jobFiles = try (0..<jobs).map { job in
            let font = "font-\(job).ttf"
            try FileManager.default.copyItem(atPath: random.pick(faces), toPath: folder.path + "/" + font)
            let layers = (0..<8).map { _ in
                let script = random.pick(scripts)
                let text = String(
                    String.UnicodeScalarView(
                        (0..<40).compactMap { _ in
                            Unicode.Scalar(
                                script.lowerBound + UInt32(random.next(Int(script.upperBound - script.lowerBound) + 1)))
                        }))
                return #""text": "\#(text)", "size": \#(random.integer(6...70))"#
                    + (random.chance(0.5) ? #", "font": "\#(font)""# : "")
            }
            try folder.write(Self.job(name: "j\(job)", width: 300, height: 100, layers: layers), to: "job-\(job).json")
            return folder.path + "/job-\(job).json"
        }
        let base = folder.path
        let render: @Sendable (Int, String) -> CLI.Result = { job, out in
            CLI.run(
                ["render", jobFiles[job], "--out", out, "-j", "2", "--progress", "none"]
                    + CLI.pluginPath(copies[job % copies.count], for: "render"))
        }
        DispatchQueue.concurrentPerform(iterations: jobs) { job in
            let result = render(job, base + "/together-\(job)")
            #expect(result.status == 0, "job \(job): \(result.stderr)")
        }
        for job in random.sample(Array(0..<jobs), min(6, jobs)) {
            let alone = base + "/alone-\(job)"
            let result = render(job, alone)
            try #require(result.status == 0, "job \(job) alone: \(result.stderr)")
            let together = try Data(contentsOf: URL(fileURLWithPath: base + "/together-\(job)/frame_00000.png"))
            #expect(
                together == (try Data(contentsOf: URL(fileURLWithPath: alone + "/frame_00000.png"))),
                "job \(job) drew otherwise among the others than alone")
        }
    }

    /// A job font file made anew while a process runs is given to fontconfig under an alias, a link in a folder of
    /// the plugin's own under TMPDIR (above): the studio with `--sandbox off` makes them in its own process, for the
    /// frames it draws after each edit of the font. The folder goes when the process exits.
    @Test("the font aliases the studio makes are removed when it exits")
    func aliasesRemovedAtExit() throws {
        let fonts = ["NotoSerif-Regular.ttf", "NotoSans-Regular.ttf"].map { "\(TextEffectTests.noto)/\($0)" }
        try #require(
            fonts.allSatisfy { FileManager.default.fileExists(atPath: $0) }, "needs fonts-noto-core (make deps)")
        let folder = try TemporaryFolder()
        let scratch = folder.url.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: fonts[0], toPath: folder.path + "/font.ttf")
        try folder.write(Self.job(name: "t", layers: [#""text": "Hg", "font": "font.ttf""#]), to: "job.json")
        let studio = try Binary.Running(
            ["studio", "job.json", "--port", "0", "--sandbox", "off"], in: folder.url,
            environment: ["TMPDIR": scratch.path])
        let aliasFolders = {
            ((try? FileManager.default.contentsOfDirectory(atPath: scratch.path)) ?? [])
                .filter { $0.hasPrefix("renderfarm-fonts-") }
        }
        let api = { (path: String) -> Data? in
            guard let address = try? String(contentsOf: studio.stdoutURL, encoding: .utf8).split(separator: "\n").first,
                let url = URL(string: address + "api/" + path)
            else { return nil }
            return try? Data(contentsOf: url)
        }
        var round = 0
        var generation: Int?
        try Binary.waitUntil("an alias folder in TMPDIR after edits of the font", running: studio) {
            // Each round, once the studio has seen the last edit (its input generation, GET /api/job, moved on): a
            // frame drawn, then the font file made anew (another face, another time). Edits made faster than the
            // studio's file watcher settles would be seen only every FileWatcher.longestBurst.
            guard let data = api("job"), let job = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                let now = job["inputGeneration"] as? Int, now != generation
            else { return false }
            generation = now
            round += 1
            _ = api("frames/0.png")
            guard aliasFolders().isEmpty else { return true }
            let font = folder.path + "/font.ttf"
            try? FileManager.default.removeItem(atPath: font)
            try? FileManager.default.copyItem(atPath: fonts[round % 2], toPath: font)
            return false
        }
        studio.signal(SIGTERM)
        let result = studio.wait(timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(aliasFolders().isEmpty, "left in TMPDIR after \(round) edits: \(aliasFolders())")
    }
}
