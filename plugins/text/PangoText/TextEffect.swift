import CCairo
import CPango
import EffectKit

/// Text set by Pango and HarfBuzz in a box: any script, right-to-left lines, colour emoji, markup, shrink to
/// fit, outline, shadow and a pill behind it, with fonts that make frames reproducible (``FontLibrary``).
///
/// The layout is built once in `create` and drawn at every frame; the frame key of static text is the same for
/// every frame (a digest of the parameters), so the host draws it once. Banners key the parameters but the
/// events, and the text, place and opacity of each banner on screen.
package struct TextEffect: TracingEffect {
    package static let descriptor = EffectDescriptor(
        id: "text",
        identifier: "org.renderfarm.text",
        version: "1.0.0",
        summary: "Text shaped by Pango and HarfBuzz in a box: any script, RTL, colour emoji, markup, shrink to fit",
        threadSafety: .full,
        keysCoverParameters: true,
        parameters: [
            ParameterSpec("text", .string, default: nil, doc: "the text to draw (\\n starts a new line); required"),
            ParameterSpec(
                "markup", .bool, default: false,
                doc: "read `text` as Pango markup: <b>, <i>, <span foreground=\"#F00\" size=\"x-large\">…</span>"),
            ParameterSpec(
                "font", .string, default: .string(FontLibrary.defaultFamily),
                doc: "a font file (.ttf, .otf, .ttc) relative to the job file's folder, or a family of the fonts "
                    + "RenderFarm ships with (Noto Sans, Noto Serif, Noto Sans Arabic, Noto Sans CJK JP, …); "
                    + "characters the font lacks come from Noto"),
            ParameterSpec(
                "language", .string, default: "en",
                doc: "BCP 47 language of the text: chooses CJK glyph forms (ja, ko, zh-Hans, zh-Hant) and line breaks"),
            ParameterSpec("size", .number, default: 48, range: 1...2000, doc: "font size in points"),
            ParameterSpec(
                "minSize", .number, default: 8, range: 1...2000,
                doc:
                    "with fit shrink: the smallest size tried (at most size); text that overflows even then is ellipsized and clipped"
            ),
            ParameterSpec(
                "weight", .integer, default: 400, range: 100...1000,
                doc: "font weight: 400 regular, 700 bold (100 thin … 900 black)"),
            ParameterSpec("style", .choice(["normal", "italic", "oblique"]), default: "normal", doc: "font style"),
            ParameterSpec("color", .color, default: "#FFFFFF", doc: "fill colour of the glyphs (emoji keep theirs)"),
            ParameterSpec(
                "gradient", .json, default: nil,
                doc:
                    "a linear gradient fill in place of color: {\"from\": \"#RRGGBB[AA]\", \"to\": …, \"angle\": degrees} "
                    + "across the lines' box (angle 0: left to right, 90: top to bottom; emoji keep their colours)"),
            ParameterSpec(
                "rect", .rect, default: nil,
                doc: "the box the text is set in, {\"x\", \"y\", \"width\", \"height\"} in points (default: the canvas)"
            ),
            ParameterSpec(
                "align", .choice(["start", "center", "end"]), default: "start",
                doc:
                    "horizontal alignment; start is the left of a left-to-right line and the right of a right-to-left one"
            ),
            ParameterSpec(
                "valign", .choice(["top", "middle", "bottom"]), default: "top", doc: "vertical alignment in the box"),
            ParameterSpec(
                "wrap", .bool, default: true,
                doc: "break lines at the box's width (between words, inside a word only when it is wider than the box)"),
            ParameterSpec(
                "maxLines", .integer, default: 0, range: 0...10_000,
                doc:
                    "at most this many lines, the last ending in … (0: no limit); with wrap false each line is cut to the box"
            ),
            ParameterSpec(
                "fit", .choice(["none", "shrink"]), default: "none",
                doc:
                    "shrink: the largest size from size down to minSize whose ink and lines fit the box; never overflows"
            ),
            ParameterSpec(
                "lineHeight", .number, default: 0, range: 0...10,
                doc: "distance between baselines as a multiple of the font size (0: the font's own line height)"),
            ParameterSpec(
                "letterSpacing", .number, default: 0, range: -100...1000, doc: "extra space between letters, in points"),
            ParameterSpec(
                "stroke", .json, default: nil,
                doc: "an outline under the fill: {\"color\": \"#RRGGBB[AA]\", \"width\": points} (width 0…100)"),
            ParameterSpec(
                "shadow", .json, default: nil,
                doc: "a shadow under the text: {\"color\", \"offset\": [x, y], \"blur\": points 0…100} (default "
                    + "#00000080, [2, 2], 0)"),
            ParameterSpec(
                "background", .json, default: nil,
                doc:
                    "a rounded box behind the text's lines: {\"color\", \"padding\": points 0…1000, \"radius\": points "
                    + "0…1000} (default padding 8, radius 0; radius ≥ half the height makes a pill)"),
            ParameterSpec(
                "direction", .choice(["auto", "ltr", "rtl"]), default: "auto",
                doc: "paragraph direction: auto follows each paragraph's first strong character"),
            ParameterSpec(
                "events", .events(BannerTemplate.fields), default: nil, range: 0...86_400,
                doc: "one banner per event, its text the template `text` filled with the event's fields "
                    + "(any column of the log, such as {{user}}, {{gift}}, {{locale}} and {{count}}, which counts up; every "
                    + "column the template names is required); banners stack in "
                    + "`rect` from its bottom up"),
            ParameterSpec(
                "templates", .json, default: nil,
                doc:
                    "banners: a template per value of an event field, {\"by\": \"gift\"|\"locale\"|\"user\", \"texts\": "
                    + "{\"Rose\": \"{{user}} sent a rose\", …}}; events with other values use `text`"),
            ParameterSpec(
                "banner", .json, default: nil,
                doc: "how banners move: {\"in\": {\"duration\": 0.35, \"timing\": \"easeOut\"} or {\"spring\": "
                    + "{\"damping\", \"velocity\"}, \"duration\"}, \"hold\": 2.5, \"out\": {…0.3 s easeIn}, "
                    + "\"stack\": 3, \"gap\": 8, \"count\": {\"duration\": 0, \"from\": 1} (seconds {{count}} counts up, "
                    + "and from what)}"),
            ParameterSpec(
                "animators", .json, default: nil,
                doc:
                    "text animators: a list of {\"preset\": typewriter|wordRise|countPop, \"by\": character|word|line, "
                    + "\"shape\", \"start\", \"end\", \"offset\": [from, to] percent, \"delay\", \"duration\", "
                    + "\"timing\", and what a picked unit gets: \"opacity\", \"position\", \"scale\", \"rotation\", "
                    + "\"tracking\", \"fill\", \"stroke\"} (EffectKit article TextEffect, \"Animators\")"),
            ParameterSpec(
                "path", .json, default: nil,
                doc: "set the lines along a circle: {\"center\": [x, y], \"radius\": points, \"angle\": degrees where "
                    + "each line's middle sits (−90, the top)}"),
        ]
    )

    /// One text, or one banner per event.
    enum Content: Sendable {
        case single(TextLayout)
        case banners(BannerSchedule, LayoutCache)
    }

    let content: Content
    let decoration: TextDecoration
    /// The animators and the path: each cluster's pose at a time.
    let animation: TextAnimation
    /// The area banners stack in.
    let box: Rect
    /// `fit: shrink`: the outline and glyphs are clipped to the box.
    let clip: Bool
    /// The job's font file, if any, and every font file the layout draws with (``Effect/inputFiles``).
    package let inputFiles: [String]
    package let warnings: [EffectError]
    /// Every parameter but the events.
    let parametersKey: FrameKey

    package init(parameters: EffectParameters, context: EffectContext) throws(EffectError) {
        // The events reach the drawing through the banners' texts and places, which banner keys hold.
        parametersKey = parameters.digest(excluding: ["events"])
        guard parameters.contains("text") else { throw EffectError(parameter: "text", "missing: the text to draw") }
        var problems = EffectProblems()
        let text = problems.check { () throws(EffectError) in try parameters.string("text") } ?? ""
        let decoration = problems.check { () throws(EffectError) in try TextDecoration(parameters) }
        let font = try parameters.string("font")
        let language = try parameters.string("language")
        var jobFiles: [String] = []
        if FontLibrary.isFontFile(font) {
            let path = try AssetPath.resolve(font, in: context.jobDirectory, parameter: "font")
            try FontLibrary.checkFile(path, named: font)
            jobFiles = [path]
        }
        var style = TextStyle(
            families: "", language: language, markup: try parameters.bool("markup"),
            size: try parameters.number("size"),
            minSize: min(try parameters.number("minSize"), try parameters.number("size")),
            weight: try parameters.integer("weight"),
            slant: try parameters.choice("style"),
            box: parameters.contains("rect")
                ? try parameters.rect("rect") : Rect(x: 0, y: 0, width: context.width, height: context.height),
            align: try parameters.choice("align"), verticalAlign: try parameters.choice("valign"),
            wrap: try parameters.bool("wrap"), maxLines: try parameters.integer("maxLines"),
            fit: try parameters.choice("fit"), lineHeight: try parameters.number("lineHeight"),
            letterSpacing: try parameters.number("letterSpacing"), direction: try parameters.choice("direction"),
            inset: (decoration?.stroke?.width ?? 0) / 2)
        let animation = problems.check { () throws(EffectError) in
            TextAnimation(
                animators: try TextAnimator.read(parameters["animators"], fontSize: style.size),
                path: try TextPath.read(parameters["path"]))
        }
        try problems.throwIfAny()
        guard let decoration, let animation else {
            throw EffectError("unreachable: decoration and animator problems are reported above")
        }
        self.animation = animation
        style.clusters = !animation.isEmpty
        self.decoration = decoration
        clip = style.fit == .shrink
        box = style.box
        var schedule: BannerSchedule?
        if animation.countPopWindow != nil, !(parameters.contains("events") && text.contains("{{count}}")) {
            // (A template of `templates` without {{count}} simply does not pop.)
            throw EffectError(
                parameter: "animators", "countPop pops {{count}} of banners: it needs events and a text with {{count}}")
        }
        if parameters.contains("templates"), !parameters.contains("events") {
            throw EffectError(parameter: "templates", "templates pick a banner's text per event: they need events")
        }
        if let events = parameters["events"]?.arrayValue {
            schedule = try BannerSchedule(
                events: events, templates: try BannerTemplates(text: text, templates: parameters["templates"]),
                markup: style.markup,
                settings: try BannerSettings(parameters["banner"]))
            // Each banner is set in the area's width, less the background's padding on both sides; its origin is
            // the area's left edge (``render``).
            let padding = decoration.background?.padding ?? 0
            style.box = Rect(x: padding, y: 0, width: max(0, box.width - 2 * padding), height: box.height)
            style.verticalAlign = .top
        }

        let result = try PangoWorld.shared.withLock {
            (world) throws(EffectError) -> (Content, [EffectError], [String]) in
            let fonts = try world.setup(jobFiles: jobFiles)
            let family: String
            if let file = jobFiles.first {
                guard let name = fonts.jobFamilies[file] else {
                    throw EffectError(parameter: "font", "\(font) holds no font fontconfig can read")
                }
                family = name
            } else {
                guard fonts.families.contains(font) else {
                    throw EffectError(parameter: "font", Self.unknownFamily(font, known: fonts.families))
                }
                family = font
            }
            let chain =
                [family] + FontLibrary.fallbackFamilies + [
                    FontLibrary.cjkFamily(language: language), FontLibrary.emojiFamily,
                ]
            style.families = chain.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
                .joined(separator: ",")
            let texts: [String]
            let content: Content
            if let schedule {
                let cache = LayoutCache(fonts: fonts, style: style)
                // Every banner's final text, and the digits a count passes through, are laid out now: the font
                // files they use are the layer's input files.
                texts = schedule.finalTexts() + (schedule.settings.count.duration > 0 ? ["0123456789"] : [])
                for text in texts { _ = try cache.layout(text) }
                content = .banners(schedule, cache)
            } else {
                texts = [text]
                content = .single(try TextLayout(text: text, style: style, fonts: fonts))
            }
            let layouts = try texts.map { (text) throws(EffectError) in try content.layout(text) }
            let missing = layouts.flatMap(\.missingCharacters).reduce(into: [Unicode.Scalar]()) {
                if !$0.contains($1) { $0.append($1) }
            }
            var warnings: [EffectError] = []
            if !missing.isEmpty { warnings.append(Self.missingFontWarning(missing)) }
            let files = layouts.flatMap(\.fontFiles)
            return (content, warnings, files)
        }
        content = result.0
        warnings = result.1
        inputFiles = (jobFiles + result.2).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
    }

    /// The layout of the one text (nil for banners).
    var singleLayout: TextLayout? { if case .single(let layout) = content { layout } else { nil } }

    package func render(in context: DrawingContext, at time: FrameTime) throws(EffectError) {
        switch content {
        case .single(let layout):
            if animation.isEmpty {
                decoration.draw(layout, clip: clip, on: context)
            } else {
                decoration.draw(layout, poses: clusterPoses(layout, at: time.local), clip: clip, on: context)
            }
        case .banners(let schedule, let cache):
            // Where the banners are and their layouts under the lock (a text met for the first time is laid out
            // now); the cache keeps every layout, so they outlive the drawing, which takes the lock only for
            // Pango's own calls.
            let placed = try PangoWorld.shared.withLock { (_) throws(EffectError) in
                try poses(schedule, cache, at: time.local).map { (pose) throws(EffectError) in
                    (pose, try cache.layout(pose.text))
                }
            }
            for (pose, layout) in placed {
                let origin = bannerOrigin(pose, layout)
                let clusters = animation.isEmpty ? nil : clusterPoses(layout, of: schedule, pose, at: time.local)
                context.withSavedState {
                    context.translate(origin.x, origin.y)
                    decoration.draw(layout, poses: clusters, clip: clip, alpha: pose.alpha, on: context)
                }
            }
        }
    }

    /// Each cluster's pose in the one text, `time` seconds after the layer starts.
    private func clusterPoses(_ layout: TextLayout, at time: Double) -> [ClusterPose] {
        animation.poses(layout.clusters, at: time, fill: decoration.color, stroke: decoration.stroke?.color)
    }

    /// Each cluster's pose in a banner's text, from the banner's arrival, with its count's last change.
    private func clusterPoses(_ layout: TextLayout, of schedule: BannerSchedule, _ pose: BannerPose, at time: Double)
        -> [ClusterPose]
    {
        let banner = schedule.banners[pose.id]
        let window = animation.countPopWindow ?? 0
        return animation.poses(
            layout.clusters, at: time - banner.arrival, fill: decoration.color, stroke: decoration.stroke?.color,
            count: window > 0 ? schedule.countChange(of: banner, at: time, window: window) : nil)
    }

    /// Where a banner's layout origin goes: its lines' bottom `lift` above the area's bottom (less the
    /// background's padding), slid left out of the area by `slide` of its width.
    private func bannerOrigin(_ pose: BannerPose, _ layout: TextLayout) -> Point {
        let padding = decoration.background?.padding ?? 0
        let width = layout.logical.maxX + padding
        return Point(box.x - pose.slide * width, box.maxY - pose.lift - padding - layout.logical.maxY)
    }

    /// The poses at `time`, with the banners' heights from their layouts; call with the world locked.
    private func poses(_ schedule: BannerSchedule, _ cache: LayoutCache, at time: Double) throws(EffectError)
        -> [BannerPose]
    {
        let padding = decoration.background?.padding ?? 0
        var failure: EffectError?
        let poses = schedule.poses(at: time) { banner, text in
            do throws(EffectError) {
                return try cache.layout(text).logical.height + 2 * padding
            } catch {
                failure = error
                return 0
            }
        }
        if let failure { throw failure }
        return poses
    }

    /// Static text: the same key at every frame, the parameters'. Banners: the parameters but the events, and
    /// the texts, places and opacities of those on screen, so frames with every banner at rest share a key.
    package func frameKey(at frame: FrameTime) -> FrameKey? {
        guard case .banners(let schedule, let cache) = content else {
            guard case .single(let layout) = content, !animation.isEmpty else { return parametersKey }
            // Animated text: the parameters and where each cluster is, so frames after the animation share a key.
            var hasher = FrameKey.Hasher()
            hasher.combine(parametersKey)
            for pose in clusterPoses(layout, at: frame.local) { pose.combine(into: &hasher) }
            return hasher.finalize()
        }
        var hasher = FrameKey.Hasher()
        // Banners, even none on screen, never key like static text.
        hasher.combine("banners")
        hasher.combine(parametersKey)
        guard
            let poses = try? PangoWorld.shared.withLock({ (_) throws(EffectError) in
                try poses(schedule, cache, at: frame.local)
            })
        else { return nil }
        for pose in poses {
            hasher.combine(pose.id)
            hasher.combine(pose.text)
            hasher.combine(pose.slide)
            hasher.combine(pose.lift)
            hasher.combine(pose.alpha)
            if !animation.isEmpty {
                guard
                    let layout = try? PangoWorld.shared.withLock({ (_) throws(EffectError) in
                        try cache.layout(pose.text)
                    })
                else { return nil }
                for cluster in clusterPoses(layout, of: schedule, pose, at: frame.local) {
                    cluster.combine(into: &hasher)
                }
            }
        }
        return hasher.finalize()
    }

    /// Static text: one item at the centre of its lines, with the size chosen, the line count, whether Pango
    /// ellipsized, and the placed ink and logical rectangles in the plan. Banners: one item per banner on
    /// screen (id = the event's index), at the centre of its lines, with its text.
    package func trace(at time: FrameTime) -> [TraceItem]? {
        func box(_ rect: Rect) -> JSONValue {
            .array([.number(rect.x), .number(rect.y), .number(rect.width), .number(rect.height)])
        }
        switch content {
        case .single(let layout):
            var plan = JSONObject()
            plan["size"] = .number(layout.size)
            plan["lines"] = .number(Double(layout.lineCount))
            plan["ellipsized"] = .bool(layout.ellipsized)
            plan["ink"] = box(layout.ink)
            plan["logical"] = box(layout.logical)
            plan["box"] = box(layout.box)
            guard !animation.isEmpty else {
                return [TraceItem(id: 0, position: layout.logical.center, visible: true, plan: plan)]
            }
            // Animated: at the middle one of the clusters drawn, where the path and the animators put it.
            let poses = clusterPoses(layout, at: time.local)
            let shown = zip(layout.clusters, poses).filter { !$0.0.isSpace && $0.1.alpha > 0 }.map(\.1.place)
            var fields = JSONObject()
            fields["clusters"] = Self.trace(layout, poses)
            let middle = shown.isEmpty ? layout.logical.center : shown[shown.count / 2]
            return [TraceItem(id: 0, position: middle, visible: !shown.isEmpty, plan: plan, fields: fields)]
        case .banners(let schedule, let cache):
            return try? PangoWorld.shared.withLock { (_) throws(EffectError) -> [TraceItem] in
                try poses(schedule, cache, at: time.local).map { (pose) throws(EffectError) in
                    let layout = try cache.layout(pose.text)
                    let origin = bannerOrigin(pose, layout)
                    let padding = decoration.background?.padding ?? 0
                    let logical = layout.logical.offset(origin.x, origin.y)
                    var fields = JSONObject()
                    fields["text"] = .string(pose.text)
                    // The banner's place with its background's padding: the height the stack makes room for.
                    fields["box"] = box(
                        Rect(
                            x: logical.x - padding, y: logical.y - padding, width: logical.width + 2 * padding,
                            height: logical.height + 2 * padding))
                    if !animation.isEmpty {
                        let clusters = clusterPoses(layout, of: schedule, pose, at: time.local)
                        fields["clusters"] = Self.trace(layout, clusters, origin: origin)
                    }
                    return TraceItem(
                        id: pose.id, position: layout.logical.offset(origin.x, origin.y).center, alpha: pose.alpha,
                        visible: pose.alpha > 0, fields: fields)
                }
            }
        }
    }

    /// Each cluster as `trace` lists it: its text, where its anchor is drawn (moved by `origin`), its opacity,
    /// scale and turn (radians).
    static func trace(_ layout: TextLayout, _ poses: [ClusterPose], origin: Point = Point(0, 0)) -> JSONValue {
        .array(
            zip(layout.clusters, poses).map { cluster, pose in
                var item = JSONObject()
                item["text"] = .string(cluster.text)
                item["x"] = .number(pose.place.x + origin.x)
                item["y"] = .number(pose.place.y + origin.y)
                item["alpha"] = .number(pose.alpha)
                item["scale"] = .number(pose.scale)
                item["rotation"] = .number(pose.rotation)
                return .object(item)
            })
    }

    /// The warning for characters no font has: each named by its code point, and shown (up to eight), so the
    /// author knows which font to add or which character to change.
    static func missingFontWarning(_ characters: [Unicode.Scalar]) -> EffectError {
        let named = characters.prefix(8).map { scalar in
            let code = String(scalar.value, radix: 16, uppercase: true)
            let shown = scalar.properties.generalCategory == .control ? "" : " \"\(Character(scalar))\""
            return "U+" + String(repeating: "0", count: max(0, 4 - code.count)) + code + shown
        }
        let more = characters.count > 8 ? " and \(characters.count - 8) more" : ""
        let count = characters.count == 1 ? "1 character is" : "\(characters.count) characters are"
        return EffectError(
            parameter: "text",
            "\(count) in no font RenderFarm has (\(named.joined(separator: ", "))\(more)); they are drawn as boxes; "
                + "add a font file that has them (font: \"fonts/….ttf\") or change the text")
    }

    private static func unknownFamily(_ name: String, known: Set<String>) -> String {
        let near = known.filter { $0.lowercased().contains(name.lowercased()) }.sorted().prefix(5)
        let hint = near.isEmpty ? "" : " (did you mean \(near.map { "\"\($0)\"" }.joined(separator: ", "))?)"
        return "\"\(name)\" is neither a font file (.ttf, .otf, .ttc) nor a family of the packaged fonts"
            + " \(FontLibrary.packages.joined(separator: ", "))\(hint)"
    }
}

