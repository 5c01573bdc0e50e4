import EffectKit

/// One item as the effect draws it: look, size and where and when it enters the world.
struct BounceItem: Sendable {
    let look: ItemLook
    let size: Size
    let start: Point
    let spawn: Double
    let isDisc: Bool
    /// Velocity in pt/s when the item enters the world.
    let velocity: Point
}

/// Turns the layer's parameters into the physics scene and the items' looks, checking every nested value;
/// errors name the nested parameter, e.g. `barriers[1].to` or `items[0].shape`.
struct BounceSetup {
    static let itemKeys = ["at", "size", "velocity", "shape", "image", "color"]
    /// The fields of an event: an item's keys; `time` is the host's.
    static let eventFields = [
        EventField("at", .point), EventField("size", .size), EventField("velocity", .point),
        EventField("shape", .choice(ItemShape.names)), EventField("image", .string), EventField("color", .color),
    ]
    static let spawnKeys = ["count", "area", "interval"]
    static let barrierKeys = ["from", "to", "elasticity", "friction"]
    static let gravityKeys = ["direction", "magnitude"]
    /// Seconds between spawned items unless `spawn.interval` says otherwise.
    static let defaultInterval = 0.2

    let items: [BounceItem]
    let scene: PhysicsScene

    init(parameters: EffectParameters, context: EffectContext) throws(EffectError) {
        // Every value is checked even after a bad one, so `create` reports all problems at once.
        var problems = EffectProblems()
        var looks = ItemLookLoader(context: context)
        let defaults = ItemDefaults(
            size: try parameters.size("size"), shape: try parameters.string("shape"),
            image: parameters.contains("image") ? try parameters.string("image") : nil,
            color: parameters.contains("color") ? try parameters.color("color") : nil)
        var items: [BounceItem] = []
        let given = ["items", "spawn", "events"].filter(parameters.contains)
        if given.count != 1 {
            problems.add(
                EffectError(
                    parameter: given.last ?? "items",
                    given.isEmpty
                        ? "missing: give items [...], spawn {count, area, interval} or events"
                        : "give one of items, spawn and events, not \(given.joined(separator: " and "))"))
        } else if given.first == "items" {
            items = Self.listedItems(
                parameters["items"], name: "items", defaults: defaults, looks: &looks, problems: &problems)
        } else if given.first == "events" {
            items = Self.listedItems(
                parameters["events"], name: "events", defaults: defaults, looks: &looks, context: context,
                problems: &problems)
        } else {
            items =
                problems.check { () throws(EffectError) in
                    try Self.spawnedItems(parameters["spawn"], defaults: defaults, context: context, looks: &looks)
                } ?? []
        }
        let canvas = Size(width: context.width, height: context.height)
        let gravity = problems.check { () throws(EffectError) in try Self.gravity(parameters["gravity"]) }
        let bounds = problems.check { () throws(EffectError) in
            try PhysicsBounds.barriers(parameters["bounds"], canvas: canvas)
        }
        let barriers = Self.barriers(parameters, canvas: canvas, bounded: bounds?.isEmpty == false, problems: &problems)
        try problems.throwIfAny()
        self.items = items
        let lifetime = parameters.contains("lifetime") ? try parameters.number("lifetime") : nil
        let material = PhysicsMaterial(
            elasticity: try parameters.number("elasticity"), friction: try parameters.number("friction"),
            density: try parameters.number("density"), resistance: try parameters.number("resistance"),
            allowsRotation: try parameters.bool("allowsRotation"))
        scene = PhysicsScene(
            gravity: gravity ?? .zero, barriers: barriers + (bounds ?? []),
            items: items.map { item in
                PhysicsItem(
                    body: item.look.body(size: item.size), position: item.start, velocity: item.velocity,
                    spawnTime: item.spawn, expiry: lifetime.map { item.spawn + $0 })
            },
            material: material, itemsCollide: try parameters.bool("itemsCollide"),
            restThreshold: try parameters.number("restThreshold"), timestep: try parameters.number("timestep"),
            canvas: Rect(x: 0, y: 0, width: canvas.width, height: canvas.height))
        try scene.validate()
    }

