import EffectKit
import Foundation

/// The second seed's drop: items fly one after another along a quadratic Bezier into a target rect, then
/// hold there or bounce on its top edge under the bounce effect's physics (EffectKit article
/// ParabolicDropMotion).
struct ParabolicDrop: TracingEffect {
    static let descriptor = EffectDescriptor(
        id: "parabolic-drop",
        identifier: "org.renderfarm.parabolic-drop",
        version: "1.0.0",
        summary: "Items (gifts, coins) fly along a parabola into a target rect, then stop or bounce (iOS gift drop)",
        threadSafety: .full,
        // ItemLook's key covers its image file: an edited image redraws only the frames it is drawn in.
        keysCoverInputFiles: true,
        keysCoverParameters: true,
        parameters: [
            ParameterSpec(
                "count", .integer, default: 5, range: 1...Double(PhysicsLimits.maxItems),
                doc: "how many items drop"),
            ParameterSpec(
                "from", .json, default: [330, 600],
                doc: "start centre: a point [x, y], or a rect {x, y, width, height} to spread the items over"),
            ParameterSpec(
                "size", .size, default: 40, range: 1...2000,
                doc: "item size in points: a number (square) or [width, height]"),
            ParameterSpec(
                "shape", .choice(ItemShape.names), default: "gift",
                doc: "item look; coin and circle collide as discs when bouncing"),
            ParameterSpec(
                "image", .string, default: nil,
                doc: "PNG drawn instead of the shape, relative to the job file's folder (must stay inside it)"),
            ParameterSpec("color", .color, default: nil, doc: "main colour of the shape (default: the shape's own)"),
            ParameterSpec(
                "target", .rect, default: ["x": 110, "y": 430, "width": 160, "height": 90],
                range: -100_000...100_000, doc: "where items land: the centre ends on its top edge"),
            ParameterSpec(
                "deviation", .number, default: 0, range: -10_000...10_000,
                doc: "added to the target's centre x, plus a random 0, 3, 6, 9 or 12 per item"),
            ParameterSpec(
                "arcHeight", .number, default: 150, range: -10_000...10_000,
                doc: "control point height above the item's top edge, in points"),
            ParameterSpec(
                "controlFraction", .number, default: 0.3, range: -10...10,
                doc: "control point x = start x + controlFraction × horizontal distance"),
            ParameterSpec(
                "stagger", .number, default: 0.15, range: 0...3600,
                doc: "seconds between launches; item i launches at i × stagger (hidden before)"),
            ParameterSpec(
                "events", .events(eventFields), default: nil, range: 0...86_400,
                doc: "instead of count and stagger: one item per event, launched at its time (layer seconds), "
                    + "with its own shape, image, color, size and from point"),
            ParameterSpec(
                "lifetime", .number, default: nil, range: 0.05...86_400,
                doc: "seconds from an item's launch until it is removed and no longer drawn; default: never, as "
                    + "in the seed (items stay in the target)"),
            ParameterSpec(
                "onLand", .choice(LandingMode.allCases.map(\.rawValue)), default: "stop",
                doc: "stop: hold at the end (fill mode forwards); bounce: continue under physics-bounce rules"),
            ParameterSpec(
                "pathSampling", .choice(PathSampling.allCases.map(\.rawValue)), default: "bezier",
                doc: "motion along the curve: bezier = B(u), paced = constant speed (arc length)"),
            ParameterSpec(
                "timing", .json, default: "linear",
                doc: "the flight's timing: linear (the seed's), a timing function or preset name (easeIn, "
                    + "easeOutCubic, …; Motion article TimingFunctions) or a cubic Bézier [x1, y1, x2, y2]"),
            ParameterSpec(
                "spin", .number, default: 0, range: -100...100,
                doc: "turns during the flight with its timing, clockwise (negative: anticlockwise); held once landed"),
            ParameterSpec(
                "scaleFrom", .number, default: 1, range: 0...10,
                doc: "the item's scale at launch; it reaches 1 on landing, with the flight's timing"),
            ParameterSpec(
                "squash", .number, default: 0, range: 0...0.9,
                doc: "onLand stop: on landing the item flattens by this fraction, widening as much, and springs "
                    + "back over squashDuration, its bottom edge kept"),
            ParameterSpec(
                "squashDuration", .number, default: 0.25, range: 0.01...10, doc: "seconds of the landing squash"),
            ParameterSpec(
                "elasticity", .number, default: .number(PhysicsRules.itemElasticity), range: 0...1,
                doc: "onLand bounce: the items' elasticity (0.6, physics-bounce's; 0 lands dead)"),
            PhysicsBounds.parameter,
        ]
    )

