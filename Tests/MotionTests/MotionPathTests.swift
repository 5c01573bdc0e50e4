import Foundation
import Testing

@testable import Motion

/// Motion paths measured by length: a circle drawn with arcs is travelled at an even angle, facing along it; a
/// closing `Z` is travelled; paths that are not one stroke with a length are refused.
@Suite("Motion path, measured by length")
struct MotionPathTests {
    @Test("a circle of two arcs, at generated radii and centres: on the circle, at an even angle, facing along it")
    func circle() throws {
        for index in 0..<20 {
            // Spread over the plane and over three orders of magnitude of radius, with no random source.
            let i = Double(index)
            let (cx, cy, r) = (500 * sin(i * 2.1), 500 * cos(i * 1.3), 5 * pow(160, i / 19))
            let path = try MotionPath(
                "M \(cx + r) \(cy) A \(r) \(r) 0 1 1 \(cx - r) \(cy) A \(r) \(r) 0 1 1 \(cx + r) \(cy)")
            #expect(abs(path.length - 2 * .pi * r) < 1e-3 * r, "length \(path.length), radius \(r)")
            for step in 0...16 {
                let u = Double(step) / 16
                let (point, direction) = path.point(at: u)
                // Sweep 1 turns clockwise on screen (y down): the angle grows with the progress.
                let angle = 2 * .pi * u
                #expect(abs(point.distance(to: Point(cx, cy)) - r) < 1e-3 * r)
                #expect(point.distance(to: Point(cx + r * cos(angle), cy + r * sin(angle))) < 2e-3 * r, "at \(u)")
                let facing = remainder(direction - (angle + .pi / 2), 2 * .pi)
                #expect(abs(facing) < 2e-3, "at \(u): direction \(direction), angle \(angle)")
            }
        }
    }

    @Test("Z is travelled back to the start; progress outside 0…1 stays at the ends")
    func closedAndClamped() throws {
        let square = try MotionPath("M 0 0 h 10 v 10 h -10 Z")
        #expect(square.length == 40)
        #expect(square.point(at: 0.875).point == Point(0, 5))
        #expect(square.point(at: 0.875).direction == -.pi / 2)
        #expect(square.point(at: -1).point == Point(0, 0) && square.point(at: 2).point == Point(0, 0))
        #expect(square.point(at: .nan).point == Point(0, 0))
    }

    @Test("two strokes, no length and bad data are refused, saying why")
    func refused() {
        #expect(throws: MotionPath.Problem.twoStrokes) { try MotionPath("M 0 0 L 10 0 M 20 20 L 30 30") }
        #expect(throws: MotionPath.Problem.empty) { try MotionPath("M 10 10") }
        #expect(throws: MotionPath.Problem.empty) { try MotionPath("M 10 10 L 10 10") }
        #expect(throws: (any Error).self) { try MotionPath("M 0 0 L") }
    }
}