    /// The layer-wide look and size of items that do not give their own.
    struct ItemDefaults {
        var size: Size
        var shape: String
        var image: String?
        var color: Color?
    }

    /// `items`, or `events` (with `context`): the same objects, events adding their `time` and
    /// taking a random centre along the canvas top when they give no `at`. Every problem of every
    /// element is recorded; the elements without one are returned.
    private static func listedItems(
        _ value: JSONValue?, name list: String, defaults: ItemDefaults, looks: inout ItemLookLoader,
        context: EffectContext? = nil, problems: inout EffectProblems
    ) -> [BounceItem] {
        guard let elements = value?.arrayValue, !elements.isEmpty else {
            problems.add(
                EffectError(
                    parameter: list,
                    "expected a list of {at, size, velocity, shape, image, color}" + EffectParameters.got(value)))
            return []
        }
        guard elements.count <= PhysicsLimits.maxItems else {
            problems.add(EffectError(parameter: list, "\(elements.count) items; at most \(PhysicsLimits.maxItems)"))
            return []
        }
        let keys = itemKeys + (context == nil ? [] : ["time"])
        var items: [BounceItem] = []
        for (index, element) in elements.enumerated() {
            let name = "\(list)[\(index)]"
            // Unknown keys are reported, and the known ones still checked.
            guard let object = NestedObject(element, parameter: name, keys: keys, problems: &problems),
                let item = listedItem(
                    object, name: name, index: index, defaults: defaults, looks: &looks, context: context,
                    problems: &problems)
            else { continue }
            items.append(item)
        }
        return items
    }

    private static func listedItem(
        _ object: NestedObject, name: String, index: Int, defaults: ItemDefaults, looks: inout ItemLookLoader,
        context: EffectContext?, problems: inout EffectProblems
    ) -> BounceItem? {
        let size = problems.check { () throws(EffectError) in
            try object["size"].map { value throws(EffectError) in
                try EffectParameters.size(value, parameter: name + ".size")
            } ?? defaults.size
        }
        let color = problems.check { () throws(EffectError) in
            try object["color"].map { value throws(EffectError) in
                try EffectParameters.color(value, parameter: name + ".color")
            } ?? defaults.color
        }
        let shape = problems.check { () throws(EffectError) in try object.string("shape") ?? defaults.shape }
        let image = problems.check { () throws(EffectError) in try object.string("image") ?? defaults.image }
        // A path the layer gives for every item is reported once, as the layer's `image`.
        let imageParameter = object["image"] == nil ? "image" : name + ".image"
        let look = problems.check { () throws(EffectError) in
            try looks.look(
                shape: shape ?? defaults.shape, image: image ?? nil, color: color ?? nil, size: size,
                prefix: name + ".", imageParameter: imageParameter)
        }
        let velocity = problems.check { () throws(EffectError) in
            try object["velocity"].map { value throws(EffectError) in
                try EffectParameters.point(value, parameter: name + ".velocity")
            } ?? .zero
        }
        let at = problems.check { () throws(EffectError) -> Point in
            guard let context, object["at"] == nil, let size else {
                return try EffectParameters.point(object["at"], parameter: name + ".at")
            }
            // An event without `at` drops in at a random place along the canvas top.
            var random = SeededRandom(seed: context.itemSeed(index))
            let half = size.width / 2
            return Point(half + max(0, context.width - 2 * half) * random.unit(), size.height / 2)
        }
        let spawn = problems.check { () throws(EffectError) in try object.number("time", in: 0...86_400) ?? 0 }
        guard let size, let look, let velocity, let at, let spawn else { return nil }
        return BounceItem(
            look: look, size: size, start: at, spawn: spawn, isDisc: look.body(size: size).isDisc, velocity: velocity)
    }

