import Foundation
import Testing

/// The edits a user found leaving stale frames (a keyed job, where another layer reports frame keys): after
/// each, a render into the folder of the earlier one equals a fresh render of the edited job byte for byte,
/// and the summary names what changed.
@Suite("Stale frames: every kind of edit redraws what it changes")
struct StaleFrameTests {
    typealias Job = [String: Any]

    /// A job of five frames: hearts (which key every frame), a shape, static text, an image, a group and a
    /// layer another one masks.
    static func baseJob() -> Job {
        [
            "name": "stale", "seed": 3, "fps": 10, "duration": 0.5, "output": ["dir": "out"],
            "canvas": ["width": 120, "height": 120, "scale": 1, "background": "#101010"],
            "layers": [
                ["effect": "floating-heart", "params": ["emitter": [60, 110], "rate": 6, "size": 24, "lifetime": 2]],
                ["effect": "shape", "name": "box", "params": ["rect": rect(10, 10, 40, 40), "fill": "#FF0000"]],
                ["effect": "text", "params": ["text": "Bob", "size": 20, "rect": rect(0, 60, 120, 30)]],
                ["effect": "image", "params": ["file": "avatar.png", "rect": rect(70, 10, 40, 40), "circle": false]],
                [
                    "name": "badge", "transform": ["anchor": [60, 60], "rotation": 20],
                    "group": [["effect": "shape", "params": ["kind": "ellipse", "rect": rect(40, 80, 40, 20)]]],
                ],
                ["effect": "shape", "name": "window", "params": ["rect": rect(0, 0, 60, 120)]],
                [
                    "effect": "parabolic-drop",
                    "params": [
                        "count": 2, "from": [100, 100], "size": 30, "shape": "image", "image": "star.png",
                        "target": rect(10, 60, 60, 40), "stagger": 0.1,
                    ],
                ],
            ],
        ]
    }

    static func rect(_ x: Double, _ y: Double, _ width: Double, _ height: Double) -> [String: Double] {
        ["x": x, "y": y, "width": width, "height": height]
    }

    /// One edit: what it changes, where the summary must say so, and how.
    struct Edit: CustomStringConvertible, Sendable {
        var description: String
        /// Text the render's summary must contain.
        var reason: String
        var apply: @Sendable (inout Job, URL) throws -> Void
    }

    /// Sets the value at `path` (object keys and array indices) of `job`.
    static func set(_ value: Any?, at path: [Any], in job: inout Job) {
        func update(_ node: Any, _ rest: ArraySlice<Any>) -> Any? {
            guard let first = rest.first else { return value }
            if let key = first as? String, var object = node as? [String: Any] {
                object[key] = update(object[key] ?? [String: Any](), rest.dropFirst())
                return object
            }
            if let index = first as? Int, var array = node as? [Any], index < array.count {
                if let updated = update(array[index], rest.dropFirst()) { array[index] = updated }
                return array
            }
            return node
        }
        job = update(job, path[...]) as? Job ?? job
    }

    static let edits: [Edit] = [
        Edit(description: "shape fill", reason: "layers[1].params.fill") { job, _ in
            set("#00FF00", at: ["layers", 1, "params", "fill"], in: &job)
        },
        Edit(description: "static text", reason: "layers[2].params.text") { job, _ in
            set("Robert", at: ["layers", 2, "params", "text"], in: &job)
        },
        Edit(description: "image circle", reason: "layers[3].params.circle") { job, _ in
            set(true, at: ["layers", 3, "params", "circle"], in: &job)
        },
        Edit(description: "layer anchor", reason: "layers[1].transform") { job, _ in
            set(["anchor": [0, 0], "rotation": 10], at: ["layers", 1, "transform"], in: &job)
        },
        Edit(description: "layer anchor moved", reason: "layers[1].transform.anchor") { job, _ in
            set([30, 0], at: ["layers", 1, "transform", "anchor"], in: &job)
        },
        Edit(description: "blend", reason: "layers[2].blend") { job, _ in
            set("difference", at: ["layers", 2, "blend"], in: &job)
        },
        Edit(description: "mask added", reason: "layers[3].mask") { job, _ in
            set(["layer": "window"], at: ["layers", 3, "mask"], in: &job)
        },
        Edit(description: "mask inverted", reason: "layers[3].mask.invert") { job, _ in
            set(true, at: ["layers", 3, "mask", "invert"], in: &job)
        },
        Edit(description: "masking layer's rect", reason: "layers[5].params.rect") { job, _ in
            set(rect(0, 0, 90, 120), at: ["layers", 5, "params", "rect"], in: &job)
        },
        Edit(description: "mask removed", reason: "layers[3].mask") { job, _ in
            set(nil, at: ["layers", 3, "mask"], in: &job)
        },
        Edit(description: "group anchor", reason: "layers[4].transform.anchor") { job, _ in
            set([20, 20], at: ["layers", 4, "transform", "anchor"], in: &job)
        },
        Edit(description: "group member's fill", reason: "layers[4].group[0].params.fill") { job, _ in
            set("#3060FF", at: ["layers", 4, "group", 0, "params", "fill"], in: &job)
        },
        Edit(description: "background", reason: "canvas.background") { job, _ in
            set("#204020", at: ["canvas", "background"], in: &job)
        },
        Edit(description: "image file rewritten, same size and time", reason: "avatar.png") { _, folder in
            try rewriteKeepingSizeAndTime(folder.appendingPathComponent("avatar.png"), rgb: (40, 200, 90))
        },
        Edit(description: "item image rewritten, same size and time", reason: "star.png") { _, folder in
            try rewriteKeepingSizeAndTime(folder.appendingPathComponent("star.png"), rgb: (250, 40, 200))
        },
    ]