extension TextEffect.Content {
    /// The layout of `text` (the one text's, or a banner's from the cache); call with the world locked.
    func layout(_ text: String) throws(EffectError) -> TextLayout {
        switch self {
        case .single(let layout): layout
        case .banners(_, let cache): try cache.layout(text)
        }
    }
}

/// The banners' layouts by text, made on first use (a counting number's values) and kept for the instance.
///
/// `@unchecked Sendable`: only used while ``PangoWorld/shared`` is locked.
final class LayoutCache: @unchecked Sendable {
    let fonts: FontSetup
    let style: TextStyle
    private var layouts: [TextBytes: TextLayout] = [:]

    init(fonts: FontSetup, style: TextStyle) {
        self.fonts = fonts
        self.style = style
    }

    func layout(_ text: String) throws(EffectError) -> TextLayout {
        let key = TextBytes(text: text)
        if let layout = layouts[key] { return layout }
        let layout = try TextLayout(text: text, style: style, fonts: fonts)
        layouts[key] = layout
        return layout
    }
}

/// A text as Pango receives it: its UTF-8 bytes. A `String` compares and hashes by Unicode's canonical
/// equivalence, which normalises every non-ASCII text it hashes (two or three lookups per banner and frame, all
/// while ``PangoWorld/shared`` is locked), and two equivalent texts are still two texts to Pango.
private struct TextBytes: Hashable {
    let text: String

    static func == (lhs: TextBytes, rhs: TextBytes) -> Bool { lhs.text.utf8.elementsEqual(rhs.text.utf8) }

    func hash(into hasher: inout Hasher) {
        var text = text
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}
