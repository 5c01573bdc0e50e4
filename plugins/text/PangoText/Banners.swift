import EffectKit

/// One movement of a banner (entering or leaving): a duration with a timing function, or a spring.
struct BannerMotion: Sendable {
    enum Curve: Sendable {
        case timing(TimingFunction)
        case spring(SpringCurve)
    }

    var duration: Double
    var curve: Curve

    /// Progress 0 → 1 after `elapsed` seconds (a spring may overshoot 1 on the way).
    func progress(_ elapsed: Double) -> Double {
        if elapsed <= 0 { return 0 }
        if elapsed >= duration { return 1 }
        switch curve {
        case .timing(let function): return function(elapsed / duration)
        case .spring(let spring): return spring.value(at: elapsed)
        }
    }

    /// `{"duration": s, "timing": "easeOut"}` or `{"spring": {"damping": 0.6, "velocity": 0.8}, "duration": s}`
    /// (the spring's duration is its own settling time, as in UIKit's spring animations); `also` names keys the
    /// caller reads besides.
    static func parse(
        _ value: JSONValue?, parameter: String, default fallback: BannerMotion, also: [String] = []
    ) throws(EffectError) -> BannerMotion {
        guard let value else { return fallback }
        let object = try NestedObject(value, parameter: parameter, keys: ["duration", "timing", "spring"] + also)
        let duration = try object.number("duration", in: 0...60) ?? fallback.duration
        if let spring = object["spring"] {
            guard object["timing"] == nil else {
                throw EffectError(parameter: parameter, "give timing or spring, not both")
            }
            let settings = try NestedObject(spring, parameter: parameter + ".spring", keys: ["damping", "velocity"])
            let curve = SpringCurve(
                duration: duration, damping: try settings.number("damping", in: 0.01...1) ?? 0.6,
                velocity: try settings.number("velocity", in: -100...100) ?? 0)
            return BannerMotion(duration: curve.duration, curve: .spring(curve))
        }
        guard let name = try object.string("timing") else {
            return BannerMotion(duration: duration, curve: fallback.curve)
        }
        guard let function = TimingFunction(name: name) else {
            throw EffectError(
                parameter: parameter + ".timing",
                "unknown timing function \"\(name)\"; one of \(TimingFunction.names.joined(separator: ", "))")
        }
        return BannerMotion(duration: duration, curve: .timing(function))
    }
}

/// How banners move and stack (`banner`): every setting has a default.
struct BannerSettings: Sendable {
    var enter = BannerMotion(duration: 0.35, curve: .timing(.easeOut))
    var hold = 2.5
    var leave = BannerMotion(duration: 0.3, curve: .timing(.easeIn))
    /// At most this many banners on screen: the arrival of one more sends the oldest out.
    var stack = 3
    var gap = 8.0
    /// How long `{{count}}` counts up from `countFrom` to the event's count, from the banner's arrival (0: no
    /// counting).
    var count = BannerMotion(duration: 0, curve: .timing(.easeOut))
    /// Where a count-up starts (`count.from`): 1, so no banner ever says "×0" (no streaming app does); a count
    /// below it is shown as it is.
    var countFrom = 1

    static let keys = ["in", "hold", "out", "stack", "gap", "count"]

    init() {}

    init(_ value: JSONValue?) throws(EffectError) {
        guard let value else { return }
        let object = try NestedObject(value, parameter: "banner", keys: Self.keys)
        enter = try BannerMotion.parse(object["in"], parameter: "banner.in", default: enter)
        hold = try object.number("hold", in: 0...3600) ?? hold
        leave = try BannerMotion.parse(object["out"], parameter: "banner.out", default: leave)
        stack = try object.integer("stack", in: 1...100) ?? stack
        gap = try object.number("gap", in: 0...1000) ?? gap
        count = try BannerMotion.parse(object["count"], parameter: "banner.count", default: count, also: ["from"])
        if let counting = object["count"] {
            countFrom =
                try NestedObject(counting, parameter: "banner.count", keys: ["duration", "timing", "spring", "from"])
                .integer("from", in: 0...1_000_000_000) ?? countFrom
        }
    }
}

