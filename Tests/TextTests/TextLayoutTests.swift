import EffectKit
import Foundation
import Testing

@testable import PangoText

/// The text effect in process: Pango's own layout (sizes, lines, positions) and the pixels it draws.
@Suite("Text layout")
struct TextLayoutTests {
    static let canvas = (width: 240, height: 160)
    /// Strings the shrink test sets: `make test` runs a sample, `make text-check` all 1,000.
    static let shrinkCases = ProcessInfo.processInfo.environment["RENDERFARM_TEXT_CASES"].flatMap { Int($0) } ?? 200

    static func effect(_ params: [String: JSONValue], jobDirectory: String = "/tmp") throws -> TextEffect {
        var values = JSONObject()
        for spec in TextEffect.descriptor.parameters { if let value = spec.defaultValue { values[spec.name] = value } }
        for (key, value) in params { values[key] = value }
        let context = EffectContext(
            width: Double(canvas.width), height: Double(canvas.height), fps: 30, duration: 1,
            jobDirectory: jobDirectory)
        return try TextEffect(parameters: EffectParameters(values), context: context)
    }

    static func draw(_ effect: TextEffect, scale: Double = 1) throws -> ImageSurface {
        let surface = try ImageSurface(
            width: Int(Double(canvas.width) * scale), height: Int(Double(canvas.height) * scale))
        let context = try DrawingContext(surface: surface)
        context.scale(scale, scale)
        try effect.render(in: context, at: FrameTime(index: 0, time: 0, local: 0))
        surface.flush()
        return surface
    }

    static func rect(_ x: Double, _ y: Double, _ width: Double, _ height: Double) -> JSONValue {
        .object(["x": .number(x), "y": .number(y), "width": .number(width), "height": .number(height)])
    }

    /// Pixels with any ink outside `box` (in pixels of `image`), read straight from its ARGB32 words.
    static func inkOutside(_ image: ImageSurface, box: Rect) -> Int {
        let (left, right) = (Int(box.x.rounded(.down)), Int(box.maxX.rounded(.up)))
        let (top, bottom) = (Int(box.y.rounded(.down)), Int(box.maxY.rounded(.up)))
        var count = 0
        let bytes = image.bytes
        for y in 0..<image.height {
            let row = bytes + y * image.stride
            for x in 0..<image.width where row[4 * x + 3] != 0 {
                if x < left || x >= right || y < top || y >= bottom { count += 1 }
            }
        }
        return count
    }

    /// Strings of every kind the shrink must handle: long words, emoji, right-to-left, CJK and mixtures.
    static func generated(_ count: Int) -> [String] {
        let pools: [[String]] = [
            ["aiko", "Supercalifragilisticexpialidocious", "WWWWWWWWWWWWWWWWWWWW", "sent", "Rose", "×5", "gg"],
            ["🌹", "🎁", "👍🏽", "👨‍👩‍👧", "🇯🇵", "❤️", "🚀🚀🚀"],
            ["مرحبا", "أحمد", "أرسل", "وردة", "שלום", "דוד", "שלח"],
            ["さくら", "ありがとう", "東京タワー", "李小龙", "送出了", "玫瑰花", "잘했어"],
        ]
        var random = SeededRandom(seed: 28)
        return (0..<count).map { _ in
            let words = 1 + Int(random.next() % 12)
            return (0..<words).map { _ in
                let pool = pools[Int(random.next() % UInt64(pools.count))]
                return pool[Int(random.next() % UInt64(pool.count))]
            }.joined(separator: random.next() % 5 == 0 ? "" : " ")
        }
    }

    @Test(
        "fit shrink: for 1,000 strings (make text-check; make test: 200) (long words, emoji, RTL, CJK, mixed) Pango's ink and lines stay in the box, and so do the pixels"
    )
    func shrinkNeverOverflows() throws {
        var random = SeededRandom(seed: 1)
        var shrunk = 0
        for (index, text) in Self.generated(Self.shrinkCases).enumerated() {
            let width = 40 + Double(random.next() % 180)
            let height = 20 + Double(random.next() % 120)
            let box = Rect(x: 10, y: 10, width: width, height: height)
            let effect = try Self.effect([
                "text": .string(text), "fit": "shrink", "size": 40, "minSize": 6,
                "rect": Self.rect(box.x, box.y, box.width, box.height),
                "align": index % 2 == 0 ? "center" : "end", "valign": index % 3 == 0 ? "bottom" : "middle",
                "wrap": .bool(index % 4 != 0),
            ])
            let layout = try #require(effect.singleLayout)
            #expect(box.contains(layout.ink) || layout.overflows, "\(index) \(text): ink \(layout.ink) in \(box)")
            #expect(box.contains(layout.logical) || layout.overflows, "\(index) \(text): \(layout.logical) in \(box)")
            #expect(layout.size <= 40 && layout.size >= 6)
            if layout.size < 40 { shrunk += 1 }
            let image = try Self.draw(effect)
            #expect(Self.inkOutside(image, box: box) == 0, "\(index) \(text): ink outside \(box)")
        }
        // The strings and boxes are such that most of them need shrinking (else the test would prove little).
        #expect(shrunk > Self.shrinkCases / 2, "\(shrunk) of \(Self.shrinkCases) shrunk")
    }

