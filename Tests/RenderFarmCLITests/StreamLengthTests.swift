import CairoKit
import Foundation
import RenderFarmPluginABI
import StrictJSON
import Testing

@testable import RenderFarm
@testable import RenderFarmJobs

/// Issue 15, the effects' side: physics that streams (a late shard draws what the whole job draws),
/// frame keys that change exactly where the drawing does, and the raised limits.
@Suite("Stream-length effects")
struct StreamLengthTests {
    /// A built-in plugin in a job-like setting: an instance of it with `params` (defaults filled).
    struct Layer {
        let check: PluginCheck

        init(_ effect: String, params: JSONObject, duration: Double, fps: Double = 30) throws {
            let catalog = PluginCatalog.discover(searchPath: PluginCatalog.searchPath())
            var setting = PluginCheck.Setting()
            (setting.width, setting.height, setting.duration, setting.fps) = (200, 300, duration, fps)
            setting.params = params
            check = PluginCheck(try #require(catalog[effect]), setting: setting)
        }

        func instance() throws -> PluginInstance {
            let (filled, issues) = ParameterValidator.validate(
                check.setting.params, against: check.plugin.info, path: "params")
            #expect(issues.isEmpty, "\(issues)")
            return try check.makeInstance(filled)
        }

        func pixels(_ instance: PluginInstance, _ frame: Int) throws -> [UInt8] {
            try check.draw(instance, frame).get().pixels
        }

        func key(_ instance: PluginInstance, _ frame: Int) -> [UInt8]? {
            let time = Double(frame) / check.setting.fps
            return instance.frameKey(frame: rf_frame(index: UInt32(frame), time: time, local: time))
        }
    }

    /// Gifts every 0.3 s for two minutes onto the canvas floor, each removed 4 s after its spawn.
    static let gifts: JSONObject = [
        "spawn": ["count": 400, "area": ["x": 40, "y": 20, "width": 120, "height": 40], "interval": 0.3],
        "lifetime": 4, "bounds": true, "size": 24,
    ]

    @Test("physics prepared for the last frames of a long layer draws exactly what an unprepared instance draws")
    func preparedLateFrames() throws {
        let layer = try Layer("physics-bounce", params: Self.gifts, duration: 120)
        let whole = try layer.instance()
        let late = try layer.instance()
        try late.prepare(frames: 3500...3599)
        for frame in [3500, 3541, 3599] {
            let pixels = try layer.pixels(late, frame)
            #expect(pixels.contains { $0 != 0 }, "frame \(frame) is blank")
            #expect(pixels == (try layer.pixels(whole, frame)), "frame \(frame)")
            #expect(layer.key(late, frame) == layer.key(whole, frame))
        }
        // A frame outside the prepared ones (preview --debug traces one) is simulated on its own.
        #expect(try layer.pixels(late, 1200) == layer.pixels(whole, 1200))
    }

    @Test(
        "frames with equal keys are equal; items at rest keep their key",
        arguments: ["physics-bounce", "parabolic-drop"])
    func equalKeysEqualFrames(effect: String) throws {
        let params: JSONObject =
            effect == "physics-bounce"
            ? ["items": [["at": [100, 100]], ["at": [60, 30], "shape": "coin"]], "bounds": true]
            : [
                "count": 4, "stagger": 0.2, "onLand": "bounce", "lifetime": 5,
                "target": ["x": 40, "y": 200, "width": 120, "height": 60],
            ]
        let layer = try Layer(effect, params: params, duration: 8)
        let instance = try layer.instance()
        try instance.prepare(frames: 0...239)
        var previous: (key: [UInt8], pixels: [UInt8])?
        var repeats = 0
        for frame in 0..<240 {
            let key = try #require(layer.key(instance, frame))
            let pixels = try layer.pixels(instance, frame)
            if let previous, previous.key == key {
                repeats += 1
                #expect(
                    previous.pixels == pixels, "frame \(frame) has the key of frame \(frame - 1) but not its pixels")
            }
            previous = (key, pixels)
        }
        // The items come to rest within a few seconds: most later frames repeat their predecessor's key.
        #expect(repeats > 100, "\(repeats) repeated keys")
    }

