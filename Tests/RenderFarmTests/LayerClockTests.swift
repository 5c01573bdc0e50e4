import EffectKit
import Foundation
import StrictJSON
import Testing

@testable import RenderFarmJobs

/// Layer times through groups, keyframes and the job file's layer lists, without rendering.
@Suite("Layer clocks and keyframes")
struct LayerClockTests {
    static func spec(_ layers: String) throws -> JobSpec {
        let document = try JSONParser.parse(
            #"{"duration": 10, "canvas": {"width": 200, "height": 100}, "layers": \#(layers)}"#)
        switch JobDecoder.decode(document, defaultName: "clock") {
        case .success(let spec): return spec
        case .failure(let issues): throw ClockTestError(issues.issues.map(\.description).joined(separator: "\n"))
        }
    }

    struct ClockTestError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    @Test("a layer in a group at speed 2: its job-time start and end, and its own time")
    func nested() throws {
        let spec = try Self.spec(
            #"[{"effect": "a"}, {"group": [{"effect": "b", "start": 1, "end": 3}], "start": 1, "speed": 2, "end": 2}]"#)
        #expect(spec.layers.map(\.path) == ["layers[0]", "layers[1].group[0]"])
        #expect(!spec.composition[0].usesComposition && spec.isComposed)
        let clock = spec.clocks[1]
        #expect(clock.start == 1.5)
        #expect(clock.end == 2)
        #expect(!clock.isShift)
        // t = 1.75: the group's own time (1.75 − 1) × 2 = 1.5, the layer's 1.5 − 1 = 0.5.
        #expect(clock.localTime(at: 1.75) == 0.5)
        #expect(clock.localTime(at: 1.2) == nil, "the layer has an end, so it waits for its start")
        #expect(clock.localTime(at: 2) == nil, "the group's end")
        #expect(spec.clocks[0].start == 0 && spec.clocks[0].end == nil && spec.clocks[0].isShift)
    }

    @Test("a loop wraps where exact arithmetic wraps: (2.6 − 0.2) × 1.5 = 3.6 is three loops of 1.2, local time 0")
    func loopRounding() throws {
        let spec = try Self.spec(#"[{"effect": "a", "start": 0.2, "speed": 1.5, "loop": 1.2}]"#)
        // In doubles (2.6 − 0.2) × 1.5 is 3.5999999999999996, whose remainder by 1.2 is 1.1999999999999997: the end
        // of the loop, not its start.
        #expect((2.6 - 0.2) * 1.5 < 3.6)
        #expect(spec.clocks[0].localTime(at: 2.6) == 0)
        let before = try #require(spec.clocks[0].localTime(at: 2.6 - 1.0 / 30))
        #expect(abs(before - 1.15) < 1e-9, "a frame before, the loop's end")
    }

    @Test("a job without host-level fields does not compose, and its clocks are plain shifts")
    func plain() throws {
        let spec = try Self.spec(#"[{"effect": "a", "start": 2}, {"effect": "b", "name": "x"}]"#)
        #expect(!spec.isComposed)
        #expect(spec.clocks[0].localTime(at: 1) == -1, "before start, a plain layer sees negative time")
    }

    @Test("keyframes: held before and after, linear between, the later keyframe's timing, a spring ends on its value")
    func keyframes() throws {
        let spec = try Self.spec(
            #"""
            [{"effect": "a", "opacity": {"keyframes": [{"t": 1, "value": 0.2}, {"t": 3, "value": 0.6},
              {"t": 4, "value": 1, "timing": [0.42, 0, 1, 1]}, {"t": 5, "value": 0, "timing": {"damping": 0.5}}]}}]
            """#)
        let opacity = spec.composition[0].fields.opacity
        #expect(opacity.value(at: 0) == 0.2)
        #expect(abs(opacity.value(at: 2) - 0.4) < 1e-12)
        #expect(abs(opacity.value(at: 3.5) - (0.6 + 0.4 * TimingFunction.easeIn(0.5))) < 1e-12)
        // The spring overshoots below 0 on its way (damping 0.5), and is exactly 0 from t = 5 on.
        let samples = stride(from: 4.0, through: 5, by: 0.01).map { opacity.value(at: $0) }
        #expect(samples.contains { $0 < 0 })
        #expect(opacity.value(at: 5) == 0 && opacity.value(at: 9) == 0)
    }

    @Test("spatial tangents: the curve's ends and middle by length; a spring's overshoot goes on along the tangent")
    func spatialTangents() throws {
        // A quarter circle's cubic from (0, 0) to (100, 100) about (0, 100): leaves along +x, arrives along +y.
        let k = 100 * 0.5522847498
        let spec = try Self.spec(
            #"""
            [{"effect": "a", "transform": {"position": {"keyframes": [
              {"t": 0, "value": [0, 0], "outTangent": [\#(k), 0]},
              {"t": 1, "value": [100, 100], "inTangent": [0, -\#(k)], "timing": {"damping": 0.4}}]}}}]
            """#)
        let transform = try #require(spec.composition[0].fields.transform)
        let position = try #require(transform.position)
        let straight = try Self.spec(
            #"[{"effect": "a", "transform": {"position": {"keyframes": [{"t": 0, "value": [0, 0]}, {"t": 1, "value": [100, 100], "timing": {"damping": 0.4}}]}}}]"#
        )
        let straightTransform = try #require(straight.composition[0].fields.transform)
        let line = try #require(straightTransform.position)
        #expect(position.value(at: 0) == Point(0, 0) && position.value(at: 1) == Point(100, 100))
        // Each time, the spring's progress p: on the arc at angle p · 90° while 0 ≤ p ≤ 1, past its end p − 1 of
        // its length further down (+y), as the straight segment's own p says.
        for t in stride(from: 0.05, through: 0.95, by: 0.05) {
            let straightPoint = line.value(at: t)
            let p = straightPoint.x / 100
            let point = position.value(at: t)
            if p <= 1 {
                let angle = p * .pi / 2
                let onArc = Point(100 * sin(angle), 100 - 100 * cos(angle))
                #expect(point.distance(to: onArc) < 0.05, "t \(t): \(point) vs \(onArc)")
            } else {
                #expect(point.distance(to: Point(100, 100 + (p - 1) * 50 * .pi)) < 0.05, "t \(t): \(point), p \(p)")
            }
        }
        #expect(
            stride(from: 0.0, through: 1, by: 0.01).contains { line.value(at: $0).x > 100 }, "the spring overshoots")
    }

    @Test("transform: anchor defaults to the canvas centre; a point lands at position + R · S · (p − anchor)")
    func transform() throws {
        let spec = try Self.spec(
            #"[{"effect": "a", "transform": {"position": [120, 60], "scale": [2, 1], "rotation": 90}}]"#)
        let transform = try #require(spec.composition[0].fields.transform).resolved(at: 0)
        #expect(transform.anchor == Point(100, 50))
        // (110, 50) − anchor = (10, 0); scaled (20, 0); turned 90° clockwise (0, 20); + position.
        let placed = transform.apply(Point(110, 50))
        #expect(abs(placed.x - 120) < 1e-9 && abs(placed.y - 80) < 1e-9)
    }

    @Test("placement: the layer's transform, then its group's, each at its own time; lengths, angles, velocities")
    func placement() throws {
        let spec = try Self.spec(
            #"""
            [{"group": [{"effect": "a", "transform": {"anchor": [0, 0], "position": {"keyframes":
               [{"t": 0, "value": [0, 0]}, {"t": 1, "value": [10, 0]}]}}}],
              "start": 1, "speed": 2, "transform": {"anchor": [50, 50], "scale": [2, 0.5], "rotation": 90}}]
            """#)
        let clock = spec.clocks[0]
        #expect(clock.isPlaced && clock.rate == 2)
        #expect(clock.placement(at: 0.5) == nil, "the group starts at 1 s")
        // At 1.25 s the group's time is 0.5, the layer's too: moved by (5, 0). Then (p − (50, 50)) is
        // stretched by (2, 0.5), turned 90° clockwise and put back at (50, 50).
        let map = try #require(clock.placement(at: 1.25))
        let group = spec.composition[0].fields.transform?.resolved(at: 0.5)
        for p in [Point(0, 0), Point(15, 25), Point(-7, 100)] {
            let expected = try #require(group?.apply(Point(p.x + 5, p.y)))
            let placed = map.apply(p)
            #expect(abs(placed.x - expected.x) < 1e-12 && abs(placed.y - expected.y) < 1e-12, "\(p)")
        }
        #expect(abs(map.apply(Point(55, 50)).x - 50) < 1e-12 && abs(map.apply(Point(55, 50)).y - 70) < 1e-12)
        #expect(map.lengthScale == 1, "√(2 · 0.5)")
        #expect(abs(map.direction(0) - .pi / 2) < 1e-12, "the x axis points down")
        #expect(abs(map.applyVector(Point(0, 4)).x + 2) < 1e-12, "(0, 4) halved and turned: (−2, 0)")
    }
}