    @Test("without fit, the same long text overflows its box (the shrink test's pixel check can fail)")
    func overflowWithoutFit() throws {
        let box = Rect(x: 10, y: 10, width: 60, height: 30)
        let effect = try Self.effect([
            "text": "Supercalifragilistic sent Rose ×5 to everybody", "size": 40,
            "rect": Self.rect(box.x, box.y, box.width, box.height),
        ])
        #expect(Self.inkOutside(try Self.draw(effect), box: box) > 100)
    }

    @Test("emoji are drawn in colour (Noto Color Emoji), the letters in the fill colour")
    func colourEmoji() throws {
        let effect = try Self.effect(["text": "🌹", "size": 80, "color": "#FFFFFF"])
        let image = try Self.draw(effect)
        var chroma = 0
        for y in 0..<image.height {
            for x in 0..<image.width {
                let p = image.pixel(x: x, y: y)
                if p.a > 200, Int(max(p.r, p.g, p.b)) - Int(min(p.r, p.g, p.b)) > 80 { chroma += 1 }
            }
        }
        #expect(chroma > 500, "\(chroma) coloured pixels")
        #expect(effect.inputFiles.contains { $0.hasSuffix("NotoColorEmoji.ttf") }, "\(effect.inputFiles)")
        let letters = try Self.draw(try Self.effect(["text": "Rose", "size": 80, "color": "#FFFFFF"]))
        for y in 0..<letters.height {
            for x in 0..<letters.width {
                let p = letters.pixel(x: x, y: y)
                #expect(p.a == 0 || (p.r == p.g && p.g == p.b), "(\(x), \(y)): \(p)")
            }
        }
    }

    @Test("an RTL line's first logical character is drawn rightmost", arguments: ["auto", "rtl"])
    func rightToLeft(direction: String) throws {
        // Hebrew: shin, lamed, vav, mem; the shin (first in memory) is on the right.
        let effect = try Self.effect(["text": "שלום", "size": 60, "direction": .string(direction), "align": "start"])
        let first = try #require(effect.singleLayout).characterBox(byteIndex: 0)
        let last = try #require(effect.singleLayout).characterBox(byteIndex: "שלו".utf8.count)
        #expect(first.x > last.x, "first \(first), last \(last)")
        // align start in a right-to-left line is the box's right edge: the ink ends near it.
        let image = try Self.draw(effect)
        let inked = (0..<image.width).filter { x in (0..<image.height).contains { image.pixel(x: x, y: $0).a > 0 } }
        #expect((inked.max() ?? 0) > Self.canvas.width - 20, "ink columns \(inked.min() ?? -1)…\(inked.max() ?? -1)")
        // Pixels: the shin's box holds ink, right of the mem's.
        let shinInk = (Int(first.x)..<Int(first.maxX)).contains { x in
            (0..<image.height).contains { image.pixel(x: x, y: $0).a > 128 }
        }
        #expect(shinInk)
    }

