import EffectKit
import Foundation
import Testing

@testable import PangoText

/// Banners from an events log: when they show, how they stack, counters, frame keys.
@Suite("Text banners")
struct BannerTests {
    static let fps = 30.0

    static func event(_ time: Double, _ user: String, _ count: Int = 1) -> JSONValue {
        .object(["time": .number(time), "user": .string(user), "gift": "Rose 🌹", "count": .number(Double(count))])
    }

    static func effect(
        _ events: [JSONValue], banner: JSONValue? = nil, text: String = "{{user}} sent {{gift}} ×{{count}}"
    )
        throws -> TextEffect
    {
        var params: [String: JSONValue] = [
            "text": .string(text), "events": .array(events), "size": 14, "maxLines": 1,
            "rect": TextLayoutTests.rect(10, 10, 200, 140), "background": .object(["padding": 4]),
        ]
        if let banner { params["banner"] = banner }
        return try TextLayoutTests.effect(params)
    }

    static func frame(_ index: Int) -> FrameTime {
        FrameTime(index: index, time: Double(index) / fps, local: Double(index) / fps)
    }

    /// The ids of the banners drawn at frame `index` (alpha above 0).
    static func visible(_ effect: TextEffect, _ index: Int) -> [Int] {
        (effect.trace(at: frame(index)) ?? []).filter(\.visible).map(\.id)
    }

    @Test("each banner appears at its event's time (± 1 frame) and is gone after in + hold + out")
    func timing() throws {
        let times = [0.5, 1.2, 2.0, 3.7]
        let effect = try Self.effect(times.enumerated().map { Self.event($1, "user\($0)") })
        for (id, time) in times.enumerated() {
            let arrival = Int((time * Self.fps).rounded(.up))
            #expect(!Self.visible(effect, arrival - 1).contains(id), "banner \(id) before \(time) s")
            #expect(Self.visible(effect, arrival + 1).contains(id), "banner \(id) after \(time) s")
        }
        // Defaults: in 0.35 s, hold 2.5 s, out 0.3 s: banner 3 (no newer ones) leaves 3.15 s after arriving.
        #expect(Self.visible(effect, Int(((3.7 + 3.1) * Self.fps).rounded(.down))).contains(3))
        #expect(!Self.visible(effect, Int(((3.7 + 3.2) * Self.fps).rounded(.up))).contains(3))
        // And pixels: nothing drawn before the first event, something after.
        #expect(TextLayoutTests.inkOutside(try Self.draw(effect, 10), box: Rect(x: 0, y: 0, width: 0, height: 0)) == 0)
        #expect(TextLayoutTests.inkOutside(try Self.draw(effect, 20), box: Rect(x: 0, y: 0, width: 0, height: 0)) > 100)
    }

    static func draw(_ effect: TextEffect, _ index: Int) throws -> ImageSurface {
        let surface = try ImageSurface(width: TextLayoutTests.canvas.width, height: TextLayoutTests.canvas.height)
        let context = try DrawingContext(surface: surface)
        try effect.render(in: context, at: frame(index))
        surface.flush()
        return surface
    }

    @Test("new banners push older ones up; at most stack are on screen, the oldest leaving first")
    func stacking() throws {
        let effect = try Self.effect(
            (0..<5).map { Self.event(0.2 + 0.5 * Double($0), "user\($0)") }, banner: .object(["stack": 3, "gap": 6]))
        // At 2.6 s banners 2, 3, 4 are on screen (0 and 1 were sent out by 3 and 4), newest at the bottom.
        let items = effect.trace(at: Self.frame(78)) ?? []
        #expect(items.filter(\.visible).map(\.id) == [2, 3, 4], "\(items)")
        let ys = items.map(\.position.y)
        #expect(ys == ys.sorted(), "older banners are higher: \(ys)")
        let step = ys[2] - ys[1]
        #expect(step > 14 && abs((ys[1] - ys[0]) - step) < 0.001, "banner pitch \(ys)")
        // While banner 4 enters, banner 3 moves up.
        let before = effect.trace(at: Self.frame(67))?.first { $0.id == 3 }?.position.y ?? 0
        let after = effect.trace(at: Self.frame(72))?.first { $0.id == 3 }?.position.y ?? 0
        #expect(after < before)
    }

