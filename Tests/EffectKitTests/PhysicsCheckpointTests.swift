import CairoKit
import Foundation
import Testing

@testable import EffectKit

/// A busy scene over many short epochs: a pile on the left fed slowly and never emptied (it sleeps between
/// drops), and a stream of items thrown into the right half that bounce, collide and expire.
private enum Busy {
    static let fps = 30.0
    /// Two seconds per epoch, so that 30 s cross fourteen boundaries.
    static let epoch = 60
    static let samples = 30 * 30

    static func scene(movingItem moved: Int? = nil) -> PhysicsScene {
        var items: [PhysicsItem] = []
        for index in 0..<100 {
            let spawn = Double(index) * 0.28
            let pile = index % 4 == 0
            let x = pile ? 40 + Double(index % 3) * 4 : 170 + Double(index % 7) * 17
            items.append(
                PhysicsItem(
                    body: index % 2 == 0 ? .box(Size(width: 26, height: 26)) : .circle(diameter: 26),
                    position: Point(x, 30), velocity: pile ? .zero : Point(Double(index % 5) * 40 - 80, 150),
                    spawnTime: spawn, expiry: pile ? nil : spawn + 4))
        }
        if let moved { items[moved].position.x += 11 }
        let corners = [Point(0, 0), Point(300, 0), Point(300, 420), Point(0, 420)]
        return PhysicsScene(
            barriers: corners.indices.map { PhysicsBarrier(from: corners[$0], to: corners[($0 + 1) % 4]) },
            items: items, canvas: Rect(x: 0, y: 0, width: 300, height: 420))
    }

    static func time(_ sample: Int) -> Double { Double(sample) / fps }

    static func checkpoints(in folder: CacheFolder) -> PhysicsCheckpoints {
        PhysicsCheckpoints(cache: EffectCache(folder: folder.path), fps: fps, layerStart: 0, epoch: epoch)
    }

    /// Samples `range` without a cache (rebuilding at every epoch all the same).
    static func plain(_ scene: PhysicsScene, _ range: Range<Int>) throws -> PhysicsRecording {
        try PhysicsSimulation.run(scene, through: range.upperBound - 1, time: time, recording: range, epoch: epoch)
    }

    static func cached(_ scene: PhysicsScene, _ range: Range<Int>, _ folder: CacheFolder) throws -> PhysicsRecording {
        try PhysicsSimulation.run(
            scene, through: range.upperBound - 1, recording: range, checkpoints: checkpoints(in: folder))
    }

    static func expectSame(_ part: PhysicsRecording, _ whole: PhysicsRecording, _ range: Range<Int>) {
        for sample in range {
            #expect(part.present(atSample: sample) == whole.present(atSample: sample), "sample \(sample)")
        }
    }
}

/// A temporary cache folder, removed at the end.
private final class CacheFolder {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("physics-cache-\(UUID().uuidString)").path

    init() throws { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    var names: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }

    func name(ofEpoch index: Int) -> String? { names.first { $0.hasPrefix("physics-\(index)-") } }

    func url(_ name: String) -> URL { URL(fileURLWithPath: path).appendingPathComponent(name) }

    /// The checkpoint in file `name`, if it parses under `key`.
    func checkpoint(_ name: String, key: FrameKey) throws -> PhysicsCheckpoint? {
        PhysicsCheckpoint(bytes: [UInt8](try Data(contentsOf: url(name))), key: key)
    }
}

@Suite("Physics checkpoints (issue 15)")
struct PhysicsCheckpointTests {
    @Test("a run resumed from the checkpoint files records the states of a continuous run, bit for bit")
    func resumedEqualsContinuous() throws {
        let scene = Busy.scene()
        let folder = try CacheFolder()
        let whole = try Busy.cached(scene, 0..<Busy.samples, folder)
        Busy.expectSame(try Busy.plain(scene, 0..<Busy.samples), whole, 0..<Busy.samples)
        // One file per boundary before the last sample: 60, 120, … 840.
        #expect(folder.names.count == (Busy.samples - 1) / Busy.epoch)
        // The boundaries are busy: items asleep in piles, items in contact, items in flight.
        let keys = Busy.checkpoints(in: folder).keys(scene, through: Busy.samples - 1)
        let saved = try keys.indices.map { index in
            let name = try #require(folder.name(ofEpoch: index + 1))
            return try #require(try folder.checkpoint(name, key: keys[index]))
        }
        let bodies = saved.flatMap(\.bodies)
        #expect(bodies.filter { $0.sleepGroup != nil }.count > 5)
        #expect(bodies.filter { $0.sleepGroup == nil && $0.touched }.count > 5)
        #expect(bodies.filter { $0.velocity.length > 200 }.count > 5)
        #expect(saved.contains { !$0.ended.isEmpty })
        for first in [Busy.epoch * 3, Busy.epoch * 3 + 17, Busy.epoch * 9 + 1, Busy.samples - 5] {
            let range = first..<Busy.samples
            Busy.expectSame(try Busy.cached(scene, range, folder), whole, range)
        }
    }