    @Test("editing one heart event changes the keys of exactly the frames that heart is drawn on")
    func heartEdit() throws {
        let events: [JSONValue] = (0..<40).map { index in
            .object(["time": .number(Double(index) * 1.5), "color": .string("#FF4D6D")])
        }
        var edited = events
        edited[20] = .object(["time": .number(30), "color": .string("#3A86FF")])
        let before = try Layer(
            "floating-heart", params: ["events": .array(events), "lifetime": 2, "emitter": [100, 280]], duration: 70)
        let after = try Layer(
            "floating-heart", params: ["events": .array(edited), "lifetime": 2, "emitter": [100, 280]], duration: 70)
        let (old, new) = (try before.instance(), try after.instance())
        var changed: [Int] = []
        for frame in 0..<2100 {
            let key = try #require(before.key(old, frame))
            if key != after.key(new, frame) { changed.append(frame) }
            // Nothing drawn has one key whatever the time: frames before the first bloom and after the last fade.
            if frame == 0 || frame > 2000 { #expect(key == before.key(old, 0)) }
        }
        // Heart 20 spawns at 30 s and is drawn while 0 < age < 2 s: frames 901 to 959 at 30 fps.
        #expect(changed == Array(901...959))
        for frame in [900, 930, 960] {
            #expect(
                (try before.pixels(old, frame) == after.pixels(new, frame)) == !changed.contains(frame),
                "frame \(frame)")
        }
    }

    @Test("a shard far into a long physics job writes the same PNG bytes as the whole render")
    func lateShard() throws {
        let job = """
            { "name": "long-gifts", "seed": 3, "fps": 10, "duration": 150, "frames": "0-1499:5",
              "canvas": {"width": 200, "height": 300, "scale": 1}, "output": {"compression": "fast"},
              "layers": [ { "effect": "physics-bounce", "params": {
                "spawn": {"count": 480, "area": {"x": 40, "y": 20, "width": 120, "height": 40}, "interval": 0.3},
                "lifetime": 4, "bounds": true, "size": 24 } } ] }
            """
        let whole = try TemporaryFolder()
        let wholePath = try whole.write(job, to: "job.json")
        #expect(CLI.run(["render", wholePath, "--progress", "none", "-j", "2"]).status == 0)
        let sharded = try TemporaryFolder()
        let shardPath = try sharded.write(job, to: "job.json")
        let shard = CLI.run(["render", shardPath, "--shard", "9/10", "--progress", "none", "-j", "2"])
        #expect(shard.status == 0, "\(shard.stderr)")
        let files = try pngFiles(in: sharded.url.appendingPathComponent("out"))
        #expect(files.count == 30)
        for (name, bytes) in files {
            let reference = try Data(contentsOf: whole.url.appendingPathComponent("out").appendingPathComponent(name))
            #expect(bytes == reference, "\(name)")
        }
    }

    @Test(
        "drop items with a lifetime are drawn and traced from their launch until it ends",
        arguments: ["stop", "bounce"])
    func dropLifetime(onLand: String) throws {
        let folder = try TemporaryFolder()
        let job = try folder.write(
            """
            { "fps": 10, "duration": 4, "canvas": {"width": 375, "height": 667, "scale": 1},
              "layers": [ { "effect": "parabolic-drop",
                "params": {"count": 6, "stagger": 0.5, "lifetime": 1.2, "onLand": "\(onLand)"} } ] }
            """, to: "drop.json")
        for line in try Trace.run(job) {
            // Item i launches at 0.5 i s and is removed 1.2 s later.
            let expected = (0..<6).filter { line.time >= 0.5 * Double($0) - 1e-9 && line.time < 0.5 * Double($0) + 1.2 }
            #expect(line.items().filter(\.visible).map(\.id) == expected, "\(line.time) s")
        }
    }

    @Test("limits: a million hearts and 100,000 physics items per layer over three hours validate")
    func limits() throws {
        let folder = try TemporaryFolder()
        func validate(_ layer: String) throws -> Binary.Result {
            let job = """
                { "fps": 60, "duration": 10800, "canvas": {"width": 375, "height": 667, "scale": 1},
                  "layers": [ \(layer) ] }
                """
            return CLI.run(["validate", try folder.write(job, to: "job.json")])
        }
        // 90 likes/s for three hours: 972,000 hearts. 100 likes/s is 1,080,000: refused, naming the limit.
        #expect(try validate(#"{"effect": "floating-heart", "params": {"rate": 90}}"#).status == 0)
        let hearts = try validate(#"{"effect": "floating-heart", "params": {"rate": 100}}"#)
        #expect(hearts.status == 65)
        #expect(hearts.stderr.contains("1080000 hearts over 10800.0 s; at most 1000000 per layer"), "\(hearts.stderr)")
        let items =
            #""spawn": {"count": 100000, "area": {"x": 0, "y": 0, "width": 375, "height": 50}, "interval": 0.1}"#
        let gifts = try validate(#"{"effect": "physics-bounce", "params": {\#(items), "lifetime": 8}}"#)
        #expect(gifts.status == 0, "\(gifts.stderr)")
        // Without a lifetime every item stays: more than 2,000 at once is refused, with the way out.
        let piled = try validate(#"{"effect": "physics-bounce", "params": {\#(items)}}"#)
        #expect(piled.status == 65)
        #expect(piled.stderr.contains("at most 2000 (give items a lifetime, or fewer items)"), "\(piled.stderr)")
    }
}