    @Test("generated logs: banners never overlap (at least gap apart) and the newest is drawn over the others")
    func neverOverlap() throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["RENDERFARM_BANNER_SEED"] ?? "") ?? 0x6261_6E6E
        for run in 0..<10 {
            var random = SeededRandom(seed: seed &+ UInt64(run))
            func unit() -> Double { Double(random.uniform(1_000_001)) / 1_000_000 }
            // Bursts and pauses: events 0.02 to 1.2 s apart, names short and long.
            var time = 0.1
            let events = (0..<Int(3 + random.uniform(10))).map { index -> JSONValue in
                time += unit() < 0.5 ? 0.02 + 0.2 * unit() : 0.2 + unit()
                return Self.event(time, String(repeating: "W", count: 1 + Int(random.uniform(12))) + "\(index)")
            }
            let gap = 12 * unit()
            let enter: JSONValue =
                random.uniform(2) == 0
                ? .object([
                    "duration": .number(0.1 + 0.6 * unit()),
                    "timing": .string(["easeOut", "linear", "easeInEaseOut"][Int(random.uniform(3))]),
                ])
                : .object([
                    "spring": .object(["damping": .number(0.3 + 0.7 * unit())]), "duration": .number(0.3 + unit()),
                ])
            let banner: JSONValue = .object([
                "stack": .number(Double(1 + random.uniform(4))), "gap": .number(gap), "in": enter,
                "hold": .number(0.3 + 2 * unit()),
            ])
            let effect = try Self.effect(events, banner: banner)
            let label = "RENDERFARM_BANNER_SEED=\(seed &+ UInt64(run))"
            for index in 0..<Int((time + 5) * Self.fps) {
                let shown = (effect.trace(at: Self.frame(index)) ?? []).filter(\.visible)
                #expect(shown.map(\.id) == shown.map(\.id).sorted(), "\(label) frame \(index): drawn oldest first")
                let boxes = shown.map { item -> (top: Double, bottom: Double) in
                    let box = item.fields["box"]?.arrayValue?.compactMap(\.doubleValue) ?? []
                    return box.count == 4 ? (box[1], box[1] + box[3]) : (0, .infinity)
                }
                for (older, newer) in zip(boxes, boxes.dropFirst()) {
                    #expect(older.bottom + gap <= newer.top + 1e-6, "\(label) frame \(index): \(boxes) overlap")
                }
            }
        }
    }

    @Test("a counter counts up from 1 (never ×0) and reaches its value at its end time; count.from sets the start")
    func counter() throws {
        func texts(_ count: JSONValue, _ events: [JSONValue] = [Self.event(1, "aiko", 99)]) throws -> (Int) -> String {
            let effect = try Self.effect(events, banner: .object(["count": count]))
            return { (effect.trace(at: Self.frame($0))?.first?.fields["text"]?.stringValue) ?? "" }
        }
        // 1 + 98 × elapsed: arrival at frame 30, the count's end at frame 60.
        let text = try texts(.object(["duration": 1, "timing": "linear"]))
        #expect(text(30) == "aiko sent Rose 🌹 ×1")
        #expect(text(31) == "aiko sent Rose 🌹 ×4")
        #expect(text(45) == "aiko sent Rose 🌹 ×50")
        #expect(text(59) == "aiko sent Rose 🌹 ×95")
        #expect(text(60) == "aiko sent Rose 🌹 ×99")
        #expect(text(80) == "aiko sent Rose 🌹 ×99")
        #expect(!(30...100).contains { text($0).hasSuffix("×0") })
        // From 0, as before `from`: 99 × elapsed.
        let fromZero = try texts(.object(["duration": 1, "timing": "linear", "from": 0]))
        #expect(fromZero(30) == "aiko sent Rose 🌹 ×0" && fromZero(31) == "aiko sent Rose 🌹 ×3")
        // A count at or below the start is shown as it is, from the arrival.
        let single = try texts(.object(["duration": 1, "from": 5]), [Self.event(1, "aiko", 2)])
        #expect(single(30) == "aiko sent Rose 🌹 ×2" && single(50) == "aiko sent Rose 🌹 ×2")
        #expect(throws: EffectError.self) { try texts(.object(["duration": 1, "from": -1])) }
    }

    @Test("banners' layouts are kept by the text's bytes: the same text shares one, canonically equal texts do not")
    func layoutsByBytes() throws {
        // "Zoë" precomposed (U+00EB) and decomposed (e + U+0308): equal as Swift strings, different bytes to Pango.
        let (composed, decomposed) = ("Zo\u{EB}", "Zoe\u{308}")
        #expect(composed == decomposed && !composed.utf8.elementsEqual(decomposed.utf8))
        let effect = try Self.effect([Self.event(1, composed), Self.event(1.5, decomposed), Self.event(2, composed)])
        guard case .banners(let schedule, let cache) = effect.content else {
            Issue.record("a text with events makes banners")
            return
        }
        let texts = schedule.finalTexts()
        let layouts = try PangoWorld.shared.withLock { (_) throws(EffectError) -> [TextLayout] in
            var layouts: [TextLayout] = []
            for text in texts { layouts.append(try cache.layout(text)) }
            return layouts
        }
        #expect(layouts[0] === layouts[2], "the same text twice: one layout")
        #expect(layouts[0] !== layouts[1], "NFC and NFD of one name: a layout each")
        // Each banner's text at every frame is its event's (a count of 1 does not count up).
        for index in 0..<150 {
            for trace in effect.trace(at: Self.frame(index)) ?? [] {
                let text = trace.fields["text"]?.stringValue ?? ""
                #expect(text.utf8.elementsEqual(texts[trace.id].utf8), "frame \(index), banner \(trace.id)")
            }
        }
    }

    @Test("frames with every banner at rest share a key; a moving or counting banner changes it")
    func frameKeys() throws {
        let effect = try Self.effect([Self.event(0.2, "aiko"), Self.event(2, "sora")])
        let keys = (0..<120).map { effect.frameKey(at: Self.frame($0)) }
        // 0.2 + 0.35 s: banner 0 is at rest from frame 17 until banner 1 arrives at frame 60.
        #expect(Set(keys[17..<60]).count == 1)
        #expect(keys[10] != keys[17])
        #expect(Set(keys).count < 60)
        #expect(keys[0] == keys[5], "nothing on screen")
    }

    @Test("the template's fields are checked: an unknown field, and an event without a field it names")
    func templateFields() throws {
        #expect(throws: EffectError.self) { try Self.effect([Self.event(1, "a")], text: "{{name}} sent") }
        do {
            _ = try Self.effect([Self.event(1, "a"), .object(["time": 2, "gift": "Rose"])])
            Issue.record("an event without user was accepted")
        } catch let error as EffectError {
            #expect(error.description.contains("events[1].user"), "\(error)")
            #expect(error.description.contains("{{user}}"), "\(error)")
        }
        #expect(throws: EffectError.self) {
            try Self.effect([Self.event(1, "a")], banner: .object(["in": .object(["timing": "bouncy"])]))
        }
        // A template without {{user}} needs no user.
        _ = try Self.effect([.object(["time": 1, "gift": "Rose"])], text: "someone sent {{gift}}")
    }

    /// The pixels of a banner at `origin` under `transform` (scale, rotation, translation) in an opacity group
    /// of `alpha`, over a canvas of `backdrop`: drawn as `TextEffect` draws it (`clipped`), or in a canvas-sized
    /// group, as it was drawn before the clip.
    static func banner(
        _ effect: TextEffect, _ layout: TextLayout, origin: Point, transform: (Double, Double, Point),
        alpha: Double, backdrop: Color, clipped: Bool
    ) throws -> [UInt8] {
        let surface = try ImageSurface(width: TextLayoutTests.canvas.width, height: TextLayoutTests.canvas.height)
        let context = try DrawingContext(surface: surface)
        context.setSource(backdrop)
        context.paint()
        context.translate(transform.2.x, transform.2.y)
        context.scale(transform.0, transform.0)
        context.rotate(transform.1)
        context.translate(origin.x, origin.y)
        if clipped {
            effect.decoration.draw(layout, poses: nil, clip: effect.clip, alpha: alpha, on: context)
        } else {
            context.pushGroup()
            effect.decoration.draw(layout, clip: effect.clip, on: context)
            context.popGroup(alpha: alpha)
        }
        surface.flush()
        return (0..<surface.height).flatMap { y in
            Array(UnsafeBufferPointer(start: surface.bytes + y * surface.stride, count: surface.width * 4))
        }
    }

    @Test(
        "a banner's opacity group clipped to the decoration's extent draws the bytes of a canvas-sized group",
        arguments: 1...3)
    func clippedGroup(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        func unit() -> Double { random.unit() }
        func color() -> JSONValue {
            .string(String(format: "#%06X%02X", Int(unit() * 0xFF_FFFF), Int(64 + unit() * 191)))
        }
        let texts = TextLayoutTests.generated(40 * Int(seed))
        for (index, text) in texts.suffix(40).enumerated() {
            // Every decoration at random: outline, shadow (blurred or not), background, gradient, shrink's clip.
            var params: [String: JSONValue] = [
                "text": .string(text), "size": .number(8 + unit() * 40), "color": color(),
                "rect": TextLayoutTests.rect(10, 10, 60 + unit() * 160, 20 + unit() * 120),
                "wrap": .bool(unit() < 0.5), "fit": unit() < 0.3 ? "shrink" : "none",
            ]
            if unit() < 0.5 { params["stroke"] = .object(["color": color(), "width": .number(unit() * 8)]) }
            if unit() < 0.5 {
                params["shadow"] = .object([
                    "color": color(), "offset": .array([.number(unit() * 12 - 6), .number(unit() * 12 - 6)]),
                    "blur": .number(unit() < 0.5 ? 0 : unit() * 10),
                ])
            }
            if unit() < 0.5 {
                params["background"] = .object([
                    "color": color(), "padding": .number(unit() * 16), "radius": .number(unit() * 20),
                ])
            }
            if unit() < 0.3 { params["gradient"] = .object(["from": color(), "to": color(), "angle": 30]) }
            let effect = try TextLayoutTests.effect(params)
            let layout = try #require(effect.singleLayout)
            let transform = (0.5 + unit() * 2.5, unit() < 0.5 ? 0 : unit() * 0.6 - 0.3, Point(unit() * 40, unit() * 40))
            let origin = Point(unit() * 60 - 30, unit() * 60 - 30)
            let (alpha, backdrop) = (unit(), Color(red: unit(), green: unit(), blue: unit(), alpha: unit()))
            let canvas = try Self.banner(
                effect, layout, origin: origin, transform: transform, alpha: alpha, backdrop: backdrop,
                clipped: false)
            let clipped = try Self.banner(
                effect, layout, origin: origin, transform: transform, alpha: alpha, backdrop: backdrop,
                clipped: true)
            // Exact, but for a gradient fill, which pixman steps from the group's own first pixel: within one level.
            let tolerance = params["gradient"] == nil ? 0 : 1
            // memcmp first, then the bytes one by one only when they differ: a byte loop costs seconds in a debug build.
            let differing = canvas.withUnsafeBufferPointer { a in
                clipped.withUnsafeBufferPointer { b -> [Int] in
                    guard let x = a.baseAddress, let y = b.baseAddress, a.count == b.count else { return [-1] }
                    guard memcmp(x, y, a.count) != 0 else { return [] }
                    return a.indices.filter { abs(Int(a[$0]) - Int(b[$0])) > tolerance }
                }
            }
            let width = TextLayoutTests.canvas.width
            #expect(
                differing.isEmpty,
                """
                seed \(seed), case \(index): \(differing.count) bytes differ by more than \(tolerance), the first at \
                pixel (\((differing.first ?? 0) / 4 % width), \((differing.first ?? 0) / 4 / width)): \(text) \
                \(params) transform \(transform), origin \(origin)
                """)
        }
    }
}
