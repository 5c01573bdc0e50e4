import Foundation
import Testing

/// `physics-bounce` with `impacts`: each bounce is an `impact` moment (ABI `moments`) at the time the item
/// touches, checked against the simulation's own trajectory read back through `renderfarm trace` at one frame per
/// simulation step, on generated scenes.
@Suite("physics-bounce impacts as moments")
struct BounceImpactTests {
    /// Each item's centre height and vertical velocity at every frame `trace` lists, by item id.
    static func heights(_ file: String) throws -> [Int: [(frame: Int, y: Double, vy: Double)]] {
        let traced = CLI.run(["trace", file])
        try #require(traced.status == 0, "\(traced.stderr)")
        var heights: [Int: [(frame: Int, y: Double, vy: Double)]] = [:]
        for line in traced.stdout.split(separator: "\n") {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let frame = try #require(object["frame"] as? Int)
            let layers = try #require(object["layers"] as? [[String: Any]])
            for item in layers.first?["items"] as? [[String: Any]] ?? [] where item["visible"] as? Bool == true {
                guard let id = item["id"] as? Int, let y = (item["y"] as? NSNumber)?.doubleValue,
                    let vy = (item["vy"] as? NSNumber)?.doubleValue
                else { continue }
                heights[id, default: []].append((frame, y, vy))
            }
        }
        return heights
    }