/// A text template with `{{field}}` placeholders filled from an event.
struct BannerTemplate: Sendable {
    /// The fields an event may fill.
    static let fields = [
        EventField("user", .string), EventField("gift", .string), EventField("count", .integer),
        EventField("locale", .string), EventField("*", .string),
    ]

    enum Piece: Sendable, Equatable {
        case literal(String)
        case field(String)
    }

    let pieces: [Piece]
    var names: [String] { pieces.compactMap { if case .field(let name) = $0 { name } else { nil } } }

    init(_ text: String) throws(EffectError) {
        var pieces: [Piece] = []
        var rest = Substring(text)
        while let open = rest.range(of: "{{") {
            guard let close = rest[open.upperBound...].range(of: "}}") else { break }
            pieces.append(.literal(String(rest[..<open.lowerBound])))
            let name = rest[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespaces)
            // Any column of the log may be named: `count` is the one that counts up, the others are text.
            guard !name.isEmpty,
                name.unicodeScalars.allSatisfy({
                    $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "-"
                })
            else {
                throw EffectError(
                    parameter: "text",
                    "{{\(name)}} is no column name: a placeholder names a column of the events, "
                        + "in letters, digits, _ and -")
            }
            pieces.append(.field(name))
            rest = rest[close.upperBound...]
        }
        pieces.append(.literal(String(rest)))
        self.pieces = pieces
    }

    /// Where `{{count}}` starts in the text Pango lays out for `values` (UTF-8 bytes; with `markup`, the tags and
    /// entities of the literal text before it left out); nil when the template names no count.
    func countStart(_ values: [String: String], markup: Bool) -> Int? {
        guard let index = pieces.firstIndex(of: .field("count")) else { return nil }
        return pieces[..<index].map { piece in
            switch piece {
            case .literal(let text): markup ? PangoMarkup.plain(text) : text
            case .field(let name): values[name] ?? ""
            }
        }.joined().utf8.count
    }

    /// The text for `values` (the event's fields as text); markup-escaped when the template is markup.
    func fill(_ values: [String: String], markup: Bool) -> String {
        pieces.map { piece in
            switch piece {
            case .literal(let text): text
            case .field(let name): markup ? PangoMarkup.escaped(values[name] ?? "") : values[name] ?? ""
            }
        }.joined()
    }
}

/// The templates of a layer's banners: `text`, and with `templates` one per value of an event field (a
/// locale's word order, a gift's own sentence), `text` for the other values.
struct BannerTemplates: Sendable {
    /// The field whose value picks the template.
    enum Key: String, CaseIterable, Sendable {
        case gift, locale, user
    }

    let fallback: BannerTemplate
    let key: Key?
    let byValue: [String: BannerTemplate]

    /// `templates`: `{"by": "locale", "texts": {"ja": "…", "ar": "…"}}`, each text a template like `text`.
    init(text: String, templates value: JSONValue?) throws(EffectError) {
        fallback = try BannerTemplate(text)
        guard let value else {
            (key, byValue) = (nil, [:])
            return
        }
        let object = try NestedObject(value, parameter: "templates", keys: ["by", "texts"])
        guard let key: Key = try object.choice("by") else {
            throw EffectError(
                parameter: "templates.by", "missing: the event field that picks a template (gift, locale or user)")
        }
        guard let texts = object["texts"]?.objectValue, texts.count <= 10_000 else {
            throw EffectError(
                parameter: "templates.texts",
                "expected an object of at most 10000 {\"value\": \"template\"}"
                    + EffectParameters.got(object["texts"]))
        }
        var byValue: [String: BannerTemplate] = [:]
        for (name, text) in texts {
            guard let text = text.stringValue else {
                throw EffectError(
                    parameter: "templates.texts.\(name)", "expected a template string" + EffectParameters.got(text))
            }
            do {
                byValue[name] = try BannerTemplate(text)
            } catch {
                throw EffectError(parameter: "templates.texts.\(name)", error.message)
            }
        }
        self.key = key
        self.byValue = byValue
    }

