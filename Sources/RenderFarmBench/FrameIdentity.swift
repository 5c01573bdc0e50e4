import CairoKit
import Foundation

/// How the frames RenderFarm wrote compare, file by file, with the frames the C floor wrote from
/// the same plan with RenderFarm's encoder: byte-identical files prove both drew the same pixels.
struct FrameIdentity: Equatable {
    /// Frames byte-identical in both folders.
    var same: Int
    /// Frames in either folder.
    var total: Int
    /// What is wrong, when something is: the first frame, in name order, that differs and how (its
    /// first differing pixel, or which folder lacks it), or how many frames are missing from both.
    var problem: String?

    /// Every one of the expected frames is in both folders, byte for byte.
    var isIdentical: Bool { problem == nil }

    /// Compares the PNG files of `renderfarm` with the files of the same names in `floor`, of which
    /// there should be `expected`.
    init(renderfarm: String, floor: String, expected: Int) {
        let mine = Set(Runner.pngFiles(in: renderfarm))
        let theirs = Set(Runner.pngFiles(in: floor))
        let names = mine.union(theirs).sorted()
        same = 0
        total = names.count
        for name in names {
            let first = FileManager.default.contents(atPath: renderfarm + "/" + name)
            let second = FileManager.default.contents(atPath: floor + "/" + name)
            if let first, let second, first == second {
                same += 1
            } else if problem == nil {
                let how =
                    switch (first, second) {
                    case (nil, _): "missing from RenderFarm's frames"
                    case (_, nil): "missing from the C floor's frames"
                    default: Self.firstPixel(renderfarm + "/" + name, floor + "/" + name)
                    }
                problem = "first differing frame: \(name) (\(how))"
            }
        }
        if problem == nil, total != expected {
            problem = "\(total) frame\(total == 1 ? "" : "s") written, \(expected) expected"
        }
    }

    /// The first pixel, in row order, that differs between two PNG files (as cairo decodes them), with
    /// how many pixels differ.
    static func firstPixel(_ renderfarm: String, _ floor: String) -> String {
        let first: ImageSurface
        let second: ImageSurface
        do {
            first = try ImageSurface(contentsOfPNG: renderfarm)
            second = try ImageSurface(contentsOfPNG: floor)
        } catch {
            return "the bytes differ and a file cannot be decoded (\(error))"
        }
        guard first.width == second.width, first.height == second.height else {
            return "RenderFarm's is \(first.width)×\(first.height), the C floor's \(second.width)×\(second.height)"
        }
        var count = 0
        var firstAt: (x: Int, y: Int)?
        for y in 0..<first.height {
            for x in 0..<first.width where first.pixel(x: x, y: y) != second.pixel(x: x, y: y) {
                count += 1
                if firstAt == nil { firstAt = (x, y) }
            }
        }
        guard let (x, y) = firstAt else { return "the bytes differ but the pixels are equal (encoding or metadata)" }
        return "\(count) pixel\(count == 1 ? "" : "s") differ, the first at (\(x), \(y)): RenderFarm "
            + "\(rgba(first.pixel(x: x, y: y))), the C floor \(rgba(second.pixel(x: x, y: y))), straight RGBA"
    }

    private static func rgba(_ pixel: (r: UInt8, g: UInt8, b: UInt8, a: UInt8)) -> String {
        "(\(pixel.r), \(pixel.g), \(pixel.b), \(pixel.a))"
    }
}