    @Test("8 generated drops at one frame per step: each bounce is one impact, at the touch within 0.5 ms, no other")
    func bouncesAreImpacts() throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["RENDERFARM_IMPACT_SEED"] ?? "") ?? 0x696D_70
        var bounces = 0
        for run in 0..<8 {
            var random = FuzzRandom(seed: seed &+ UInt64(run))
            let label = "RENDERFARM_IMPACT_SEED=\(seed &+ UInt64(run))"
            let gravity = random.uniform(0.5, 2) * 1000
            let floor = random.uniform(300, 580)
            var items: [(y: Double, vy: Double, size: Double)] = []
            var listed: [String] = []
            for index in 0..<random.integer(1...3) {
                let size = random.uniform(10, 60)
                let item = (y: random.uniform(20, floor - 120), vy: random.uniform(-300, 300), size: size)
                items.append(item)
                listed.append(
                    "{ \"at\": [\(80 + 150 * index), \(item.y)], \"size\": \(size), \"velocity\": [0, \(item.vy)], "
                        + "\"shape\": \"\(random.pick(["box", "coin"]))\" }")
            }
            let folder = try TemporaryFolder()
            let file = try folder.write(
                """
                { "version": 1, "name": "impacts", "fps": 240, "duration": 2.5, "canvas": { "width": 480, "height": 600 },
                  "layers": [ { "name": "bounce", "effect": "physics-bounce", "params": {
                    "items": [\(listed.joined(separator: ", "))], "itemsCollide": false, "impacts": true,
                    "elasticity": \(random.uniform(0.3, 0.9)), "gravity": { "direction": [0, 1], "magnitude": \(gravity / 1000) },
                    "barrier": { "from": [0, \(floor)], "to": [480, \(floor)] } } } ] }
                """, to: "job.json")
            let moments = try MomentSoundTests.moments(file)
            #expect(moments.filter { $0.name == "spawn" }.map(\.item) == Array(items.indices), "\(label)")
            let heights = try Self.heights(file)
            for (index, item) in items.enumerated() {
                let impacts = moments.filter { $0.name == "impact" && $0.item == index }.map(\.time)
                // The first touch, from the start: half g t² + vy t = the gap under the item.
                let gap = floor - item.y - item.size / 2
                let first = (-item.vy + (item.vy * item.vy + 2 * gravity * gap).squareRoot()) / gravity
                #expect(abs((impacts.first ?? -1) - first) < 0.0005, "\(label): item \(index) \(impacts) vs \(first)")
                // Every bounce: downward before a step, upward after it; touching within that step, on the
                // ballistic path from the state before it (the simulation's free flight is exact).
                let states = heights[index] ?? []
                var touches: [Double] = []
                for (before, after) in zip(states, states.dropFirst())
                where after.frame == before.frame + 1 && before.vy > 0 && after.vy < -1 {
                    let gap = floor - before.y - item.size / 2
                    let tau = (-before.vy + (before.vy * before.vy + 2 * gravity * gap).squareRoot()) / gravity
                    touches.append(Double(before.frame) / 240 + tau)
                }
                bounces += touches.count
                #expect(
                    impacts.count == touches.count, "\(label): item \(index) impacts \(impacts), bounces \(touches)")
                for (impact, touch) in zip(impacts, touches) {
                    #expect(
                        abs(impact - touch) < 0.0005, "\(label): item \(index) impact \(impact) s, touch \(touch) s")
                }
            }
        }
        #expect(bounces >= 16, "the generated drops bounced only \(bounces) times")
    }

    @Test("generated head-on collisions without gravity: one impact, the lower item's, when the gap closes (0.5 ms)")
    func itemsMeeting() throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["RENDERFARM_IMPACT_SEED"] ?? "") ?? 0x696D_70
        for run in 0..<4 {
            var random = FuzzRandom(seed: seed &+ UInt64(run) &+ 50)
            let label = "RENDERFARM_IMPACT_SEED=\(seed &+ UInt64(run)) (head-on)"
            let (left, right) = (random.uniform(10, 60), random.uniform(10, 60))
            let gap = random.uniform(20, 300)
            let (speedLeft, speedRight) = (random.uniform(100, 600), random.uniform(100, 600))
            let rightX = 200 + left / 2 + gap + right / 2
            let folder = try TemporaryFolder()
            let file = try folder.write(
                """
                { "version": 1, "name": "meet", "fps": 60, "duration": 2, "canvas": { "width": 1000, "height": 600 },
                  "layers": [ { "name": "pair", "effect": "physics-bounce", "params": { "impacts": true,
                    "gravity": { "direction": [0, 1], "magnitude": 0 },
                    "items": [ { "at": [200, 300], "size": \(left), "velocity": [\(speedLeft), 0] },
                               { "at": [\(rightX), 300], "size": \(right), "velocity": [\(-speedRight), 0],
                                 "shape": "\(random.pick(["box", "coin"]))" } ] } } ] }
                """, to: "job.json")
            let impacts = try MomentSoundTests.moments(file).filter { $0.name == "impact" }
            let meeting = gap / (speedLeft + speedRight)
            #expect(impacts.count == 1, "\(label): \(impacts)")
            #expect(impacts.first?.item == 0, "\(label): \(impacts)")
            #expect(abs((impacts.first?.time ?? -1) - meeting) < 0.0005, "\(label): \(impacts) vs \(meeting)")
        }
    }

    @Test(
        "a sound at each impact: the mix's onsets within 1 ms of the moments, for generated drops",
        .enabled(if: Tools.hasFFmpeg, "ffmpeg/ffprobe not installed: apt-get install ffmpeg"))
    func soundAtImpacts() throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["RENDERFARM_IMPACT_SEED"] ?? "") ?? 0x696D_70
        for run in 0..<2 {
            var random = FuzzRandom(seed: seed &+ UInt64(run) &+ 100)
            let label = "RENDERFARM_IMPACT_SEED=\(seed &+ UInt64(run)) (sound)"
            let folder = try TemporaryFolder()
            try SoundTests.tone(1000, amplitude: 0.8, seconds: 0.03).write(
                to: folder.url.appendingPathComponent("clack.wav"))
            let file = try folder.write(
                """
                { "version": 1, "name": "clacks", "fps": 30, "duration": 4, "canvas": { "width": 375, "height": 667 },
                  "layers": [ { "name": "coin", "effect": "physics-bounce", "start": \(random.uniform(0, 0.5)),
                    "params": { "impacts": true, "restThreshold": 200, "elasticity": \(random.uniform(0.5, 0.8)),
                      "items": [ { "at": [180, \(random.uniform(150, 400))], "shape": "coin", "size": 30 } ] } } ],
                  "audio": { "sounds": [ { "file": "clack.wav", "at": { "layer": "coin", "moment": "impact" } } ] } }
                """, to: "job.json")
            let impacts = try MomentSoundTests.moments(file).filter { $0.name == "impact" }.map(\.time)
            #expect(impacts.count >= 2, "\(label): \(impacts)")
            try MomentSoundTests.expectOnsets(file, in: folder, at: impacts.filter { $0 < 4 - 0.03 }, label: label)
        }
    }
}
