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

    /// The bounding box (min x, min y, max x, max y) of the pixels of `image` that `matches`, or nil.
    static func box(
        _ image: ImageSurface, where matches: ((r: UInt8, g: UInt8, b: UInt8, a: UInt8), Int, Int) -> Bool
    ) -> (Int, Int, Int, Int)? {
        var box: (Int, Int, Int, Int)?
        for y in 0..<image.height {
            for x in 0..<image.width where matches(image.pixel(x: x, y: y), x, y) {
                box = box.map { (min($0.0, x), min($0.1, y), max($0.2, x), max($0.3, y)) } ?? (x, y, x, y)
            }
        }
        return box
    }

    /// Issue 43: the overlay lies on the items through the transforms of their layer and group: the
    /// yellow bounds of a red item (a landed box, a rising heart) over black hold the item's red
    /// pixels and are at most about twice as wide and tall (a heart's square, turned, reaches well
    /// past its round sides), in a group turned by 30° and stretched 1.3 × 0.8, the layer itself moved.
    @Test(
        "preview --debug draws an item's bounds around it through layer and group transforms",
        arguments: [
            (
                #"{"effect": "parabolic-drop", "params": {"count": 1, "from": [40, 40], "size": [40, 24], "#
                    + ##""shape": "box", "color": "#FF0000", "##
                    + #""target": {"x": 70, "y": 120, "width": 40, "height": 10}}}"#,
                15
            ),
            (
                #"{"effect": "floating-heart", "params": {"times": [0], "emitter": [100, 160], "size": 40, "#
                    + ##""colors": ["#FF0000"], "lifetime": 10}}"##,
                8
            ),
        ])
    func boundsOnItem(layer: String, frame: Int) throws {
        let folder = try TemporaryFolder()
        let moved = String(layer.dropLast()) + #", "transform": {"position": [112, 94]}}"#
        let group =
            #"{"group": [\#(moved)], "transform": {"anchor": [100, 100], "position": [96, 104], "#
            + #""rotation": 30, "scale": [1.3, 0.8]}}"#
        let job = try folder.write(
            ##"""
            {"name": "overlay", "seed": 5, "canvas": {"width": 200, "height": 200, "scale": 1, "background": "#000000"},
             "fps": 10, "duration": 2, "layers": [\##(group)]}
            """##, to: "job.json")
        var sheets: [ImageSurface] = []
        for debug in [false, true] {
            let sheet = folder.url.appendingPathComponent("sheet-\(debug).png").path
            let result = CLI.run(
                ["preview", job, "-o", sheet, "--frames", "\(frame)", "--width", "424"] + (debug ? ["--debug"] : []))
            try #require(result.status == 0, "\(result.stderr)")
            sheets.append(try ImageSurface(contentsOfPNG: sheet))
        }
        let red = try #require(Self.box(sheets[0]) { p, _, _ in p.r > 150 && p.g < 60 && p.b < 60 && p.a == 255 })
        // The overlay's yellow: pixels yellow with --debug that are not without it.
        let drawn = { (p: (r: UInt8, g: UInt8, b: UInt8, a: UInt8), x: Int, y: Int) in
            Mark.bounds.matches(p) && !Mark.bounds.matches(sheets[0].pixel(x: x, y: y))
        }
        let yellow = try #require(Self.box(sheets[1], where: drawn))
        let slack = 2
        #expect(
            yellow.0 <= red.0 + slack && yellow.1 <= red.1 + slack && yellow.2 >= red.2 - slack
                && yellow.3 >= red.3 - slack, "bounds \(yellow) do not hold the item \(red)")
        let (width, height) = (Double(red.2 - red.0), Double(red.3 - red.1))
        #expect(
            Double(yellow.2 - yellow.0) <= 2 * width + 4 && Double(yellow.3 - yellow.1) <= 2 * height + 4,
            "bounds \(yellow) much larger than the item \(red)")
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