    @Test("a resumed run starts from the file: a checkpoint altered and signed again changes what follows")
    func resumesFromTheFile() throws {
        let scene = Busy.scene()
        let folder = try CacheFolder()
        let whole = try Busy.cached(scene, 0..<Busy.samples, folder)
        let key = Busy.checkpoints(in: folder).keys(scene, through: Busy.samples - 1)[6]
        let name = try #require(folder.name(ofEpoch: 7))
        var checkpoint = try #require(try folder.checkpoint(name, key: key))
        for index in checkpoint.bodies.indices { checkpoint.bodies[index].position.x += 1 }
        try Data(checkpoint.bytes(key: key)).write(to: folder.url(name))
        let sample = 7 * Busy.epoch
        let resumed = try Busy.cached(scene, sample..<(sample + 1), folder)
        #expect(resumed.present(atSample: sample) != whole.present(atSample: sample))
    }

    @Test("an edit late in the job keeps the earlier checkpoint files and replaces the later ones")
    func lateEdit() throws {
        let folder = try CacheFolder()
        _ = try Busy.cached(Busy.scene(), 0..<Busy.samples, folder)
        let before = folder.names
        // Item 70 enters at 19.6 s: epochs up to the one ending at 18 s do not depend on it.
        let edited = Busy.scene(movingItem: 70)
        let whole = try Busy.plain(edited, 0..<Busy.samples)
        Busy.expectSame(try Busy.cached(edited, 0..<Busy.samples, folder), whole, 0..<Busy.samples)
        let after = Set(folder.names).subtracting(before)
        let kept = (1...9).compactMap { folder.name(ofEpoch: $0) }
        #expect(kept.count == 9 && kept.allSatisfy(before.contains))
        #expect(after.count == before.count - 9)
        #expect((10...14).allSatisfy { index in folder.names.filter { $0.hasPrefix("physics-\(index)-") }.count == 2 })
        // A late shard of the edited job resumes from its own files.
        let range = (Busy.samples - 40)..<Busy.samples
        Busy.expectSame(try Busy.cached(edited, range, folder), whole, range)
    }

    @Test("truncated, garbage and wrong-version checkpoint files are ignored, rewritten, and change nothing")
    func damagedFiles() throws {
        let scene = Busy.scene()
        let folder = try CacheFolder()
        let whole = try Busy.cached(scene, 0..<Busy.samples, folder)
        let truncated = try #require(folder.name(ofEpoch: 14))
        let garbage = try #require(folder.name(ofEpoch: 13))
        let wrongVersion = try #require(folder.name(ofEpoch: 12))
        let good = try Data(contentsOf: folder.url(truncated))
        try good.prefix(good.count - 9).write(to: folder.url(truncated))
        try Data((0..<good.count).map { UInt8(truncatingIfNeeded: $0 &* 37) }).write(to: folder.url(garbage))
        var versioned = try [UInt8](Data(contentsOf: folder.url(wrongVersion)))
        versioned[8] &+= 1
        try Data(versioned).write(to: folder.url(wrongVersion))
        let range = (Busy.samples - 30)..<Busy.samples
        Busy.expectSame(try Busy.cached(scene, range, folder), whole, range)
        // The run went back to epoch 11 and saved the three it passed again.
        #expect(try Data(contentsOf: folder.url(truncated)) == good)
        let keys = Busy.checkpoints(in: folder).keys(scene, through: Busy.samples - 1)
        for (name, index) in [(garbage, 13), (wrongVersion, 12)] {
            #expect(try folder.checkpoint(name, key: keys[index - 1]) != nil)
        }
    }

    @Test("a rebuild leaves items that bounce and rest alone on their course, to rounding")
    func rebuildEffect() throws {
        var scene = Busy.scene()
        scene.itemsCollide = false
        let (largest, resting) = try Self.rebuildDifference(scene)
        #expect(largest < 1e-9)
        #expect(resting > 100)
    }

    @Test("in a pile a rebuild changes nothing before the first boundary, and no item appears or vanishes")
    func rebuildEffectInPiles() throws {
        // Collisions amplify any change (a lost warm start, an idle clock restarted), so positions drift apart
        // after the first boundary (by up to 201 pt in 30 s here); the items in the world stay the same.
        let (largest, _) = try Self.rebuildDifference(Busy.scene())
        #expect(largest.isFinite)
    }