    @Test("maxLines keeps that many lines and ends the last with an ellipsis; nothing is drawn below it")
    func maxLines() throws {
        let text = String(repeating: "aiko sent Rose ×5 ", count: 20)
        let effect = try Self.effect([
            "text": .string(text), "size": 20, "maxLines": 2, "rect": Self.rect(0, 0, 200, 160),
        ])
        #expect(try #require(effect.singleLayout).lineCount == 2)
        #expect(try #require(effect.singleLayout).ellipsized == true)
        let image = try Self.draw(effect)
        #expect(
            Self.inkOutside(
                image, box: Rect(x: 0, y: 0, width: 200, height: try #require(effect.singleLayout).logical.maxY)) == 0)
        let full = try Self.effect(["text": .string(text), "size": 20, "rect": Self.rect(0, 0, 200, 160)])
        #expect(try #require(full.singleLayout).lineCount > 2)
        #expect(try #require(full.singleLayout).ellipsized == false)
    }

    @Test("only the packaged fonts: a family outside them is refused with the packages named")
    func unknownFamily() throws {
        #expect(throws: EffectError.self) { try Self.effect(["text": "x", "font": "DejaVu Sans"]) }
        do {
            _ = try Self.effect(["text": "x", "font": "Liberation Serif"])
        } catch let error as EffectError {
            #expect(error.description.contains("fonts-noto-core"), "\(error)")
        }
        let serif = try Self.effect(["text": "x", "font": "Noto Serif"])
        #expect(serif.inputFiles.allSatisfy { $0.hasPrefix("/usr/share/fonts/") })
        #expect(serif.inputFiles.contains { $0.hasSuffix("NotoSerif-Regular.ttf") })
    }

    @Test("characters no font has are named in the warning by code point, each once, in order")
    func missingCharacters() throws {
        // Private-use code points: no packaged font draws them.
        let two = try Self.effect(["text": "A\u{E000}B\u{E001}\u{E000}"])
        #expect(
            two.warnings.map(\.description) == [
                "text: 2 characters are in no font RenderFarm has (U+E000 \"\u{E000}\", U+E001 \"\u{E001}\"); they are "
                    + "drawn as boxes; add a font file that has them (font: \"fonts/….ttf\") or change the text"
            ])
        let one = try Self.effect(["text": "x\u{F8FF}"])
        #expect(one.warnings.first?.description.contains("1 character is in no font RenderFarm has (U+F8FF") == true)
        #expect(try Self.effect(["text": "Rose 🌹 ×6 مرحبا 你好"]).warnings.isEmpty)
    }

    @Test("a job's font file outside the job folder is refused; one inside is used and named")
    func jobFontFile() throws {
        let folder = "/tmp/renderfarm-text-test-\(getpid())"
        mkdir(folder, 0o755)
        defer {
            _ = unlink(folder + "/Custom.ttf")
            rmdir(folder)
        }
        #expect(throws: EffectError.self) {
            try Self.effect(["text": "x", "font": "../etc/Custom.ttf"], jobDirectory: folder)
        }
        #expect(link("/usr/share/fonts/truetype/noto/NotoSerif-Bold.ttf", folder + "/Custom.ttf") == 0)
        let effect = try Self.effect(["text": "Rose 🌹", "font": "Custom.ttf"], jobDirectory: folder)
        #expect(effect.inputFiles.first == folder + "/Custom.ttf")
        #expect(effect.inputFiles.contains { $0.hasSuffix("NotoColorEmoji.ttf") })
    }

    @Test("parameters are checked: bad markup, a stroke with an unknown key, a bad shadow colour")
    func validation() throws {
        #expect(throws: EffectError.self) { try Self.effect(["text": "<b>bold", "markup": true]) }
        #expect(throws: EffectError.self) {
            try Self.effect(["text": "x", "stroke": .object(["colour": "#000000"])])
        }
        #expect(throws: EffectError.self) { try Self.effect(["text": "x", "shadow": .object(["color": "red"])]) }
        let marked = try Self.effect(["text": "<b>bold</b> <span foreground=\"#FF0000\">red</span>", "markup": true])
        let image = try Self.draw(marked)
        var red = 0
        for y in 0..<image.height {
            for x in 0..<image.width where image.pixel(x: x, y: y) == (255, 0, 0, 255) { red += 1 }
        }
        #expect(red > 50)
    }

    @Test(
        "a gradient fill runs from its first colour to its second along its angle; without one the fill is flat",
        arguments: [0.0, 90.0])
    func gradientFill(angle: Double) throws {
        let gradient: JSONValue = .object(["from": "#FF0000", "to": "#0000FF", "angle": .number(angle)])
        let image = try Self.draw(
            try Self.effect([
                "text": "MMMM\nMMMM", "size": 40, "rect": Self.rect(10, 10, 220, 140), "gradient": gradient,
            ]))
        // The opaque ink of the first and last quarter of the drawn span, along the gradient's direction.
        var inked: [(along: Int, pixel: (r: UInt8, g: UInt8, b: UInt8, a: UInt8))] = []
        for y in 0..<image.height {
            for x in 0..<image.width {
                let p = image.pixel(x: x, y: y)
                if p.a == 255 { inked.append((angle == 0 ? x : y, p)) }
            }
        }
        let span = try #require(inked.map(\.along).min()).distance(to: try #require(inked.map(\.along).max()))
        let low = try #require(inked.map(\.along).min())
        let first = inked.filter { $0.along < low + span / 4 }.map(\.pixel)
        let last = inked.filter { $0.along > low + span * 3 / 4 }.map(\.pixel)
        #expect(!first.isEmpty && first.allSatisfy { $0.r > 150 && $0.b < 110 }, "\(first.prefix(5))")
        #expect(!last.isEmpty && last.allSatisfy { $0.b > 150 && $0.r < 110 }, "\(last.prefix(5))")
        #expect(throws: EffectError.self) { try Self.effect(["text": "x", "gradient": .object(["from": "#FF0000"])]) }
        let flat = try Self.draw(try Self.effect(["text": "MMMM", "size": 40, "color": "#FF0000"]))
        for y in 0..<flat.height {
            for x in 0..<flat.width where flat.pixel(x: x, y: y).a == 255 {
                #expect(flat.pixel(x: x, y: y) == (255, 0, 0, 255))
            }
        }
    }
}
