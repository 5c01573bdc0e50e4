import EffectKit
import Foundation
import Testing

@testable import StillImage

/// The image effect in process: fit modes, rounded and circular crops, PNG and JPEG, read back from the pixels
/// it draws; and files that must be refused with a message naming them.
@Suite("Image effect")
struct ImageEffectTests {
    static let canvas = 200

    static func effect(_ params: [String: JSONValue], in folder: JobFolder, scale: Double = 1) throws -> ImageEffect {
        var values = JSONObject()
        for spec in ImageEffect.descriptor.parameters { if let value = spec.defaultValue { values[spec.name] = value } }
        for (key, value) in params { values[key] = value }
        let context = EffectContext(
            width: Double(canvas), height: Double(canvas), scale: scale, fps: 30, duration: 1,
            jobDirectory: folder.path)
        return try ImageEffect(parameters: EffectParameters(values), context: context)
    }

    static func draw(_ effect: ImageEffect, frame: Int = 0) throws -> ImageSurface {
        let surface = try ImageSurface(width: canvas, height: canvas)
        let context = try DrawingContext(surface: surface)
        let time = Double(frame) / 30
        try effect.render(in: context, at: FrameTime(index: frame, time: time, local: time))
        surface.flush()
        return surface
    }

    static func rect(_ x: Double, _ y: Double, _ width: Double, _ height: Double) -> JSONValue {
        .object(["x": .number(x), "y": .number(y), "width": .number(width), "height": .number(height)])
    }

    /// A 40 × 20 quadrant picture in `format`, in a new job folder, as `picture.png` or `picture.jpg`.
    static func picture(_ format: TestImages.Format, width: Int = 40, height: Int = 20) throws -> (JobFolder, String) {
        let folder = try JobFolder()
        let name = format == .png ? "picture.png" : "picture.jpg"
        try folder.write(
            try TestImages.encode(try TestImages.quadrants(width: width, height: height), as: format), to: name)
        return (folder, name)
    }

