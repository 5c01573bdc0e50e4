import Testing

@testable import EffectKit

/// Issue 15: the physics simulation streams. Items spawn over a long span, collide, rest, expire; a
/// recording of late samples must hold exactly the states a recording of every sample holds there.
private enum Stream {
    static let fps = 30.0
    static let samples = 30 * 40

    /// Boxes and discs dropped every 0.7 s onto a floor, each removed `lifetime` seconds after its spawn,
    /// with a quiet gap between 12 s and 20 s.
    static func scene(lifetime: Double? = 3) -> PhysicsScene {
        let spawns = stride(from: 0.0, to: 38, by: 0.7).filter { !(12..<20).contains($0) }
        let items = spawns.enumerated().map { index, spawn in
            PhysicsItem(
                body: index % 2 == 0 ? .box(Size(width: 30, height: 30)) : .circle(diameter: 30),
                position: Point(120 + Double(index % 5) * 9, 40), spawnTime: spawn,
                expiry: lifetime.map { spawn + $0 })
        }
        return PhysicsScene(
            barriers: [PhysicsBarrier(from: Point(0, 400), to: Point(300, 400))], items: items,
            canvas: Rect(x: 0, y: 0, width: 300, height: 420))
    }

    static func time(_ sample: Int) -> Double { Double(sample) / fps }

    static func record(_ scene: PhysicsScene, _ samples: Range<Int>) throws -> PhysicsRecording {
        try PhysicsSimulation.run(scene, through: samples.upperBound - 1, time: time, recording: samples)
    }
}

@Suite("Streamed physics (issue 15)")
struct StreamingPhysicsTests {
    @Test("a recording of late samples holds exactly the states the whole recording holds there")
    func lateRangeEqualsWhole() throws {
        let scene = Stream.scene()
        let whole = try Stream.record(scene, 0..<Stream.samples)
        for range in [1000..<Stream.samples, 500..<520, 0..<1] {
            let part = try Stream.record(scene, range)
            #expect(part.samples == range)
            for sample in range {
                #expect(part.present(atSample: sample) == whole.present(atSample: sample), "sample \(sample)")
            }
            #expect(part.present(atSample: range.lowerBound - 1).isEmpty)
        }
    }

    @Test("items leave the world at their expiry, and nothing is kept while the world is empty")
    func expiry() throws {
        let scene = Stream.scene()
        let recording = try Stream.record(scene, 0..<Stream.samples)
        for sample in 0..<Stream.samples {
            let time = Stream.time(sample)
            for entry in recording.present(atSample: sample) {
                let item = scene.items[entry.item]
                #expect(time >= item.spawnTime && time < (item.expiry ?? .infinity), "item \(entry.item) at \(time)")
            }
        }
        // The gap: the last item before it expires by 11.9 + 3 s; none enters before 20 s.
        #expect((15 * 30..<20 * 30).allSatisfy { recording.present(atSample: $0).isEmpty })
        #expect(recording.state(ofItem: 0, atSample: 100) == .gone)
        #expect(recording.state(ofItem: 0, atSample: 100).departed)
        #expect(!recording.state(ofItem: 30, atSample: 0).present)
    }

    @Test("without a lifetime items rest: their states repeat, and every sample equals the whole run's")
    func resting() throws {
        let scene = Stream.scene(lifetime: nil)
        let whole = try Stream.record(scene, 0..<(20 * 30))
        let late = try Stream.record(scene, (17 * 30)..<(20 * 30))
        // Between 12 s and 20 s nothing enters: once the pile sleeps, its states repeat frame after frame.
        #expect(whole.present(atSample: 19 * 30) == whole.present(atSample: 20 * 30 - 1))
        #expect(whole.present(atSample: 19 * 30).count == 18)
        for sample in late.samples { #expect(late.present(atSample: sample) == whole.present(atSample: sample)) }
    }

    @Test("more items in the world at once than the limit are refused, naming when")
    func aliveLimit() {
        let items = (0..<(PhysicsLimits.maxAliveItems + 1)).map { index in
            PhysicsItem(body: .circle(diameter: 4), position: Point(10, 10), spawnTime: Double(index) * 0.25)
        }
        let scene = PhysicsScene(barriers: [], items: items)
        #expect(
            throws: EffectError(
                parameter: "items",
                "2001 items would be in the world at once by 500.0 s; at most 2000 (give items a lifetime, or fewer items)"
            )
        ) {
            try scene.validate()
        }
        var expiring = scene
        expiring.items = items.map { item in
            var item = item
            item.expiry = item.spawnTime + 5
            return item
        }
        #expect(throws: Never.self) { try expiring.validate() }
        // An item expires as the 20th after it enters: 20 at once.
        #expect(expiring.mostAliveAtOnce.count == 20)
    }

    @Test("frame keys: nothing drawn has one key; equal inputs give equal keys, any change another")
    func frameKeys() {
        var first = FrameKey.Hasher()
        first.combine(Point(1, 2))
        first.combine(Color(red: 1, green: 0, blue: 0) as Color?)
        var second = FrameKey.Hasher()
        second.combine(Point(1, 2))
        second.combine(Color(red: 1, green: 0, blue: 0) as Color?)
        var third = FrameKey.Hasher()
        third.combine(Point(1, 2))
        third.combine(nil as Color?)
        #expect(first.finalize() == second.finalize())
        #expect(first.finalize() != third.finalize())
        #expect(FrameKey.nothingDrawn == FrameKey.Hasher().finalize())
        #expect(FrameKey.nothingDrawn != first.finalize())
    }
}
