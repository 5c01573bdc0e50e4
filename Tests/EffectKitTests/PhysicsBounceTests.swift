import Testing

@testable import EffectKit

/// EffectKit article UIKitDynamics, "Test vectors": one item dropped from rest, its bottom 50 pt above the edge,
/// g = 1000 pt/s², e = 0.6, threshold 100 pt/s. The simulation is recorded at every step, so an event is seen
/// within one step.
private enum Drop {
    static let edge = 500.0
    static let side = 40.0
    static let timestep = PhysicsRules.timestep
    static let steps = Array(0..<(240 * 3)).map { Double($0) * timestep }

    static func scene(_ body: PhysicsBody) -> PhysicsScene {
        let lift = body.size.height / 2
        return PhysicsScene(
            barriers: [PhysicsBarrier(from: Point(0, edge), to: Point(375, edge))],
            items: [PhysicsItem(body: body, position: Point(100, edge - 50 - lift))])
    }

    /// Every impact (vertical velocity turning from down to up or to rest) and every apex, in time order.
    static func events(_ body: PhysicsBody) throws -> (impacts: [(time: Double, speedOut: Double)], apexes: [Double]) {
        let recording = try PhysicsSimulation.run(scene(body), sampleTimes: steps)
        var impacts: [(Double, Double)] = []
        var apexes: [Double] = []
        var previous = recording.state(ofItem: 0, atSample: 0)
        for sample in 1..<steps.count {
            let state = recording.state(ofItem: 0, atSample: sample)
            if previous.velocity.y > 1, state.velocity.y <= 0 { impacts.append((steps[sample], -state.velocity.y)) }
            if previous.velocity.y < -1, state.velocity.y >= 0 {
                apexes.append(edge - (previous.position.y + body.size.height / 2))
            }
            previous = state
        }
        return (impacts, apexes)
    }
}

/// One row of the UIKitDynamics test-vector table.
private struct Impact: Sendable, CustomTestStringConvertible {
    let index: Int
    let time: Double
    let speedOut: Double
    var testDescription: String { "impact \(index + 1) at \(time) s" }
}

private let impacts = [
    Impact(index: 0, time: 0.3162, speedOut: 189.74),
    Impact(index: 1, time: 0.6957, speedOut: 113.84),
    Impact(index: 2, time: 0.9234, speedOut: 68.31),
    Impact(index: 3, time: 1.0600, speedOut: 0),
]

private let bodies: [PhysicsBody] = [.box(Size(width: Drop.side, height: Drop.side)), .circle(diameter: Drop.side)]

@Suite("Physics bounce (UIKitDynamics)")
struct PhysicsBounceTests {
    @Test("impacts within one time step and 1 % of the test vectors, with their speeds out (1 %)", arguments: impacts)
    fileprivate func impactTimes(_ expected: Impact) throws {
        for body in bodies {
            let events = try Drop.events(body)
            try #require(events.impacts.count == 4, "\(body): \(events.impacts)")
            let impact = events.impacts[expected.index]
            #expect(abs(impact.time - expected.time) <= Drop.timestep + 0.01 * expected.time, "\(body): \(impact)")
            #expect(abs(impact.speedOut - expected.speedOut) <= 0.01 * expected.speedOut + 1e-9, "\(body): \(impact)")
        }
    }

    @Test("apexes 18.000 and 6.480 and 2.333 pt within 1 %")
    func apexes() throws {
        for body in bodies {
            let apexes = try Drop.events(body).apexes.filter { $0 > 0.5 }
            try #require(apexes.count == 3, "\(body): \(apexes)")
            for (measured, expected) in zip(apexes, [18.000, 6.480, 2.333]) {
                #expect(abs(measured - expected) <= 0.01 * expected, "\(body): apex \(measured), expected \(expected)")
            }
        }
    }

