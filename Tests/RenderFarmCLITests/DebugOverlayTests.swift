import CairoKit
import Foundation
import Testing

/// Issue 12, item 5: `preview --debug` draws path, control points and bounds for the physics-driven
/// effects too, as for hearts (pixels read back from the sheets).
@Suite("preview --debug of physics-driven effects")
struct DebugOverlayTests {
    /// The overlay's colours (MotionOverlay): path, control points, bounds.
    enum Mark: CaseIterable {
        case path, control, bounds

        func matches(_ p: (r: UInt8, g: UInt8, b: UInt8, a: UInt8)) -> Bool {
            switch self {
            case .path: p.r < 60 && p.g > 170 && p.b > 190
            case .control: p.r > 190 && p.g < 90 && p.b > 190
            case .bounds: p.r > 190 && p.g > 170 && p.b < 60
            }
        }
    }

    /// How many pixels of each mark a sheet has.
    static func count(_ path: String) throws -> [Mark: Int] {
        let image = try ImageSurface(contentsOfPNG: path)
        var counts: [Mark: Int] = [:]
        for y in 0..<image.height {
            for x in 0..<image.width {
                let pixel = image.pixel(x: x, y: y)
                for mark in Mark.allCases where mark.matches(pixel) { counts[mark, default: 0] += 1 }
            }
        }
        return counts
    }

    @Test(
        "debug sheets of parabolic-drop (onLand bounce) and physics-bounce show path, control points and bounds",
        arguments: [("jobs/gift-drop.json", true), ("jobs/bounce.json", false)])
    func marks(job: String, hasControlPoints: Bool) throws {
        let folder = try TemporaryFolder()
        var counts: [Bool: [Mark: Int]] = [:]
        for debug in [false, true] {
            let sheet = folder.url.appendingPathComponent("sheet-\(debug).png").path
            let result = CLI.run(
                ["preview", job, "-o", sheet, "--frames", "20,40,60", "--width", "600"] + (debug ? ["--debug"] : []))
            try #require(result.status == 0, "\(result.stderr)")
            counts[debug] = try Self.count(sheet)
        }
        let plain = counts[false] ?? [:]
        let debug = counts[true] ?? [:]
        for mark in Mark.allCases where mark != .control || hasControlPoints {
            let (before, after) = (plain[mark] ?? 0, debug[mark] ?? 0)
            #expect(after > before + 50, "\(mark): \(before) → \(after)")
        }
    }
}