    /// The largest position difference between runs with and without rebuilds (which agree up to the first
    /// boundary), and how many items rest at the boundaries.
    private static func rebuildDifference(_ scene: PhysicsScene) throws -> (largest: Double, resting: Int) {
        let rebuilt = try Busy.plain(scene, 0..<Busy.samples)
        let continuous = try PhysicsSimulation.run(
            scene, through: Busy.samples - 1, time: Busy.time, recording: 0..<Busy.samples, epoch: Int.max)
        Busy.expectSame(rebuilt, continuous, 0..<(Busy.epoch + 1))
        var largest = 0.0
        var resting = 0
        for sample in 0..<Busy.samples {
            #expect(rebuilt.present(atSample: sample).count == continuous.present(atSample: sample).count)
            for entry in rebuilt.present(atSample: sample) {
                let other = continuous.state(ofItem: entry.item, atSample: sample)
                #expect(other.present, "item \(entry.item) at sample \(sample)")
                largest = max(largest, entry.state.position.distance(to: other.position))
                if sample % Busy.epoch == 0, entry.state.resting { resting += 1 }
            }
        }
        return (largest, resting)
    }

    @Test("a late frame drawn with a warm cache has the bytes of the frame drawn without one")
    func latePNG() throws {
        let scene = Busy.scene()
        let folder = try CacheFolder()
        // At 240 fps the playback's epochs of 3600 frames last 15 s.
        let context = EffectContext(width: 300, height: 420, fps: 240, duration: 40)
        let frame = context.frameCount - 7
        var warm = try PhysicsPlayback(scene: scene, context: context)
        try warm.prepare(frames: 0...(context.frameCount - 1), cache: EffectCache(folder: folder.path))
        #expect(folder.names.count == 2)
        var cold = try PhysicsPlayback(scene: scene, context: context)
        try cold.prepare(frames: frame...frame)
        try warm.prepare(frames: frame...frame, cache: EffectCache(folder: folder.path))
        let drawn = try [warm, cold].map { playback in try png(playback, frame: frame, folder: folder) }
        #expect(drawn[0] == drawn[1])
        #expect(drawn[0].count > 100)
    }

    @Test("preparing only the last frame saves every checkpoint; a three-hour job has 179, a few kB each")
    func threeHours() throws {
        let folder = try CacheFolder()
        let context = EffectContext(width: 300, height: 420, fps: 240, duration: 40)
        var playback = try PhysicsPlayback(scene: Busy.scene(), context: context)
        let last = context.frameCount - 1
        try playback.prepare(frames: last...last, cache: EffectCache(folder: folder.path))
        // Epochs of 3600 frames: boundaries at 15 s and 30 s.
        #expect(folder.names.count == 2)
        #expect(try playback.recording(for: last).samples == last..<(last + 1))
        // StreamBench's replay: 20,000 gifts over three hours at 60 fps, 8 s each.
        let gifts = (0..<20_000).map { index in
            PhysicsItem(
                body: .box(Size(width: 36, height: 36)), position: Point(100, 18), spawnTime: Double(index) * 0.54,
                expiry: Double(index) * 0.54 + 8)
        }
        let replay = PhysicsScene(barriers: [], items: gifts)
        let checkpoints = PhysicsCheckpoints(cache: EffectCache(folder: folder.path), fps: 60, layerStart: 0)
        #expect(checkpoints.keys(replay, through: 3 * 3600 * 60 - 1).count == 179)
        // The last one: every gift but the 15 in the world has ended.
        let final = PhysicsCheckpoint(
            sample: 179 * 3600, step: 179 * 14_400, nextArrival: 19_900, nextApproach: 0, nextExpiry: 19_885,
            onTheWay: [], ended: Array(0..<19_885),
            bodies: (19_885..<19_900).map { item in
                BodyState(
                    item: item, position: Point(1, 2), velocity: Point(3, 4), angle: 0, angularVelocity: 0,
                    sleepGroup: nil, touched: true, impactFraction: nil)
            })
        let size = final.bytes(key: FrameKey.nothingDrawn).count
        #expect(size < 4096)
    }

    /// The PNG of `frame`: every item of the playback's recording as a filled square at its place.
    private func png(_ playback: PhysicsPlayback, frame: Int, folder: CacheFolder) throws -> Data {
        let surface = try ImageSurface(width: 300, height: 420)
        let context = try DrawingContext(surface: surface)
        for entry in try playback.recording(for: frame).present(atSample: frame) {
            ItemDrawer.draw(
                ItemLook(shape: .gift), size: Size(width: 26, height: 26), center: entry.state.position,
                angle: entry.state.angle, in: context)
        }
        surface.flush()
        let path = folder.url("frame-\(UUID().uuidString).png").path
        try surface.writePNG(to: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }
}
