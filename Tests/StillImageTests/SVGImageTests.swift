import EffectKit
import Foundation
import Testing

@testable import StillImage

/// SVG files in the image effect: generated documents placed by every fit at several scales, read back from the
/// pixels against where the placement puts each shape; nothing outside the file is loaded; bad files refused.
@Suite("Image effect: SVG")
struct SVGImageTests {
    /// One filled rectangle of a generated document, in the document's units.
    struct Box {
        var x, y, width, height: Double
        var color: Color
        var hex: String {
            "#"
                + [color.red, color.green, color.blue].map { String(format: "%02X", Int(($0 * 255).rounded())) }
                .joined()
        }
    }

    static let palette: [Color] = [
        Color(red: 1, green: 0, blue: 0), Color(red: 0, green: 0, blue: 1), Color(red: 0, green: 1, blue: 0),
        Color(red: 1, green: 1, blue: 0), Color(red: 0, green: 1, blue: 1),
    ]

    @Test("40 generated documents, fits, rects and scales: each shape's centre in its colour, outside the image clear")
    func generated() throws {
        var random = SystemRandomNumberGenerator()
        let seed = UInt64(ProcessInfo.processInfo.environment["RENDERFARM_SVG_SEED"] ?? "") ?? random.next()
        var generator = SeededRandom(seed: seed)
        for run in 0..<40 {
            let label = "RENDERFARM_SVG_SEED=\(seed), run \(run)"
            let (width, height) = (
                Double.random(in: 20...400, using: &generator), Double.random(in: 20...400, using: &generator)
            )
            // Two boxes side by side filling the document, so every point of it is one of them.
            let split = Double.random(in: 0.3...0.7, using: &generator)
            let colors = Self.palette.shuffled(using: &generator)
            let boxes = [
                Box(x: 0, y: 0, width: width * split, height: height, color: colors[0]),
                Box(x: width * split, y: 0, width: width * (1 - split), height: height, color: colors[1]),
            ]
            let sized = Bool.random(using: &generator)
            let size = sized ? "width=\"\(width)\" height=\"\(height)\"" : "viewBox=\"0 0 \(width) \(height)\""
            let svg =
                "<svg xmlns=\"http://www.w3.org/2000/svg\" \(size)>"
                + boxes.map {
                    "<rect x=\"\($0.x)\" y=\"\($0.y)\" width=\"\($0.width)\" height=\"\($0.height)\" fill=\"\($0.hex)\"/>"
                }.joined() + "</svg>"
            let folder = try JobFolder()
            try folder.write(Array(svg.utf8), to: "art.svg")
            let fit = ["contain", "cover", "fill"].randomElement(using: &generator) ?? "contain"
            let rect = Rect(
                x: Double.random(in: 0...80, using: &generator), y: Double.random(in: 0...80, using: &generator),
                width: Double.random(in: 30...120, using: &generator),
                height: Double.random(in: 30...120, using: &generator))
            let scale: Double = [1.0, 1.5, 2].randomElement(using: &generator) ?? 1
            let effect = try ImageEffectTests.effect(
                [
                    "file": .string("art.svg"), "fit": .string(fit),
                    "rect": ImageEffectTests.rect(rect.x, rect.y, rect.width, rect.height),
                ], in: folder, scale: scale)
            let image = try ImageEffectTests.draw(effect)
            // Where the document goes, in canvas points (the test canvas is drawn at 1 pixel per point).
            let placed: Rect
            switch fit {
            case "fill": placed = rect
            default:
                let factor =
                    fit == "contain"
                    ? min(rect.width / width, rect.height / height) : max(rect.width / width, rect.height / height)
                placed = Rect(
                    x: rect.x + (rect.width - width * factor) / 2, y: rect.y + (rect.height - height * factor) / 2,
                    width: width * factor, height: height * factor)
            }
            let visible = fit == "cover" ? rect : placed
            for box in boxes {
                let centre = (
                    x: placed.x + (box.x + box.width / 2) / width * placed.width,
                    y: placed.y + (box.y + box.height / 2) / height * placed.height
                )
                // A centre cut off by cover, or within 2 points of the visible edge, says nothing.
                guard centre.x > visible.x + 2, centre.x < visible.x + visible.width - 2, centre.y > visible.y + 2,
                    centre.y < visible.y + visible.height - 2
                else { continue }
                let pixel = image.pixel(x: Int(centre.x), y: Int(centre.y))
                let want = [box.color.red, box.color.green, box.color.blue].map { UInt8(($0 * 255).rounded()) }
                #expect(
                    [pixel.r, pixel.g, pixel.b] == want && pixel.a == 255,
                    "\(label): \(fit) \(rect) at \(centre): \(pixel), expected \(box.hex)")
            }
            for (x, y) in [(visible.x - 2, visible.center.y), (visible.center.x, visible.y + visible.height + 2)]
            where x >= 0 && y < Double(ImageEffectTests.canvas) {
                #expect(image.pixel(x: Int(x), y: Int(y)).a == 0, "\(label): \(fit) \(rect): (\(x), \(y)) drawn")
            }
        }
    }

    @Test("drawn once at the size shown: sharp at 3× (no blurry warning), an input file, one key for every frame")
    func sharpAtAnyScale() throws {
        let folder = try JobFolder()
        try folder.write(
            Array(
                "<svg xmlns='http://www.w3.org/2000/svg' width='10' height='10'><rect width='5' height='10' fill='#f00'/></svg>"
                    .utf8), to: "tiny.svg")
        let effect = try ImageEffectTests.effect(
            ["file": .string("tiny.svg"), "rect": ImageEffectTests.rect(0, 0, 60, 60), "fit": .string("fill")],
            in: folder, scale: 3)
        #expect(effect.warnings.isEmpty)
        #expect(effect.image.width == 180 && effect.image.height == 180)
        #expect(effect.inputFiles == [folder.path + "/tiny.svg"])
        #expect(
            effect.frameKey(at: FrameTime(index: 0, time: 0, local: 0))
                == effect.frameKey(at: FrameTime(index: 9, time: 0.3, local: 0.3)))
    }

    @Test("nothing outside the file is loaded: an image it refers to, relative or absolute, is not drawn")
    func nothingOutside() throws {
        let folder = try JobFolder()
        try folder.write(
            try TestImages.encode(try TestImages.quadrants(width: 8, height: 8), as: .png), to: "outside.png")
        for href in ["outside.png", "file://\(folder.path)/outside.png"] {
            try folder.write(
                Array(
                    "<svg xmlns='http://www.w3.org/2000/svg' width='100' height='100'><image href='\(href)' width='100' height='100'/></svg>"
                        .utf8), to: "refers.svg")
            let effect = try ImageEffectTests.effect(
                ["file": .string("refers.svg"), "rect": ImageEffectTests.rect(0, 0, 100, 100)], in: folder)
            let image = try ImageEffectTests.draw(effect)
            #expect(image.pixel(x: 25, y: 25).a == 0 && image.pixel(x: 75, y: 75).a == 0, "\(href) was drawn")
        }
    }

    @Test(
        "bad and hostile SVG files (entity expansion, deep nesting) are refused in create, naming the file and why",
        arguments: [
            ("<svg xmlns='http://www.w3.org/2000/svg'><rect", "bad.svg is not a readable SVG (XML parse error"),
            (
                "<svg xmlns='http://www.w3.org/2000/svg'><rect width='5' height='5'/></svg>",
                "bad.svg is not a readable SVG (no size: give the svg element a width and height, or a viewBox"
            ),
            (
                "<?xml version='1.0'?><!DOCTYPE svg [<!ENTITY a 'lol'>"
                    + (1..<10).map {
                        "<!ENTITY \(Character(UnicodeScalar(97 + $0)!)) '"
                            + String(repeating: "&\(Character(UnicodeScalar(96 + $0)!));", count: 10) + "'>"
                    }.joined()
                    + "]><svg xmlns='http://www.w3.org/2000/svg' width='9' height='9'><text>&j;</text></svg>",
                "bad.svg is not a readable SVG (XML parse error"
            ),
            (
                "<svg xmlns='http://www.w3.org/2000/svg' width='9' height='9'>" + String(repeating: "<g>", count: 5000)
                    + String(repeating: "</g>", count: 5000) + "</svg>",
                "bad.svg is not a readable SVG (XML parse error"
            ),
            (
                "<svg xmlns='http://www.w3.org/2000/svg' width='20' height='20'/>",
                "bad.svg would be drawn at 9000 × 9000 pixels, too large (the limit is 8192 pixels a side)"
            ),
        ])
    func refused(_ svg: String, _ expected: String) throws {
        let folder = try JobFolder()
        try folder.write(Array(svg.utf8), to: "bad.svg")
        let side = expected.contains("9000") ? 9000.0 : 100
        do {
            _ = try ImageEffectTests.effect(
                ["file": .string("bad.svg"), "rect": ImageEffectTests.rect(0, 0, side, side)], in: folder)
            Issue.record("accepted: \(svg)")
        } catch let error as EffectError {
            #expect(error.parameter == "file")
            #expect(error.message.contains(expected), "\(error.message)")
        }
    }

    @Test("an SVG with text warns that its fonts are not in the fingerprint")
    func textWarns() throws {
        let folder = try JobFolder()
        try folder.write(
            Array(
                "<svg xmlns='http://www.w3.org/2000/svg' width='40' height='20'><text x='0' y='15'>Hi</text></svg>".utf8
            ),
            to: "label.svg")
        let effect = try ImageEffectTests.effect(["file": .string("label.svg")], in: folder)
        #expect(effect.warnings.map(\.message).joined().contains("label.svg has text, drawn with this machine's fonts"))
    }
}

/// EffectKit's SplitMix64 stream, so a failing run can be repeated from its seed.
extension SeededRandom: RandomNumberGenerator {}