    /// What happens when an item reaches the target (`onLand`, EffectKit article ParabolicDropMotion).
    enum LandingMode: String, CaseIterable, Sendable {
        case stop, bounce
    }

    /// The fields of an event besides its `time`.
    static let eventFields = [
        EventField("shape", .choice(ItemShape.names)), EventField("image", .string), EventField("color", .color),
        EventField("size", .size), EventField("from", .point),
    ]

    /// Sorted by launch time (events come sorted; `stagger` launches in id order), so the items on screen
    /// at a time are one range of ids.
    let items: [DropPlan]
    /// Each item's look and size, by item id (the layer's, or its event's).
    let looks: [(look: ItemLook, size: Size)]
    /// The items' image files (``Effect/inputFiles``).
    let inputFiles: [String]
    /// Seconds from launch until an item is removed; nil: never.
    let lifetime: Double?
    /// The bounce after landing, when `onLand` is `bounce`.
    var landing: DropLanding?
    /// Turns during the flight (`spin`), the scale at launch (`scaleFrom`), and the landing squash.
    let spin: Double
    let scaleFrom: Double
    let squash: Double
    let squashDuration: Double

    init(parameters: EffectParameters, context: EffectContext) throws(EffectError) {
        let size = try parameters.size("size")
        let mode: LandingMode = try parameters.choice("onLand")
        let loader = ItemLookLoader(context: context)
        let shape = try parameters.string("shape")
        let image = parameters.contains("image") ? try parameters.string("image") : nil
        let color = parameters.contains("color") ? try parameters.color("color") : nil
        let look = try loader.look(shape: shape, image: image, color: color, size: size)
        let geometry = DropGeometry(
            size: size, origin: try Self.origin(parameters["from"]), target: try parameters.rect("target"),
            deviation: try parameters.number("deviation"), arcHeight: try parameters.number("arcHeight"),
            controlFraction: try parameters.number("controlFraction"), sampling: try parameters.choice("pathSampling"),
            timing: try Self.timing(parameters["timing"]))
        spin = try parameters.number("spin")
        scaleFrom = try parameters.number("scaleFrom")
        squash = try parameters.number("squash")
        squashDuration = try parameters.number("squashDuration")
        var items: [DropPlan] = []
        var looks: [(look: ItemLook, size: Size)] = []
        if let events = parameters["events"]?.arrayValue {
            guard events.count <= PhysicsLimits.maxItems else {
                throw EffectError(parameter: "events", "\(events.count) events; at most \(PhysicsLimits.maxItems)")
            }
            for (index, event) in events.enumerated() {
                let name = "events[\(index)]"
                let object = try NestedObject(event, parameter: name, keys: ["time"] + Self.eventFields.map(\.name))
                var own = geometry
                if let value = object["size"] { own.size = try EffectParameters.size(value, parameter: name + ".size") }
                if let value = object["from"] {
                    own.origin = .point(try EffectParameters.point(value, parameter: name + ".from"))
                }
                let itemLook =
                    object["shape"] == nil && object["image"] == nil && object["color"] == nil && own.size == size
                    ? look
                    : try loader.look(
                        shape: try object.string("shape") ?? shape, image: try object.string("image") ?? image,
                        color: try object["color"].map { value throws(EffectError) in
                            try EffectParameters.color(value, parameter: name + ".color")
                        } ?? color,
                        size: own.size, prefix: name + ".")
                var random = SeededRandom(seed: context.itemSeed(index))
                let time = try object.number("time", in: 0...86_400) ?? 0
                items.append(DropPlan(id: index, start: time, geometry: own, random: &random))
                looks.append((itemLook, own.size))
            }
        } else {
            let count = try parameters.integer("count")
            let stagger = try parameters.number("stagger")
            items = (0..<count).map { index in
                var random = SeededRandom(seed: context.itemSeed(index))
                return DropPlan(id: index, start: Double(index) * stagger, geometry: geometry, random: &random)
            }
            looks = Array(repeating: (look, size), count: count)
        }
        self.items = items
        self.looks = looks
        inputFiles = ItemLook.imageFiles(of: looks.lazy.map(\.look))
        let lifetime = parameters.contains("lifetime") ? try parameters.number("lifetime") : nil
        self.lifetime = lifetime
        landing =
            mode == .bounce
            ? try DropLanding(
                items: items, bodies: looks.map { $0.look.body(size: $0.size) }, target: geometry.target,
                bounds: try PhysicsBounds.barriers(
                    parameters["bounds"], canvas: Size(width: context.width, height: context.height)),
                lifetime: lifetime, elasticity: try parameters.number("elasticity"), context: context)
            : nil
    }