    /// The template for an event whose `key` field is `value`.
    func template(for value: String?) -> BannerTemplate { value.flatMap { byValue[$0] } ?? fallback }

    /// Every field some template names.
    var names: Set<String> { Set(([fallback] + byValue.values).flatMap(\.names)) }
}

/// One event's banner: when it arrives and leaves, its template and its fields.
struct Banner: Sendable {
    var id: Int
    var template: BannerTemplate
    var arrival: Double
    /// When it starts leaving: after its hold, or earlier when `stack` newer banners have arrived.
    var leaving: Double
    var values: [String: String]
    var count: Int?
    /// Its text once its count has counted up, and while it does not count: most frames show this one.
    var text: String
    /// Where `{{count}}` starts in the text Pango lays out (UTF-8 bytes; the template's markup tags and entities
    /// left out); nil when the template names no count.
    var countStart: Int?
}

/// Where each banner is at a time: its horizontal slide, its offset up the stack and its opacity.
struct BannerPose: Sendable, Equatable {
    var id: Int
    var text: String
    var slide: Double
    var lift: Double
    var alpha: Double
}

/// The banners of an `events` log and how they move (EffectKit article TextEffect, "Banners").
struct BannerSchedule: Sendable {
    let banners: [Banner]
    let settings: BannerSettings
    let markup: Bool

    /// Banners from the host's checked, time-sorted events; every field an event's template names must be present.
    init(events: [JSONValue], templates: BannerTemplates, markup: Bool, settings: BannerSettings) throws(EffectError) {
        guard events.count <= 100_000 else {
            throw EffectError(parameter: "events", "\(events.count) events; at most 100000 banners")
        }
        var banners: [Banner] = []
        var problems = EffectProblems()
        for (index, event) in events.enumerated() {
            let name = "events[\(index)]"
            guard
                // The host checked every column (the text effect takes any column: its templates may name any).
                let object = NestedObject(
                    event, parameter: name, keys: ["time"] + (event.objectValue.map { Array($0.keys) } ?? []),
                    problems: &problems)
            else { continue }
            var values: [String: String] = [:]
            var count: Int?
            let template = templates.template(for: templates.key.flatMap { object[$0.rawValue]?.stringValue })
            for field in template.names where values[field] == nil {
                let value = problems.check { () throws(EffectError) -> String? in
                    if field == "count" {
                        count = try object.integer("count", in: 0...1_000_000_000)
                        return count.map(String.init)
                    }
                    return try object.string(field)
                }
                guard let value, let value else {
                    let time = object["time"]?.doubleValue.map { " (time \($0) s)" } ?? ""
                    let column = Suggestion.closest(to: field, in: object.object.keys.filter { $0 != "time" })
                    problems.add(
                        EffectError(
                            parameter: "\(name).\(field)",
                            "missing\(time): the text's template names {{\(field)}}"
                                + (column.map { " (did you mean the column \"\($0)\"?)" } ?? "")))
                    continue
                }
                values[field] = value
            }
            let arrival = object["time"]?.doubleValue ?? 0
            banners.append(
                Banner(
                    id: index, template: template, arrival: arrival,
                    leaving: arrival + settings.enter.duration + settings.hold,
                    values: values, count: count, text: template.fill(values, markup: markup),
                    countStart: template.countStart(values, markup: markup)))
        }
        try problems.throwIfAny()
        // The arrival of the `stack`-th newer banner sends a banner out, if its hold has not already.
        for index in banners.indices where index + settings.stack < banners.count {
            banners[index].leaving = min(banners[index].leaving, banners[index + settings.stack].arrival)
        }
        self.banners = banners
        self.markup = markup
        self.settings = settings
    }

