import Foundation
import Testing

/// Banner templates per event (EffectKit article TextEffect, "Banners"): on generated event logs, every banner's
/// text is the template its event's `locale` or `gift` picks, filled with the event's fields, or `text` for
/// values without one; bad templates are refused where they are.
@Suite("text banners: a template per locale or gift")
struct BannerTemplateTests {
    static let templates: [String: [String: String]] = [
        "locale": [
            "ja": "{{user}}さんが{{gift}}を贈りました", "ar": "أرسل {{user}} {{gift}}", "es": "¡{{user}} envió {{gift}}!",
        ],
        "gift": ["Rose": "🌹 {{user}} 🌹", "Crown": "{{user}} is royalty ({{locale}})"],
    ]

    @Test("5 generated logs: each banner shows the template its event picks, filled with its fields")
    func generated() throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["RENDERFARM_TEMPLATE_SEED"] ?? "") ?? 0x746D_706C
        for run in 0..<5 {
            var random = FuzzRandom(seed: seed &+ UInt64(run))
            let label = "RENDERFARM_TEMPLATE_SEED=\(seed &+ UInt64(run))"
            let by = random.pick(["locale", "gift"])
            let texts = try #require(Self.templates[by])
            var events: [(time: Double, user: String, gift: String, locale: String)] = []
            for index in 0..<8 {
                events.append(
                    (
                        0.1 + Double(index) * 0.5, random.pick(["aiko", "Omar", "Lena", "Mateo"]) + String(index),
                        random.pick(["Rose", "Crown", "Star"]), random.pick(["ja", "ar", "es", "de"])
                    ))
            }
            let log = events.map {
                #"{"time": \#($0.time), "user": "\#($0.user)", "gift": "\#($0.gift)", "locale": "\#($0.locale)"}"#
            }.joined(separator: ", ")
            let templates = texts.map { #""\#($0.key)": "\#($0.value)""# }.joined(separator: ", ")
            let folder = try TemporaryFolder()
            let file = try folder.write(
                """
                { "version": 1, "name": "templates", "fps": 10, "duration": 4.5, "canvas": {"width": 400, "height": 400, "scale": 1},
                  "layers": [ { "effect": "text", "params": { "text": "{{user}} sent {{gift}}", "size": 16,
                    "rect": {"x": 10, "y": 10, "width": 380, "height": 380}, "banner": {"hold": 0.3, "stack": 1},
                    "templates": {"by": "\(by)", "texts": {\(templates)}}, "events": [\(log)] } } ] }
                """, to: "job.json")
            var seen = Set<Int>()
            for line in try Trace.run(file) {
                for item in line.items() where item.visible {
                    let event = events[item.id]
                    let key = by == "locale" ? event.locale : event.gift
                    let template = texts[key] ?? "{{user}} sent {{gift}}"
                    let expected = template.replacingOccurrences(of: "{{user}}", with: event.user)
                        .replacingOccurrences(of: "{{gift}}", with: event.gift)
                        .replacingOccurrences(of: "{{locale}}", with: event.locale)
                    #expect(item.object["text"] as? String == expected, "\(label): banner \(item.id)")
                    seen.insert(item.id)
                }
            }
            #expect(seen.count == 8, "\(label): \(seen.sorted()) shown")
        }
    }

    @Test("a template names any column of the log: CSV text as written, JSONL numbers as JSON writes them")
    func anyColumn() throws {
        let folder = try TemporaryFolder()
        try folder.write("time,user,city,level,gift\n0.1,aiko,Ōsaka,007,Rose\n0.6,Lena,Köln,12,Star\n", to: "log.csv")
        try folder.write(
            #"{"time": 0.1, "user": "aiko", "city": "Ōsaka", "level": 7.5, "vip": true}"# + "\n", to: "log.jsonl")
        for (log, expected) in [
            ("log.csv", ["aiko (Ōsaka) lv 007", "Lena (Köln) lv 12"]), ("log.jsonl", ["aiko (Ōsaka) lv 7.5"]),
        ] {
            let file = try folder.write(
                """
                { "version": 1, "name": "columns", "fps": 10, "duration": 1.5, "canvas": {"width": 400, "height": 400},
                  "layers": [ { "effect": "text", "params": { "text": "{{user}} ({{city}}) lv {{level}}", "size": 16,
                    "rect": {"x": 10, "y": 10, "width": 380, "height": 380}, "events": "\(log)" } } ] }
                """, to: "job.json")
            let texts = Set(try Trace.run(file).flatMap { $0.items().compactMap { $0.object["text"] as? String } })
            #expect(texts == Set(expected), "\(log): \(texts)")
        }
    }

    @Test("bad templates are refused where they are")
    func refusals() throws {
        let folder = try TemporaryFolder()
        let events = #""events": [{"time": 0, "user": "a", "gift": "Rose"}]"#
        for (params, message) in [
            (#""templates": {"by": "lang", "texts": {}}, "# + events, #"templates.by: unknown value "lang""#),
            (
                #""templates": {"by": "gift", "texts": {"Rose": "{{send er}}"}}, "# + events,
                "templates.texts.Rose: {{send er}} is no column name"
            ),
            (
                #""templates": {"by": "gift", "texts": {"Rose": "{{user}} from {{city}}"}}, "# + events,
                #"events[0].city: missing (time 0.0 s): the text's template names {{city}}"#
            ),
            (
                #""templates": {"by": "gift", "texts": {"Rose": 3}}, "# + events,
                "templates.texts.Rose: expected a template string"
            ),
            (
                #""templates": {"by": "gift", "texts": {}}"#,
                "templates pick a banner's text per event: they need events"
            ),
            (#""templates": {"texts": {}}, "# + events, "templates.by: missing"),
        ] {
            try folder.expectRefused(
                """
                { "version": 1, "name": "templates", "fps": 10, "duration": 1, "canvas": {"width": 200, "height": 200},
                  "layers": [ { "effect": "text", "params": { "text": "{{user}} sent {{gift}}", \(params) } } ] }
                """, saying: message, label: params)
        }
    }
}
