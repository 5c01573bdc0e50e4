import Foundation
import Testing

@testable import EffectKit

/// A job folder with a PNG inside, a PNG beside it, and links pointing in and out.
private final class JobFolder {
    let root: URL
    var job: String { root.appendingPathComponent("job").path }

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("effectkit-assets-\(UUID().uuidString)")
        let manager = FileManager.default
        try manager.createDirectory(
            atPath: root.appendingPathComponent("job/art").path, withIntermediateDirectories: true)
        let surface = try ImageSurface(width: 4, height: 2)
        let context = try DrawingContext(surface: surface)
        context.setSource(Color(red: 0, green: 0, blue: 1))
        context.paint()
        surface.flush()
        try surface.writePNG(to: root.appendingPathComponent("job/art/blue.png").path)
        try surface.writePNG(to: root.appendingPathComponent("outside.png").path)
        try Data("not a png".utf8).write(to: root.appendingPathComponent("job/art/text.png"))
        try manager.createSymbolicLink(
            atPath: root.appendingPathComponent("job/escape.png").path,
            withDestinationPath: root.appendingPathComponent("outside.png").path)
        try manager.createSymbolicLink(
            atPath: root.appendingPathComponent("job/alias.png").path,
            withDestinationPath: "art/blue.png")
    }

    deinit { try? FileManager.default.removeItem(at: root) }

    /// Writes a transparent `width` × `height` PNG at `name` below the root.
    func writeImage(width: Int, height: Int, to name: String) throws {
        try ImageSurface(width: width, height: height).writePNG(to: root.appendingPathComponent(name).path)
    }
}

@Suite("Item looks and asset paths")
struct ItemLookTests {
    @Test("an image inside the job's folder loads, also through a link that stays inside")
    func loadsInside() throws {
        let folder = try JobFolder()
        let loader = ItemLookLoader(jobDirectory: folder.job)
        let look = try loader.look(shape: "image", image: "art/blue.png", color: nil)
        #expect(look.image?.width == 4 && look.image?.height == 2)
        #expect(try loader.look(shape: "gift", image: "alias.png", color: nil).image != nil)
    }

    @Test(
        "paths that leave the job's folder are refused before they are read",
        arguments: [
            "../outside.png", "escape.png", "art/../../outside.png", "/etc/passwd",
        ])
    func refusesOutside(path: String) throws {
        let folder = try JobFolder()
        let loader = ItemLookLoader(jobDirectory: folder.job)
        #expect(throws: EffectError(parameter: "image", "\(path) resolves outside the job's folder")) {
            try loader.look(shape: "image", image: path, color: nil)
        }
    }

    @Test("a missing file, a non-PNG, an unknown shape and an image shape without a path name the parameter")
    func errors() throws {
        let folder = try JobFolder()
        let loader = ItemLookLoader(jobDirectory: folder.job)
        let missing = #expect(throws: EffectError.self) {
            try loader.look(shape: "box", image: "art/none.png", color: nil)
        }
        #expect(missing?.parameter == "image" && missing?.message.contains("not found") == true)
        let text = #expect(throws: EffectError.self) {
            try loader.look(shape: "box", image: "art/text.png", color: nil)
        }
        #expect(text?.parameter == "image" && text?.message.contains("not a readable PNG") == true)
        let shape = #expect(throws: EffectError.self) {
            try loader.look(shape: "star", image: nil, color: nil, prefix: "items[2].")
        }
        #expect(shape?.parameter == "items[2].shape")
        let image = #expect(throws: EffectError.self) { try loader.look(shape: "image", image: nil, color: nil) }
        #expect(image?.parameter == "image")
    }

    @Test("an image is decoded once for every layer, and resampled once to a size it is drawn at half or less")
    func decodesOnce() throws {
        let folder = try JobFolder()
        try folder.writeImage(width: 64, height: 32, to: "job/art/wide.png")
        let first = ItemLookLoader(jobDirectory: folder.job, scale: 2)
        let second = ItemLookLoader(jobDirectory: folder.job, scale: 2)
        let original = try #require(try first.look(shape: "image", image: "art/wide.png", color: nil).image)
        #expect(try second.look(shape: "box", image: "art/wide.png", color: nil).image === original)
        // 20 × 10 pt at scale 2: 40 × 20 px is more than half of 64 × 32, so the original is drawn.
        let near = try first.look(shape: "image", image: "art/wide.png", color: nil, size: Size(width: 20, height: 10))
        #expect(near.image === original)
        // 8 × 4 pt at scale 2: 16 × 8 px, resampled once and shared.
        let small = Size(width: 8, height: 4)
        let scaled = try #require(try first.look(shape: "image", image: "art/wide.png", color: nil, size: small).image)
        #expect(scaled.width == 16 && scaled.height == 8)
        #expect(try second.look(shape: "image", image: "art/wide.png", color: nil, size: small).image === scaled)
    }

    @Test("a PNG larger than the asset limits is refused from its header")
    func refusesLargeHeader() throws {
        let folder = try JobFolder()
        let loader = ItemLookLoader(jobDirectory: folder.job)
        var header: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]
        header += Array("IHDR".utf8) + [0, 0, 0x3E, 0x80, 0, 0, 0x3E, 0x80, 8, 6, 0, 0, 0, 0, 0, 0, 0]
        try Data(header).write(to: folder.root.appendingPathComponent("job/art/huge.png"))
        #expect(
            throws: EffectError(
                parameter: "image",
                "art/huge.png is 16000 × 16000 pixels, too large to draw (the limit is 8192 pixels a side)")
        ) {
            try loader.look(shape: "image", image: "art/huge.png", color: nil)
        }
    }

    @Test("coins and circles collide as discs, the rest as boxes")
    func bodies() {
        let size = Size(width: 40, height: 30)
        #expect(ItemLook(shape: .coin).body(size: size) == .circle(diameter: 30))
        #expect(ItemLook(shape: .gift).body(size: size) == .box(size))
    }

    @Test("the drawer paints each look around its centre", arguments: ItemShape.allCases)
    func draws(shape: ItemShape) throws {
        let folder = try JobFolder()
        let loader = ItemLookLoader(jobDirectory: folder.job)
        let look = try loader.look(shape: shape.rawValue, image: shape == .image ? "art/blue.png" : nil, color: nil)
        let surface = try ImageSurface(width: 100, height: 100)
        let context = try DrawingContext(surface: surface)
        ItemDrawer.draw(look, size: Size(width: 40, height: 40), center: Point(30, 60), in: context)
        // The centre is covered; a point outside the item's bounds is not.
        #expect(surface.pixel(x: 30, y: 62).a > 200)
        #expect(surface.pixel(x: 80, y: 20).a == 0)
        #expect(surface.pixel(x: 30, y: 15).a == 0)
    }
}