    /// Each item's launch and its landing on the target's top edge (the end of its flight, also with
    /// `onLand: bounce`): a job's sound can play at them (`"at": {"layer": …, "moment": "land"}`).
    var moments: [EffectMoment] {
        items.flatMap { item in
            [
                EffectMoment(item: item.id, name: "launch", time: item.start),
                EffectMoment(item: item.id, name: "land", time: item.landing),
            ].filter { EffectMoment.times.contains($0.time) }
        }
    }

    mutating func prepare(frames: ClosedRange<Int>) throws(EffectError) {
        try landing?.playback.prepare(frames: frames)
    }

    /// Bouncing items that leave the canvas for good (`validate` and `render` print it).
    var warnings: [EffectError] { landing?.playback.warning.map { [$0] } ?? [] }

    func render(in context: DrawingContext, at frame: FrameTime) throws(EffectError) {
        for item in items[launched(by: frame.local)] {
            guard let state = try state(of: item, at: frame) else { continue }
            let (look, size) = looks[item.id]
            let drawn = Size(width: size.width * state.scaleX, height: size.height * state.scaleY)
            // A squashed item keeps its bottom edge where it landed.
            let center = Point(state.position.x, state.position.y + size.height * (1 - state.scaleY) / 2)
            ItemDrawer.draw(look, size: drawn, center: center, angle: state.angle, in: context)
        }
    }

    /// A hash of what each drawn item draws: its look, size, position and angle. Items resting in the
    /// target give equal keys for equal sets.
    func frameKey(at frame: FrameTime) -> FrameKey? {
        var key = FrameKey.Hasher()
        var drawn = false
        for item in items[launched(by: frame.local)] {
            let drawnState: ItemState?
            do { drawnState = try state(of: item, at: frame) } catch { return nil }
            guard let state = drawnState else { continue }
            if !drawn { key.combine(Self.descriptor.version) }
            drawn = true
            let (look, size) = looks[item.id]
            look.combine(into: &key)
            key.combine(size)
            key.combine(state.position)
            key.combine(state.angle)
            if state.scaleX != 1 || state.scaleY != 1 {
                key.combine(state.scaleX)
                key.combine(state.scaleY)
            }
        }
        return drawn ? key.finalize() : .nothingDrawn
    }

    /// The ids of the items launched by `time` and not yet removed at their lifetime (binary search on
    /// the sorted launch times).
    private func launched(by time: Double) -> Range<Int> {
        let end = SortedIndex.first(in: items.count) { items[$0].start > time }
        guard let lifetime else { return 0..<end }
        return min(SortedIndex.first(in: items.count) { items[$0].start > time - lifetime }, end)..<end
    }

    func trace(at frame: FrameTime) -> [TraceItem]? {
        items.compactMap { item in
            // An item that expired or bounced off the canvas for good is no longer simulated, nor traced.
            guard !hasEnded(item, at: frame) else { return nil }
            let state = try? state(of: item, at: frame)
            var plan = JSONObject()
            plan["start"] = .number(item.start)
            let size = looks[item.id].size
            plan["size"] = .array([.number(size.width), .number(size.height)])
            let curve = item.travel.curve
            plan["path"] = .array([curve.p0.json, curve.p1.json, curve.p2.json])
            plan["duration"] = .number(item.duration)
            var fields = JSONObject()
            let velocity = state?.velocity ?? .zero
            fields["vx"] = .number(velocity.x)
            fields["vy"] = .number(velocity.y)
            if let state, state.physics { fields["resting"] = .bool(state.resting) }
            fields["angle"] = .number(state?.angle ?? 0)
            fields["scaleX"] = .number(state?.scaleX ?? 1)
            fields["scaleY"] = .number(state?.scaleY ?? 1)
            return TraceItem(
                id: item.id, position: state?.position ?? curve.p0, scale: state?.scaleY ?? 1, visible: state != nil,
                plan: plan, fields: fields)
        }
    }