    /// Expects the pixel at (x, y) to be `color` (opaque) within `tolerance` per 8-bit component.
    static func expectPixel(
        _ image: ImageSurface, _ x: Int, _ y: Int, _ color: Color, tolerance: Int = 6,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let pixel = image.pixel(x: x, y: y)
        let want = [color.red, color.green, color.blue].map { Int(($0 * 255).rounded()) }
        let got = [Int(pixel.r), Int(pixel.g), Int(pixel.b)]
        let close = pixel.a == 255 && zip(want, got).allSatisfy { abs($0 - $1) <= tolerance }
        #expect(
            close, "pixel (\(x), \(y)) is \(got) alpha \(pixel.a), expected \(want) opaque",
            sourceLocation: sourceLocation)
    }

    static func expectClear(
        _ image: ImageSurface, _ x: Int, _ y: Int, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(image.pixel(x: x, y: y).a == 0, "pixel (\(x), \(y)) is not transparent", sourceLocation: sourceLocation)
    }

    @Test(
        "contain: the whole 2:1 picture, centred in a square rect, with empty bars above and below",
        arguments: TestImages.Format.allCases)
    func contain(format: TestImages.Format) throws {
        let (folder, name) = try Self.picture(format)
        let image = try Self.draw(try Self.effect(["file": .string(name), "fit": "contain"], in: folder))
        // 40 × 20 scaled by 5: 200 × 100 at y 50…150.
        Self.expectClear(image, 100, 25)
        Self.expectClear(image, 100, 175)
        Self.expectPixel(image, 50, 75, TestImages.red)
        Self.expectPixel(image, 150, 75, TestImages.green)
        Self.expectPixel(image, 50, 125, TestImages.blue)
        Self.expectPixel(image, 150, 125, TestImages.yellow)
        Self.expectPixel(image, 2, 52, TestImages.red)
        Self.expectPixel(image, 197, 147, TestImages.yellow)
    }

    @Test(
        "cover: the rect filled, the picture's sides cut off at the rect's edges", arguments: TestImages.Format.allCases
    )
    func cover(format: TestImages.Format) throws {
        let (folder, name) = try Self.picture(format)
        let image = try Self.draw(
            try Self.effect(["file": .string(name), "fit": "cover", "rect": Self.rect(50, 50, 100, 100)], in: folder))
        // 40 × 20 scaled by 5: 200 × 100 at x 0…200, y 50…150, clipped to x 50…150.
        Self.expectClear(image, 25, 100)
        Self.expectClear(image, 175, 100)
        Self.expectClear(image, 100, 25)
        Self.expectPixel(image, 60, 60, TestImages.red)
        Self.expectPixel(image, 140, 60, TestImages.green)
        Self.expectPixel(image, 60, 140, TestImages.blue)
        Self.expectPixel(image, 140, 140, TestImages.yellow)
        Self.expectPixel(image, 51, 51, TestImages.red)
        Self.expectPixel(image, 148, 148, TestImages.yellow)
    }

    @Test("fill: the picture stretched to a tall rect", arguments: TestImages.Format.allCases)
    func fill(format: TestImages.Format) throws {
        let (folder, name) = try Self.picture(format)
        let image = try Self.draw(
            try Self.effect(["file": .string(name), "fit": "fill", "rect": Self.rect(0, 0, 100, 200)], in: folder))
        Self.expectPixel(image, 25, 50, TestImages.red)
        Self.expectPixel(image, 75, 50, TestImages.green)
        Self.expectPixel(image, 25, 150, TestImages.blue)
        Self.expectPixel(image, 75, 150, TestImages.yellow)
        Self.expectPixel(image, 2, 197, TestImages.blue)
        Self.expectClear(image, 150, 100)
    }

    @Test(
        "circle: the corners of a square avatar are transparent, the inside of the circle opaque",
        arguments: TestImages.Format.allCases)
    func circle(format: TestImages.Format) throws {
        let (folder, name) = try Self.picture(format, width: 40, height: 40)
        let image = try Self.draw(
            try Self.effect(
                ["file": .string(name), "fit": "cover", "circle": true, "rect": Self.rect(0, 0, 100, 100)], in: folder))
        // The circle of radius 50 about (50, 50): (10, 10) lies 57 pt from the centre, (20, 20) 42 pt.
        for (x, y) in [(1, 1), (98, 1), (1, 98), (98, 98), (10, 10), (89, 89)] { Self.expectClear(image, x, y) }
        for (x, y, color) in [
            (20, 20, TestImages.red), (79, 20, TestImages.green), (20, 79, TestImages.blue),
            (79, 79, TestImages.yellow), (40, 3, TestImages.red), (3, 40, TestImages.red),
        ] {
            Self.expectPixel(image, x, y, color, tolerance: 10)
        }
        #expect(image.pixel(x: 49, y: 49).a == 255)
        #expect(image.pixel(x: 150, y: 50).a == 0)
    }

    @Test("radius: the corners are rounded, the edges between them straight")
    func radius() throws {
        let (folder, name) = try Self.picture(.png, width: 40, height: 40)
        let image = try Self.draw(
            try Self.effect(
                ["file": .string(name), "fit": "fill", "radius": 30, "rect": Self.rect(0, 0, 100, 100)], in: folder))
        // Corner arcs about (30, 30) etc.: (4, 4) lies 37 pt from it, outside; (30, 1) and (1, 30) on the edges.
        for (x, y) in [(4, 4), (95, 4), (4, 95), (95, 95)] { Self.expectClear(image, x, y) }
        Self.expectPixel(image, 30, 1, TestImages.red)
        Self.expectPixel(image, 1, 30, TestImages.red)
        Self.expectPixel(image, 98, 70, TestImages.yellow)
        Self.expectPixel(image, 12, 12, TestImages.red)
    }

    @Test("a picture drawn smaller is resampled once in create to the pixels it covers; a small one drawn large warns")
    func resampledOnce() throws {
        let (folder, name) = try Self.picture(.jpeg, width: 400, height: 200)
        let effect = try Self.effect(["file": .string(name), "rect": Self.rect(0, 0, 100, 100)], in: folder, scale: 2)
        #expect(effect.image.width == 200 && effect.image.height == 100)
        #expect(effect.warnings.isEmpty)
        let blurry = try Self.effect(
            ["file": .string(name), "rect": Self.rect(0, 0, 2000, 2000)], in: folder, scale: 2)
        #expect(blurry.image.width == 400)
        #expect(blurry.warnings.first?.description.contains("is 400 × 200 pixels but drawn at 4000 × 2000") == true)
    }

    @Test("decoded once: the file is an input file, every frame has the same key, and drawing never reads the file")
    func decodedOnce() throws {
        let (folder, name) = try Self.picture(.jpeg)
        let effect = try Self.effect(["file": .string(name)], in: folder)
        #expect(ImageEffect.descriptor.frameInvariant)
        #expect(effect.inputFiles == [folder.path + "/" + name])
        let first = FrameTime(index: 0, time: 0, local: 0)
        let later = FrameTime(index: 29, time: 29.0 / 30, local: 29.0 / 30)
        #expect(effect.frameKey(at: first) == effect.frameKey(at: later))
        try FileManager.default.removeItem(atPath: folder.path + "/" + name)
        let image = try Self.draw(effect, frame: 29)
        Self.expectPixel(image, 50, 75, TestImages.red)
    }

    /// A JPEG whose start-of-frame header claims `width` × `height` (the scan data stays the small picture's).
    static func claimingJPEG(width: Int, height: Int) throws -> [UInt8] {
        var bytes = try TestImages.encode(try TestImages.quadrants(width: 16, height: 16), as: .jpeg)
        guard let sof = (0..<bytes.count - 9).first(where: { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 }) else {
            throw TestFailure("no SOF0 marker")
        }
        // Marker, length (2), precision (1), then height and width, big-endian.
        bytes[sof + 5] = UInt8(height >> 8)
        bytes[sof + 6] = UInt8(height & 0xFF)
        bytes[sof + 7] = UInt8(width >> 8)
        bytes[sof + 8] = UInt8(width & 0xFF)
        return bytes
    }

    @Test(
        "damaged, truncated, oversized and non-image files are refused in create, naming the file and why",
        arguments: [
            "truncated JPEG", "truncated PNG", "text", "oversized JPEG", "oversized PNG", "missing", "outside",
            "folder", "CMYK-free garbage after a JPEG signature",
        ])
    func refused(_ kind: String) throws {
        let folder = try JobFolder()
        let jpeg = try TestImages.encode(try TestImages.quadrants(width: 64, height: 64), as: .jpeg)
        let png = try TestImages.encode(try TestImages.quadrants(width: 64, height: 64), as: .png)
        var name = "bad.jpg"
        let expected: String
        switch kind {
        case "truncated JPEG":
            try folder.write(Array(jpeg.prefix(jpeg.count * 2 / 3)), to: name)
            expected = "bad.jpg is not a readable JPEG ("
        case "truncated PNG":
            name = "bad.png"
            try folder.write(Array(png.prefix(png.count / 2)), to: name)
            expected = "bad.png is a damaged PNG: it is cut off inside its IDAT chunk"
        case "text":
            try folder.write(Array("hello, not a picture\n".utf8), to: name)
            expected = "bad.jpg is not a PNG, JPEG or SVG file"
        case "oversized JPEG":
            try folder.write(try Self.claimingJPEG(width: 16_000, height: 16_000), to: name)
            expected = "bad.jpg is 16000 × 16000 pixels, too large to draw (the limit is 8192 pixels a side)"
        case "oversized PNG":
            name = "bad.png"
            var header = png
            // IHDR's width and height, big-endian, after the signature, length and type.
            for (offset, value) in [(16, 9000), (20, 9000)] {
                for byte in 0..<4 { header[offset + byte] = UInt8((value >> (8 * (3 - byte))) & 0xFF) }
            }
            try folder.write(header, to: name)
            expected = "bad.png is 9000 × 9000 pixels, too large to draw (the limit is 8192 pixels a side)"
        case "missing":
            expected = "bad.jpg"
        case "outside":
            name = "../bad.jpg"
            expected = "outside"
        case "folder":
            try FileManager.default.createDirectory(
                atPath: folder.path + "/bad.jpg", withIntermediateDirectories: false)
            expected = "bad.jpg is a folder"
        default:
            try folder.write(JPEGDecoder.signature + [UInt8](repeating: 0x42, count: 200), to: name)
            expected = "bad.jpg is not a readable JPEG ("
        }
        do {
            _ = try Self.effect(["file": .string(name)], in: folder)
            Issue.record("\(kind): accepted")
        } catch let error as EffectError {
            #expect(error.parameter == "file")
            #expect(error.description.contains(expected), "\(kind): \(error.description)")
        } catch {
            Issue.record("\(kind): \(error)")
        }
    }

    @Test("file is required")
    func missingParameter() throws {
        let folder = try JobFolder()
        #expect(throws: EffectError(parameter: "file", "missing: the PNG, JPEG or SVG file to draw")) {
            try Self.effect([:], in: folder)
        }
    }
}