    private static func spawnedItems(
        _ value: JSONValue?, defaults: ItemDefaults, context: EffectContext, looks: inout ItemLookLoader
    ) throws(EffectError) -> [BounceItem] {
        let object = try NestedObject(value ?? .null, parameter: "spawn", keys: spawnKeys)
        let count = try object.integer("count", in: 1...PhysicsLimits.maxItems) ?? 1
        let area = try EffectParameters.rect(object["area"], parameter: "spawn.area")
        let interval = try object.number("interval", in: 0...3600) ?? defaultInterval
        let look = try looks.look(
            shape: defaults.shape, image: defaults.image, color: defaults.color, size: defaults.size)
        let isDisc = look.body(size: defaults.size).isDisc
        return (0..<count).map { index in
            var random = SeededRandom(seed: context.itemSeed(index))
            let at = Point(area.minX + area.width * random.unit(), area.minY + area.height * random.unit())
            return BounceItem(
                look: look, size: defaults.size, start: at, spawn: Double(index) * interval,
                isDisc: isDisc, velocity: .zero)
        }
    }

    private static func gravity(_ value: JSONValue?) throws(EffectError) -> Point {
        guard let value else { return PhysicsRules.gravity(direction: Point(0, 1), magnitude: 1) }
        let object = try NestedObject(value, parameter: "gravity", keys: gravityKeys)
        let direction =
            try object["direction"].map { value throws(EffectError) in
                try EffectParameters.point(value, parameter: "gravity.direction")
            } ?? Point(0, 1)
        guard direction.length > 0 else { throw EffectError(parameter: "gravity.direction", "must not be [0, 0]") }
        let magnitude = try object.number("magnitude", in: -1000...1000) ?? 1
        return PhysicsRules.gravity(direction: direction, magnitude: magnitude)
    }

    private static func barriers(
        _ parameters: EffectParameters, canvas: Size, bounded: Bool, problems: inout EffectProblems
    ) -> [PhysicsBarrier] {
        switch (parameters["barrier"], parameters["barriers"]) {
        case (let one?, nil):
            return problems.check { () throws(EffectError) in try barrier(one, parameter: "barrier") }.map { [$0] }
                ?? []
        case (nil, let list?):
            guard let elements = list.arrayValue, !elements.isEmpty, elements.count <= 1000 else {
                problems.add(
                    EffectError(
                        parameter: "barriers",
                        "expected a list of 1 to 1000 {from, to, elasticity, friction}" + EffectParameters.got(list)))
                return []
            }
            return elements.enumerated().compactMap { index, element in
                problems.check { () throws(EffectError) in try barrier(element, parameter: "barriers[\(index)]") }
            }
        case (.some, .some):
            problems.add(EffectError(parameter: "barriers", "give barrier or barriers, not both"))
            return []
        case (nil, nil):
            // The canvas's bottom edge, so items never fall out of sight by default (`bounds` has it too).
            return bounded
                ? [] : [PhysicsBarrier(from: Point(0, canvas.height), to: Point(canvas.width, canvas.height))]
        }
    }

    private static func barrier(_ value: JSONValue, parameter: String) throws(EffectError) -> PhysicsBarrier {
        var problems = EffectProblems()
        guard let object = NestedObject(value, parameter: parameter, keys: barrierKeys, problems: &problems) else {
            try problems.throwIfAny()
            throw EffectError(parameter: parameter, "expected an object")
        }
        let from = problems.check { () throws(EffectError) in
            try EffectParameters.point(object["from"], parameter: parameter + ".from")
        }
        let to = problems.check { () throws(EffectError) in
            try EffectParameters.point(object["to"], parameter: parameter + ".to")
        }
        let elasticity = problems.check { () throws(EffectError) in try object.number("elasticity", in: 0...1) }
        let friction = problems.check { () throws(EffectError) in try object.number("friction", in: 0...100) }
        try problems.throwIfAny()
        guard let from, let to else { throw EffectError(parameter: parameter, "could not be read") }
        guard from.distance(to: to) > 1e-9 else {
            throw EffectError(parameter: parameter + ".to", "zero-length boundary (from and to are the same point)")
        }
        return PhysicsBarrier(
            from: from, to: to, elasticity: elasticity.flatMap { $0 } ?? PhysicsRules.barrierElasticity,
            friction: friction.flatMap { $0 } ?? PhysicsRules.barrierFriction)
    }
}