    @Test(
        "each edit of a keyed job redraws what it changes: the folder equals a fresh render",
        arguments: [false, true])
    func everyEdit(isolated: Bool) throws {
        let folder = try TemporaryFolder()
        try writePNG(folder.url.appendingPathComponent("avatar.png"), rgb: (200, 120, 40))
        try writePNG(folder.url.appendingPathComponent("star.png"), rgb: (255, 220, 0))
        let job = folder.url.appendingPathComponent("job.json")
        var spec = Self.baseJob()
        try write(spec, to: job)
        let first = CLI.run(["render", job.path, "--progress", "none"])
        try #require(first.status == 0, "\(first.stderr)")
        for (number, edit) in Self.edits.enumerated() {
            try edit.apply(&spec, folder.url)
            try write(spec, to: job)
            let incremental = CLI.run(["render", job.path, "--progress", "plain"] + (isolated ? ["--isolate"] : []))
            try #require(incremental.status == 0, "\(edit): \(incremental.stderr)")
            #expect(
                incremental.stderr.contains(edit.reason),
                "\(edit): the summary names another cause: \(incremental.stderr)")
            let fresh = folder.url.appendingPathComponent("fresh-\(number)")
            let reference = CLI.run(["render", job.path, "--progress", "none", "--out", fresh.path])
            try #require(reference.status == 0, "\(edit): \(reference.stderr)")
            let stale = try differingFrames(folder.url.appendingPathComponent("out"), fresh)
            #expect(stale.isEmpty, "\(edit): frames \(stale) differ from a fresh render")
        }
    }

    @Test("editing a cell of a variants file redraws that variant's frames and only those")
    func variantsCell() throws {
        let folder = try TemporaryFolder()
        let csv = folder.url.appendingPathComponent("names.csv")
        try "id,name,color\nb,Bob,#FF4080\na,Alice,#40A0FF\n".write(to: csv, atomically: true, encoding: .utf8)
        var spec = Self.baseJob()
        spec["name"] = "badge-{{id}}"
        spec["output"] = ["dir": "out/{{id}}"]
        Self.set("{{name}}", at: ["layers", 2, "params", "text"], in: &spec)
        Self.set("{{color}}", at: ["layers", 1, "params", "fill"], in: &spec)
        spec["variants"] = ["rows": "names.csv"]
        try writePNG(folder.url.appendingPathComponent("avatar.png"), rgb: (200, 120, 40))
        try writePNG(folder.url.appendingPathComponent("star.png"), rgb: (255, 220, 0))
        let job = folder.url.appendingPathComponent("job.json")
        try write(spec, to: job)
        try #require(CLI.run(["render", job.path, "--progress", "none"]).status == 0)
        try "id,name,color\nb,Robert,#FF4080\na,Alice,#40A0FF\n".write(to: csv, atomically: true, encoding: .utf8)
        let again = CLI.run(["render", job.path, "--progress", "plain"])
        try #require(again.status == 0, "\(again.stderr)")
        #expect(
            again.stderr.contains(
                "rendering 5 frames of 2 jobs (5 already done, skipped): 5 because the variants file changed "
                    + "(layers[2].params.text)"), "\(again.stderr)")
        let fresh = folder.url.appendingPathComponent("fresh")
        try #require(CLI.run(["render", job.path, "--progress", "none", "--out", fresh.path]).status == 0)
        for id in ["b", "a"] {
            let stale = try differingFrames(
                folder.url.appendingPathComponent("out/\(id)"), fresh.appendingPathComponent("badge-\(id)"))
            #expect(stale.isEmpty, "variant \(id): frames \(stale) differ from a fresh render")
        }
    }

    /// Frames whose files differ between two output folders (or exist in one only).
    func differingFrames(_ one: URL, _ other: URL) throws -> [String] {
        let names = { (folder: URL) in
            Set(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".png") })
        }
        let all = try names(one).union(names(other))
        return all.sorted().filter { name in
            (try? Data(contentsOf: one.appendingPathComponent(name)))
                != (try? Data(contentsOf: other.appendingPathComponent(name)))
        }
    }

    func write(_ job: Job, to url: URL) throws {
        try JSONSerialization.data(withJSONObject: job, options: [.sortedKeys]).write(to: url)
    }
}

/// A 48 × 48 PNG of one colour, stored without compression: its size depends only on its dimensions.
func writePNG(_ url: URL, rgb: (UInt8, UInt8, UInt8)) throws {
    var rows: [UInt8] = []
    for _ in 0..<48 { rows += [0] + Array(repeating: [rgb.0, rgb.1, rgb.2], count: 48).flatMap { $0 } }
    try StoredPNG.data(width: 48, height: 48, rows: rows).write(to: url)
}

/// Writes another colour into the PNG at `url` with the same size, then restores its modification time, as a
/// tool that rewrites a file in place and keeps its time would.
func rewriteKeepingSizeAndTime(_ url: URL, rgb: (UInt8, UInt8, UInt8)) throws {
    var status = stat()
    try #require(stat(url.path, &status) == 0)
    let size = status.st_size
    try writePNG(url, rgb: rgb)
    var times = [status.st_atim, status.st_mtim]
    try #require(utimensat(AT_FDCWD, url.path, &times, 0) == 0)
    try #require(stat(url.path, &status) == 0 && status.st_size == size)
}