    @Test("at rest after about 1.06 s, asleep 0.5 s later, and never inside the edge")
    func restsOnTheEdge() throws {
        for body in bodies {
            let recording = try PhysicsSimulation.run(Drop.scene(body), sampleTimes: Drop.steps)
            for (sample, time) in Drop.steps.enumerated() {
                let state = recording.state(ofItem: 0, atSample: sample)
                let bottom = state.position.y + body.size.height / 2
                #expect(bottom <= Drop.edge + 0.5, "\(body) sinks \(bottom - Drop.edge) pt at \(time) s")
                if time > 1.06 + 2 * Drop.timestep + 0.01 {
                    #expect(abs(state.velocity.y) < 1 && abs(bottom - Drop.edge) < 0.1, "\(body) moves at \(time) s")
                }
                // Asleep 0.5 s after the last impact (±0.03 s around 1.56 s).
                if time < 1.06 + PhysicsRules.sleepTime - 0.03 {
                    #expect(!state.resting, "\(body) asleep at \(time) s")
                }
                if time > 1.06 + PhysicsRules.sleepTime + 0.03 { #expect(state.resting, "\(body) awake at \(time) s") }
            }
        }
    }

    @Test("below the 100 pt/s threshold a contact does not bounce")
    func threshold() throws {
        // From 4 pt the item arrives at about 89 pt/s.
        let scene = PhysicsScene(
            barriers: [PhysicsBarrier(from: Point(0, 100), to: Point(100, 100))],
            items: [PhysicsItem(body: .box(Size(width: 10, height: 10)), position: Point(50, 91))])
        let recording = try PhysicsSimulation.run(scene, sampleTimes: Drop.steps)
        let upward = (0..<Drop.steps.count).map { recording.state(ofItem: 0, atSample: $0).velocity.y }.min() ?? 0
        #expect(upward > -1)
    }

    @Test("two items dropped on each other do not overlap (1 pt in the impact, 0.1 pt at rest)")
    func stacking() throws {
        for body in bodies {
            let scene = PhysicsScene(
                barriers: [PhysicsBarrier(from: Point(0, Drop.edge), to: Point(375, Drop.edge))],
                items: [
                    PhysicsItem(body: body, position: Point(100, Drop.edge - 30)),
                    PhysicsItem(body: body, position: Point(100, Drop.edge - 150)),
                ])
            let recording = try PhysicsSimulation.run(scene, sampleTimes: Drop.steps)
            for sample in Drop.steps.indices {
                let lower = recording.state(ofItem: 0, atSample: sample).position
                let upper = recording.state(ofItem: 1, atSample: sample).position
                let overlap = Drop.side - lower.distance(to: upper)
                #expect(overlap < (sample == Drop.steps.count - 1 ? 0.1 : 1), "\(body) overlap \(overlap) pt")
            }
            let top = recording.state(ofItem: 1, atSample: Drop.steps.count - 1)
            #expect(top.resting && abs(top.position.y - (Drop.edge - 60)) < 0.2, "\(body): \(top)")
        }
    }

    @Test("the same scene gives identical recordings")
    func deterministic() throws {
        let first = try Drop.events(.box(Size(width: 40, height: 30)))
        let second = try Drop.events(.box(Size(width: 40, height: 30)))
        #expect(first.impacts.map(\.time) == second.impacts.map(\.time))
        #expect(first.apexes == second.apexes)
    }

    @Test("contact rules: restitution max, friction sqrt, UIKit gravity")
    func rules() {
        #expect(PhysicsRules.restitution(PhysicsRules.itemElasticity, PhysicsRules.barrierElasticity) == 0.6)
        #expect(PhysicsRules.friction(PhysicsRules.itemFriction, PhysicsRules.barrierFriction) == 0.5)
        #expect(PhysicsRules.gravity(direction: Point(0, 2), magnitude: 1) == Point(0, 1000))
        #expect(PhysicsRules.damping(resistance: 0, timestep: 0.01) == 1)
    }

    @Test("a zero-length barrier is refused, naming it")
    func zeroLengthBarrier() {
        let scene = PhysicsScene(barriers: [PhysicsBarrier(from: Point(1, 1), to: Point(1, 1))], items: [])
        #expect(throws: EffectError(parameter: "barriers[0].to", "zero-length boundary")) {
            try PhysicsSimulation.run(scene, sampleTimes: [0])
        }
    }
}

@Suite("Barrier sweep (time of impact against edges)")
struct BarrierSweepTests {
    let sweep = BarrierSweep(barriers: [PhysicsBarrier(from: Point(0, 100), to: Point(100, 100))], depth: 0.01)
    let box = PhysicsBody.box(Size(width: 20, height: 10))

    @Test("a move into the edge stops where the item touches it")
    func stops() throws {
        let stop = try #require(sweep.limit(box, angle: 0, from: Point(50, 90), to: Point(50, 99)))
        #expect(abs(stop.y - 95.01) < 1e-9)
    }

    @Test("free moves, moves beside the edge and moves of overlapping items are left alone")
    func leavesAlone() {
        #expect(sweep.limit(box, angle: 0, from: Point(50, 80), to: Point(50, 90)) == nil)
        #expect(sweep.limit(box, angle: 0, from: Point(130, 90), to: Point(130, 99)) == nil)
        #expect(sweep.limit(box, angle: 0, from: Point(50, 96), to: Point(50, 99)) == nil)
    }

    @Test("items below the edge are stopped from below")
    func fromBelow() throws {
        let stop = try #require(sweep.limit(box, angle: 0, from: Point(50, 110), to: Point(50, 101)))
        #expect(abs(stop.y - 104.99) < 1e-9)
    }
}