    /// Where an item is and how it moves at a frame; nil before its launch.
    struct ItemState {
        var position: Point
        var velocity: Point
        var angle = 0.0
        /// The item's size across and down, as a fraction of its own (`scaleFrom`, `squash`).
        var scaleX = 1.0
        var scaleY = 1.0
        /// Whether the physics (onLand bounce) has taken the item over.
        var physics = false
        var resting = false
    }

    /// Whether an item has been removed by `frame`: its lifetime is over, or it bounced off the canvas for good.
    private func hasEnded(_ item: DropPlan, at frame: FrameTime) -> Bool {
        if let lifetime, frame.local >= item.start + lifetime { return true }
        return (try? landing?.state(of: item.id, at: frame))?.departed == true
    }

    func state(of item: DropPlan, at frame: FrameTime) throws(EffectError) -> ItemState? {
        let time = frame.local
        guard time >= item.start, time < item.start + (lifetime ?? .infinity) else { return nil }
        if let landing {
            let body = try landing.state(of: item.id, at: frame)
            if body.departed { return nil }
            if body.present {
                return ItemState(
                    position: body.position, velocity: body.velocity, angle: body.angle, physics: true,
                    resting: body.resting)
            }
        }
        let turned = 2 * Double.pi * spin
        if time < item.landing {
            let u = item.progress(at: time)
            let scale = scaleFrom + (1 - scaleFrom) * u
            return ItemState(
                position: item.travel.position(at: u), velocity: item.velocity(at: time), angle: turned * u,
                scaleX: scale, scaleY: scale)
        }
        // Fill mode forwards: held at the end point, after the squash: a half sine of flattening and widening.
        var state = ItemState(position: item.travel.curve.end, velocity: .zero, angle: turned)
        if squash > 0, time < item.landing + squashDuration {
            let pulse = squash * sin(Double.pi * (time - item.landing) / squashDuration)
            (state.scaleX, state.scaleY) = (1 + pulse, 1 - pulse)
        }
        return state
    }

    /// `timing`: a timing function's or preset's name, or a cubic Bézier's control points [x1, y1, x2, y2]; nil for
    /// linear, the seed's.
    static func timing(_ value: JSONValue?) throws(EffectError) -> TimingFunction? {
        if let name = value?.stringValue {
            if name == "linear" { return nil }
            if let function = TimingFunction(name: name) ?? TimingFunction.preset(named: name) { return function }
            let names = TimingFunction.names + TimingFunction.presets.map(\.key)
            throw EffectError(
                parameter: "timing",
                "unknown timing function \"\(name)\"" + Suggestion.hint(for: name, in: names) + "; one of "
                    + names.joined(separator: ", ") + ", or a cubic Bézier [x1, y1, x2, y2]")
        }
        let points = value?.arrayValue?.compactMap(\.doubleValue) ?? []
        guard value?.arrayValue?.count == 4, points.count == 4, (0...1).contains(points[0]),
            (0...1).contains(points[2]), points.allSatisfy({ abs($0) <= 10 })
        else {
            throw EffectError(
                parameter: "timing",
                "expected a timing function's name or a cubic Bézier [x1, y1, x2, y2] with x1 and x2 in 0…1")
        }
        return TimingFunction(points[0], points[1], points[2], points[3])
    }

    private static func origin(_ value: JSONValue?) throws(EffectError) -> DropOrigin {
        if value?.arrayValue != nil { return .point(try EffectParameters.point(value, parameter: "from")) }
        if value?.objectValue != nil { return .area(try EffectParameters.rect(value, parameter: "from")) }
        throw EffectError(parameter: "from", "expected a point [x, y] or a rect {\"x\", \"y\", \"width\", \"height\"}")
    }
}