    /// The text of `banner` at `time`: its count counts up over `banner.count` from its arrival, from
    /// `count.from` (1).
    func text(of banner: Banner, at time: Double) -> String {
        guard let shown = shownCount(of: banner, at: time), shown != banner.count else { return banner.text }
        var values = banner.values
        values["count"] = String(shown)
        return banner.template.fill(values, markup: markup)
    }

    /// The count `banner` shows at `time` while it counts up; nil when it does not count.
    private func shownCount(of banner: Banner, at time: Double) -> Int? {
        guard let count = banner.count, settings.count.duration > 0, count > settings.countFrom else { return nil }
        let progress = min(1, max(0, settings.count.progress(time - banner.arrival)))
        let from = Double(settings.countFrom)
        return Int((from + (Double(count) - from) * progress).rounded(.down))
    }

    /// Where `{{count}}` is in the text Pango lays out for `banner` at `time` (UTF-8 bytes, markup tags and
    /// entities of the template left out) and how long ago, within `window` seconds, its count last changed
    /// (nil: not in that window, or it does not count): what a `countPop` animator pops.
    func countChange(of banner: Banner, at time: Double, window: Double) -> TextAnimation.CountChange? {
        guard let start = banner.countStart, let shown = shownCount(of: banner, at: time) else { return nil }
        var change = TextAnimation.CountChange(bytes: start..<(start + String(shown).utf8.count))
        // Back from `time` in steps of 1/240 s to the last moment the count showed another number.
        let step = 1.0 / 240
        var back = step
        while back <= window + step, time - back >= banner.arrival {
            if shownCount(of: banner, at: time - back) != shown {
                change.since = back - step / 2
                break
            }
            back += step
        }
        return change
    }

    /// Every text a banner shows, for laying them out in advance (counts in between are laid out on demand).
    func finalTexts() -> [String] { banners.map(\.text) }

    /// The banners on screen at `time`, oldest first (so the newest is drawn over the others), with their
    /// poses; `height(id)` is a banner's height.
    func poses(at time: Double, height: (Banner, String) -> Double) -> [BannerPose] {
        // Banners that arrived by `time`: binary search on the sorted arrivals.
        var (low, high) = (0, banners.count)
        while low < high {
            let middle = (low + high) / 2
            if banners[middle].arrival <= time { low = middle + 1 } else { high = middle }
        }
        let arrived = low
        // The oldest banner that may still show: leaving takes at most `leave.duration` and a banner leaves
        // at the latest when `stack` newer ones have arrived.
        let first = max(0, arrived - settings.stack - 1)
        var poses: [BannerPose] = []
        // How far the banners newer than this one have pushed the stack up.
        var lift = 0.0
        // The top of the newer banner shown, plus the gap: no older banner comes lower.
        var floor = -Double.infinity
        for index in stride(from: arrived - 1, through: first, by: -1) {
            let banner = banners[index]
            let gone = banner.leaving + settings.leave.duration
            let text = text(of: banner, at: time)
            let slot = height(banner, text) + settings.gap
            let entering = settings.enter.progress(time - banner.arrival)
            if time < gone {
                let leaving = settings.leave.progress(time - banner.leaving)
                // An entering banner rises into its slot from the one below, with the stack it pushes up: it
                // never covers an older banner, and one that arrives while the banner before is still entering
                // pushes that one ahead of it.
                let place = max(lift - (1 - entering) * slot, floor)
                poses.append(
                    BannerPose(
                        id: banner.id, text: text, slide: (1 - entering) - leaving * 0.25, lift: place,
                        alpha: min(1, max(0, entering)) * (1 - leaving)))
                floor = place + slot
            }
            // Older banners are pushed up by this one as it enters, and move back down as it leaves.
            let present = time < gone ? 1 - settings.leave.progress(time - banner.leaving) : 0
            lift += slot * entering * present
        }
        return poses.reversed()
    }
}
