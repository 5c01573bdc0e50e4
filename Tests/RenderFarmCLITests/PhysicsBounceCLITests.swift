import Foundation
import Testing

/// The drop of EffectKit article UIKitDynamics ("Test vectors") as a job: a 40 pt box whose bottom is 50 pt
/// above a boundary at y = 500, traced at 240 fps (one frame per physics step).
private let dropJob = """
    { "canvas": {"width": 375, "height": 667, "scale": 1}, "fps": 240, "duration": 2,
      "layers": [ { "effect": "physics-bounce", "params": {
        "items": [ { "at": [100, 430], "size": 40 } ],
        "barrier": { "from": [0, 500], "to": [375, 500] } } } ] }
    """

@Suite("physics-bounce through `renderfarm trace`")
struct PhysicsBounceCLITests {
    @Test("traced impacts and apexes match the UIKitDynamics test vectors; the item never sinks into the edge")
    func bounceVectors() throws {
        let folder = try TemporaryFolder()
        let lines = try Trace.run(try folder.write(dropJob, to: "drop.json"))
        let states = lines.compactMap { line in line.items().first.map { (line.time, $0) } }
        var impacts: [Double] = []
        var apexes: [Double] = []
        for (previous, current) in zip(states, states.dropFirst()) {
            if previous.1.vy > 1, current.1.vy <= 0 { impacts.append(current.0) }
            if previous.1.vy < -1, current.1.vy >= 0 { apexes.append(500 - (previous.1.y + 20)) }
            #expect(current.1.y + 20 <= 500.5, "sinks \(current.1.y + 20 - 500) pt at \(current.0) s")
        }
        try #require(impacts.count == 4, "\(impacts)")
        for (measured, expected) in zip(impacts, [0.3162, 0.6957, 0.9234, 1.0600]) {
            #expect(
                abs(measured - expected) <= 1.0 / 240 + 0.01 * expected, "impact at \(measured), expected \(expected)")
        }
        for (measured, expected) in zip(apexes, [18.0, 6.48]) {
            #expect(abs(measured - expected) <= 0.03 * expected, "apex \(measured), expected \(expected)")
        }
        let last = try #require(states.last?.1)
        #expect(last.resting == true && last.vx == 0 && abs(last.y + 20 - 500) < 0.1)
        #expect(last.planNumber("spawn") == 0 && last.plan["body"] as? String == "box")
    }

    /// Debian's Chipmunk prints a debug banner at a process's first physics space; each copy of EffectKit
    /// absorbs it (ChipmunkBannerTests), in the renderfarm process and in a worker alike.
    @Test("a physics render prints no Chipmunk banner, with its plugin in process or in a worker (--isolate)")
    func noBanner() throws {
        let folder = try TemporaryFolder()
        let job = try folder.write(dropJob, to: "drop.json")
        for (index, isolate) in [[], ["--isolate"]].enumerated() {
            let out = folder.path + "/out-\(index)"
            let result = try Binary.run(
                ["render", job, "--frames", "0-3", "--out", out, "--progress", "none"] + isolate)
            #expect(result.status == 0, "\(isolate): \(result.stderr)")
            #expect(
                !(result.stdout + result.stderr).contains("Chipmunk"), "\(isolate): \(result.stdout)\(result.stderr)")
        }
    }

    @Test("two items dropped on each other end stacked without overlapping; traces repeat exactly")
    func stackAndRepeat() throws {
        let folder = try TemporaryFolder()
        let job = try folder.write(
            """
            { "canvas": {"width": 375, "height": 667, "scale": 1}, "fps": 60, "duration": 3,
              "layers": [ { "effect": "physics-bounce", "params": { "shape": "gift",
                "items": [ { "at": [100, 470] }, { "at": [104, 300], "size": [40, 40] } ],
                "barrier": { "from": [0, 500], "to": [375, 500] } } } ] }
            """, to: "stack.json")
        let first = CLI.run(["trace", job])
        let second = CLI.run(["trace", job])
        #expect(first.status == 0 && first.stdout == second.stdout)
        // Chipmunk, like Box2D, finds a contact between two moving items once they overlap, so in the step of
        // an impact they overlap by up to closing speed × step (≈ 510 pt/s / 240 here); otherwise they touch.
        var impactFrames = 0
        for line in try Trace.decode(first.stdout) {
            let items = line.items()
            let overlap = min(40 - abs(items[0].x - items[1].x), 40 - abs(items[0].y - items[1].y))
            #expect(overlap < 2.5, "overlap \(overlap) pt at \(line.time) s")
            if overlap > 0.5 { impactFrames += 1 }
            if line.time > 2.5 {
                #expect(abs(items[0].y - 480) < 0.1 && abs(items[1].y - 440) < 0.15, "\(items.map(\.y))")
            }
        }
        #expect(impactFrames <= 2)
    }

    @Test("spawned items appear one after another inside their area")
    func spawn() throws {
        let folder = try TemporaryFolder()
        let job = try folder.write(
            """
            { "seed": 4, "canvas": {"width": 375, "height": 667, "scale": 1}, "fps": 10, "duration": 1,
              "layers": [ { "effect": "physics-bounce", "params": {
                "spawn": { "count": 3, "area": {"x": 50, "y": 10, "width": 100, "height": 20}, "interval": 0.3 } } } ] }
            """, to: "spawn.json")
        let lines = try Trace.run(job)
        #expect(lines[0].items().map(\.visible) == [true, false, false])
        #expect(lines[3].items().map(\.visible) == [true, true, false])
        for item in lines[0].items() {
            let start = item.plan["start"] as? [NSNumber] ?? []
            #expect(
                start.count == 2 && (50...150).contains(start[0].doubleValue)
                    && (10...30).contains(start[1].doubleValue))
        }
    }
}

