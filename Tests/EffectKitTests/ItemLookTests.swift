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