@Suite("Bad parameters of the new plugins: exit 65, naming the layer and the parameter")
struct NewPluginErrorTests {
    /// (params of one layer, what the message must contain)
    static let cases: [(effect: String, params: String, message: String)] = [
        (
            "physics-bounce", #"{"size": -3, "spawn": {"count": 1, "area": {"x":0,"y":0,"width":9,"height":9}}}"#,
            "layers[0].params.size: -3 is out of range"
        ),
        (
            "physics-bounce", #"{"items": [{"at": [1, 2], "size": [-4, 4]}]}"#,
            "layers[0].params.items[0].size: expected a positive number or [width, height]"
        ),
        (
            "physics-bounce", #"{"items": [{"at": [1, 2]}], "barrier": {"from": [0, 9], "to": [0, 9]}}"#,
            "barrier.to: zero-length boundary"
        ),
        (
            "physics-bounce",
            #"{"items": [{"at": [1, 2]}], "barriers": [{"from": [0,9], "to": [9,9]}, {"from": [1,1], "to": [1,1]}]}"#,
            "barriers[1].to: zero-length boundary"
        ),
        ("physics-bounce", #"{"items": [{"at": [1, 2], "shape": "star"}]}"#, "items[0].shape: unknown shape \"star\""),
        ("parabolic-drop", #"{"shape": "star"}"#, "layers[0].params.shape: expected one of"),
        ("parabolic-drop", #"{"image": "missing.png"}"#, "layers[0].params.image: missing.png not found"),
        ("parabolic-drop", #"{"image": "../escape.png"}"#, "image: ../escape.png resolves outside the job's folder"),
        ("parabolic-drop", #"{"shape": "image"}"#, "image: missing"),
        ("physics-bounce", #"{}"#, "items: missing"),
        ("physics-bounce", #"{"items": [{"at": [1, 2], "sise": 3}]}"#, "items[0].sise: unknown key"),
    ]

    @Test("validate and render refuse the job", arguments: cases.indices)
    func refused(index: Int) throws {
        let (effect, params, message) = Self.cases[index]
        let folder = try TemporaryFolder()
        try folder.write("not a png", to: "escape.png")
        let job = try folder.write(
            """
            { "duration": 1, "fps": 10, "layers": [ { "effect": "\(effect)", "params": \(params) } ] }
            """, to: "jobs/bad.json")
        for command in ["validate", "render", "trace"] {
            var arguments = [command, job]
            if command == "render" {
                arguments += ["--out", folder.url.appendingPathComponent("out").path, "--progress", "none"]
            }
            let result = CLI.run(arguments)
            #expect(result.status == 65, "\(command): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(command): \(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("out/frame_00000.png").path))
    }

    @Test("`renderfarm plugins` documents every parameter of the new plugins")
    func documented() throws {
        let result = CLI.run(["plugins", "--json"])
        try #require(result.status == 0)
        let plugins = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        func names(_ id: String) -> Set<String> {
            let plugin = plugins.first { $0["id"] as? String == id }
            let parameters = plugin?["parameters"] as? [[String: Any]] ?? []
            #expect(parameters.allSatisfy { !($0["doc"] as? String ?? "").isEmpty })
            return Set(parameters.compactMap { $0["name"] as? String })
        }
        #expect(
            names("parabolic-drop").isSuperset(of: [
                "count", "from", "size", "shape", "image", "target", "deviation", "arcHeight", "controlFraction",
                "stagger", "onLand", "pathSampling",
            ]))
        #expect(
            names("physics-bounce").isSuperset(of: [
                "items", "spawn", "gravity", "barrier", "barriers", "elasticity", "friction", "density", "resistance",
                "allowsRotation", "itemsCollide", "timestep",
            ]))
    }
}
