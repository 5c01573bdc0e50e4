import CairoKit
import Motion
import StrictJSON

/// Reads a job's `layers`: effect layers and groups with their host-level fields, every problem
/// with its place in the file (the RenderFarm articles JobFileReference and ComposingLayers).
struct LayerListDecoder {
    let issues: IssueCollector
    /// Where `transform.anchor` defaults to: the canvas centre, in points (the composition's, in one).
    var canvasCentre: Point
    /// The effect layers found so far, in drawing order.
    private(set) var layers: [LayerSpec] = []
    /// Effect layers past `JobDecoder.Limits.maxLayers`, counted and not read.
    private(set) var layersOverLimit = 0
    /// The layers and groups turned off (`"enabled": false`), in file order.
    private(set) var disabled: [DisabledLayer] = []
    /// Where compositions are read from; nil for a job that is no file.
    var compositionFiles: CompositionFiles?
    /// The variant the job is, whose CSV cells a composition's parameters take as typed.
    var variant: JobVariant?
    /// The composition whose layers are being read; nil for the job's own.
    var scope: Scope?
    var compositionsPlaced = 0

    /// Groups inside groups, at most this deep.
    static let maxDepth = 8
    /// Keyframes of one field, at most.
    static let maxKeyframes = 1_000
    static let fieldKeys = [
        "name", "start", "end", "speed", "loop", "opacity", "blend", "transform", "mask", "gain", "muted", "enabled",
        "style", "motionBlur",
    ]
    static let effectKeys = ["effect", "params"] + fieldKeys
    static let groupKeys = ["group"] + fieldKeys

    init(issues: IssueCollector, canvasCentre: Point, compositionFiles: CompositionFiles?, variant: JobVariant?) {
        self.issues = issues
        self.canvasCentre = canvasCentre
        self.compositionFiles = compositionFiles
        self.variant = variant
    }

    /// The layers of the list `value` at `path`, as nodes; their effect layers are added to `layers`.
    mutating func decodeList(_ list: [JSONValue], path: String, depth: Int) -> [LayerNode] {
        var nodes: [LayerNode] = []
        let disabledBefore = disabled.count
        for (index, element) in list.enumerated() {
            let elementPath = "\(path)[\(index)]"
            guard let object = element.objectValue else {
                issues.add(
                    elementPath, "expected an object {\"effect\", \"start\", \"params\"}, got \(element.typeName)")
                continue
            }
            if layers.count >= JobDecoder.Limits.maxLayers && object["group"] == nil && object["composition"] == nil {
                layersOverLimit += 1
                continue
            }
            if let node = decodeNode(ObjectReader(object: object, path: elementPath, issues: issues), depth: depth) {
                nodes.append(node)
            }
        }
        // The names of this list's layers that are turned off, for a mask that names one.
        let off = Set(
            disabled[disabledBefore...].filter {
                $0.path.hasPrefix(path + "[") && !$0.path.dropFirst(path.count).contains(".")
            }.compactMap(\.name))
        resolveMasks(&nodes, disabledNames: off)
        return nodes
    }

    private mutating func decodeNode(_ reader: ObjectReader, depth: Int) -> LayerNode? {
        if reader.object["composition"] != nil && isEnabled(reader) { return decodeComposition(reader, depth: depth) }
        let fields = decodeFields(reader)
        // Turned off: its own fields are checked (above), nothing inside it is read.
        guard isEnabled(reader) else {
            reader.rejectUnknownKeys(
                reader.object["group"] != nil
                    ? Self.groupKeys : reader.object["composition"] != nil ? Self.compositionKeys : Self.effectKeys)
            disabled.append(
                DisabledLayer(path: reader.path, effect: reader.object["effect"]?.stringValue, name: fields.name))
            return nil
        }
        if let group = reader.object["group"] {
            reader.rejectUnknownKeys(Self.groupKeys)
            if reader.object["effect"] != nil {
                issues.add(reader.childPath("effect"), "a layer has an effect or a group, not both")
            }
            guard depth < Self.maxDepth else {
                issues.add(reader.childPath("group"), "groups nest at most \(Self.maxDepth) deep")
                return nil
            }
            guard let list = group.arrayValue, !list.isEmpty else {
                issues.add(
                    reader.childPath("group"), "expected a list of at least one layer, got \(ObjectReader.show(group))")
                return nil
            }
            let children = decodeList(list, path: reader.childPath("group"), depth: depth + 1)
            // Every layer of the group turned off: it draws nothing, as if it were off itself.
            if children.isEmpty && disabled.contains(where: { $0.path.hasPrefix(reader.childPath("group") + "[") }) {
                return nil
            }
            return LayerNode(fields: fields, content: .group(children), path: reader.path)
        }
        reader.rejectUnknownKeys(Self.effectKeys)
        guard let effect = reader.string("effect", default: nil, maxLength: 64) else { return nil }
        let params = reader.object("params")?.object ?? JSONObject()
        layers.append(
            LayerSpec(
                effect: effect, start: fields.start, params: params, path: reader.path,
                scope: scope?.layer(layers.count)))
        return LayerNode(fields: fields, content: .effect(layers.count - 1), path: reader.path)
    }

    /// `enabled`: true unless the file says false; anything but true or false is a problem (and counts as true).
    private func isEnabled(_ reader: ObjectReader) -> Bool {
        reader.bool("enabled", default: true) ?? true
    }

    /// The host-level fields `reader` holds; `anchor`: where `transform.anchor` defaults to, when not the
    /// canvas centre.
    func decodeFields(_ reader: ObjectReader, anchor: Point? = nil) -> LayerFields {
        var fields = LayerFields()
        let seconds = 0...JobDecoder.Limits.maxDuration
        fields.name = reader.string("name", default: "", maxLength: 64).flatMap { $0.isEmpty ? nil : $0 }
        fields.start = reader.number("start", default: 0, in: seconds) ?? 0
        if reader.object["end"] != nil, let end = reader.number("end", default: nil, in: seconds) {
            if end <= fields.start {
                issues.add(
                    reader.childPath("end"),
                    "\(ObjectReader.format(end)) is not after start (\(ObjectReader.format(fields.start)))")
            } else {
                fields.end = end
            }
        }
        fields.speed = reader.number("speed", default: 1, in: 0...100, exclusiveLowerBound: true) ?? 1
        if reader.object["loop"] != nil {
            fields.loop = reader.number(
                "loop", default: nil, in: 0...JobDecoder.Limits.maxDuration, exclusiveLowerBound: true)
        }
        if let value = reader.object["opacity"] {
            fields.opacity =
                animated(value, path: reader.childPath("opacity"), read: { self.opacity($0, path: $1) }) ?? .constant(1)
        }
        fields.gain = reader.number("gain", default: 0, in: LayerFields.gains) ?? 0
        fields.muted = reader.bool("muted", default: false) ?? false
        let blend = reader.string("blend", default: "normal", maxLength: 32) ?? "normal"
        if let mode = BlendMode(rawValue: blend) {
            fields.blend = mode
        } else {
            issues.add(
                reader.childPath("blend"),
                "unknown blend mode \"\(blend)\"\(Suggestion.hint(for: blend, in: BlendMode.allCases.map(\.rawValue))); one of "
                    + BlendMode.allCases.map(\.rawValue).joined(separator: ", "))
        }
        if reader.object["transform"] != nil, let transform = reader.object("transform") {
            fields.transform = decodeTransform(transform, anchor: anchor ?? canvasCentre)
        }
        if reader.object["style"] != nil, let style = reader.object("style") {
            fields.style = decodeStyle(style)
        }
        switch reader.object["motionBlur"] {
        case nil, .some(.bool(false)): break
        case .some(.bool(true)): fields.motionBlur = MotionBlur()
        case .some(.object): fields.motionBlur = reader.object("motionBlur").map(decodeMotionBlur)
        case .some(let other):
            issues.add(
                reader.childPath("motionBlur"),
                "expected true, false or {\"shutterAngle\", \"shutterPhase\", \"samples\"}, got \(ObjectReader.show(other))"
            )
        }
        if reader.object["mask"] != nil, let mask = reader.object("mask") {
            mask.rejectUnknownKeys(["layer", "mode", "invert"])
            let mode = mask.string("mode", default: "alpha", maxLength: 16) ?? "alpha"
            if LayerMask.Mode(rawValue: mode) == nil {
                issues.add(mask.childPath("mode"), "expected \"alpha\" or \"luminance\", got \"\(mode)\"")
            }
            let invert = mask.bool("invert", default: false) ?? false
            if let layer = mask.string("layer", default: nil, maxLength: 64) {
                fields.mask = LayerMask(layer: layer, mode: LayerMask.Mode(rawValue: mode) ?? .alpha, invert: invert)
            }
        }
        return fields
    }

    private func decodeMotionBlur(_ reader: ObjectReader) -> MotionBlur {
        reader.rejectUnknownKeys(["shutterAngle", "shutterPhase", "samples"])
        // With a default, each reader gives it back for a value it refuses.
        let defaults = MotionBlur()
        var blur = defaults
        blur.shutterAngle =
            reader.number("shutterAngle", default: defaults.shutterAngle, in: MotionBlur.angles)
            ?? defaults.shutterAngle
        blur.shutterPhase =
            reader.number("shutterPhase", default: defaults.shutterPhase, in: MotionBlur.phases)
            ?? defaults.shutterPhase
        blur.samples =
            reader.integer("samples", default: defaults.samples, in: MotionBlur.sampleCounts)
            ?? defaults.samples
        return blur
    }

    private func decodeTransform(_ reader: ObjectReader, anchor centre: Point) -> LayerTransform {
        reader.rejectUnknownKeys(["anchor", "position", "path", "scale", "rotation"])
        let anchor = reader.object["anchor"].flatMap { point($0, path: reader.childPath("anchor")) } ?? centre
        var transform = LayerTransform(
            anchor: anchor, position: nil, scale: .constant(Point(1, 1)), rotation: .constant(0))
        if let value = reader.object["position"] {
            transform.position = animated(
                value, path: reader.childPath("position"), tangents: true, read: { self.point($0, path: $1) })
        }
        if reader.object["path"] != nil, let path = reader.object("path") {
            if reader.object["position"] != nil {
                issues.add(path.path, "give position or path, not both: the path places the anchor")
            }
            transform.path = decodePath(path)
        }
        if let value = reader.object["scale"] {
            transform.scale =
                animated(value, path: reader.childPath("scale"), read: { self.scale($0, path: $1) }) ?? transform.scale
        }
        if let value = reader.object["rotation"] {
            transform.rotation =
                animated(value, path: reader.childPath("rotation"), read: { self.degrees($0, path: $1) })
                ?? transform.rotation
        }
        return transform
    }

    /// `transform.path`: `{"d", "progress", "autoOrient"}`.
    private func decodePath(_ reader: ObjectReader) -> LayerTransform.Path? {
        reader.rejectUnknownKeys(["d", "progress", "autoOrient"])
        let autoOrient = reader.bool("autoOrient", default: false)
        var motionPath: MotionPath?
        switch reader.object["d"] {
        case .string(let data) where data.utf8.count <= Self.maxPathData:
            do {
                motionPath = try MotionPath(data)
            } catch {
                issues.add(reader.childPath("d"), "\(error)")
            }
        case .some(let value):
            issues.add(
                reader.childPath("d"),
                "expected SVG path data of at most \(Self.maxPathData) characters (\"M 40 600 C 100 300 300 300 335 80\"), "
                    + "got \(ObjectReader.show(value))")
        case nil:
            issues.add(reader.childPath("d"), "missing: the SVG path data the layer travels along")
        }
        guard let progressValue = reader.object["progress"] else {
            issues.add(
                reader.childPath("progress"),
                "missing: how far along the path, 0…1, usually keyframes {\"keyframes\": [{\"t\": 0, \"value\": 0}, "
                    + "{\"t\": 2, \"value\": 1}]}")
            return nil
        }
        let progress = animated(
            progressValue, path: reader.childPath("progress"), read: { self.fraction($0, path: $1) })
        guard let motionPath, let progress, let autoOrient else { return nil }
        return LayerTransform.Path(path: motionPath, progress: progress, autoOrient: autoOrient)
    }

    /// The most characters of a motion path's data.
    static let maxPathData = 1 << 20

    // MARK: Values

    private func fraction(_ value: JSONValue, path: String) -> Double? {
        guard let number = value.doubleValue, (0...1).contains(number) else {
            issues.add(path, "expected a fraction of the path 0…1, got \(ObjectReader.show(value))")
            return nil
        }
        return number
    }

    private func opacity(_ value: JSONValue, path: String) -> Double? {
        guard let number = value.doubleValue, (0...1).contains(number) else {
            issues.add(path, "expected an opacity 0…1, got \(ObjectReader.show(value))")
            return nil
        }
        return number
    }

    /// Coordinates in points, within ± this (a hundred times the largest canvas side).
    private static let maxCoordinate = 100 * JobDecoder.Limits.maxSide

    private func point(_ value: JSONValue, path: String) -> Point? {
        let range = -Self.maxCoordinate...Self.maxCoordinate
        guard let pair = value.arrayValue, pair.count == 2, let x = pair[0].doubleValue, let y = pair[1].doubleValue,
            range.contains(x), range.contains(y)
        else {
            issues.add(path, "expected a point [x, y] in points, got \(ObjectReader.show(value))")
            return nil
        }
        return Point(x, y)
    }

    private func scale(_ value: JSONValue, path: String) -> Point? {
        let range = -1000.0...1000.0
        if let factor = value.doubleValue, range.contains(factor) { return Point(factor, factor) }
        if let pair = value.arrayValue, pair.count == 2, let x = pair[0].doubleValue, let y = pair[1].doubleValue,
            range.contains(x), range.contains(y)
        {
            return Point(x, y)
        }
        issues.add(path, "expected a scale factor or [sx, sy], each in -1000…1000, got \(ObjectReader.show(value))")
        return nil
    }

    private func degrees(_ value: JSONValue, path: String) -> Double? {
        guard let number = value.doubleValue, abs(number) <= 1_000_000 else {
            issues.add(path, "expected degrees (a number), got \(ObjectReader.show(value))")
            return nil
        }
        return number
    }

    /// A constant `read` from `value`, or `{"keyframes": [{"t", "value", "timing"}]}`; with `tangents` (a
    /// position), each keyframe may add `inTangent` and `outTangent` (points, offsets from its value).
    func animated<Value>(
        _ value: JSONValue, path: String, tangents: Bool = false, read: (JSONValue, String) -> Value?
    ) -> Animated<Value>? {
        guard let object = value.objectValue else { return read(value, path).map { .constant($0) } }
        let reader = ObjectReader(object: object, path: path, issues: issues)
        reader.rejectUnknownKeys(["keyframes"])
        guard let list = object["keyframes"]?.arrayValue, !list.isEmpty, list.count <= Self.maxKeyframes else {
            issues.add(
                reader.childPath("keyframes"),
                "expected a list of 1…\(Self.maxKeyframes) keyframes {\"t\", \"value\", \"timing\"}")
            return nil
        }
        var keys: [Keyframe<Value>] = []
        for (index, element) in list.enumerated() {
            let keyPath = "\(reader.childPath("keyframes"))[\(index)]"
            guard let entry = element.objectValue else {
                issues.add(keyPath, "expected {\"t\", \"value\", \"timing\"}, got \(element.typeName)")
                continue
            }
            let key = ObjectReader(object: entry, path: keyPath, issues: issues)
            key.rejectUnknownKeys(["t", "value", "timing"] + (tangents ? ["inTangent", "outTangent"] : []))
            let (inTangent, outTangent) = (
                entry["inTangent"].flatMap { self.point($0, path: key.childPath("inTangent")) } ?? .zero,
                entry["outTangent"].flatMap { self.point($0, path: key.childPath("outTangent")) } ?? .zero
            )
            let t = key.number("t", default: nil, in: -JobDecoder.Limits.maxDuration...JobDecoder.Limits.maxDuration)
            let timing = entry["timing"].flatMap { self.timing($0, path: key.childPath("timing")) } ?? .curve(.linear)
            guard let raw = entry["value"] else {
                issues.add(key.childPath("value"), "missing")
                continue
            }
            guard let t, let value = read(raw, key.childPath("value")) else { continue }
            if let last = keys.last, t <= last.t {
                issues.add(
                    key.childPath("t"),
                    "\(ObjectReader.format(t)) is not after the keyframe before (\(ObjectReader.format(last.t)))")
                continue
            }
            keys.append(Keyframe(t: t, value: value, timing: timing, inTangent: inTangent, outTangent: outTangent))
        }
        return keys.count == list.count ? .keyframes(keys) : nil
    }

    /// A Core Animation name or a preset, a cubic `[x1, y1, x2, y2]`, or a spring `{"damping", "velocity"}`.
    private func timing(_ value: JSONValue, path: String) -> KeyframeTiming? {
        if let name = value.stringValue {
            if let timing = KeyframeTiming.named(name) { return timing }
            issues.add(
                path,
                "unknown timing \"\(name)\"\(Suggestion.hint(for: name, in: KeyframeTiming.names)); one of "
                    + TimingFunction.names.joined(separator: ", ")
                    + ", a preset (ease, ease-in, ease-out, ease-in-out, easeInSine … easeInOutBack: "
                    + "ComposingLayers, \"Keyframes\"), [x1, y1, x2, y2] or {\"damping\", \"velocity\"}")
            return nil
        }
        if let list = value.arrayValue {
            let numbers = list.compactMap(\.doubleValue)
            guard numbers.count == 4, list.count == 4, (0...1).contains(numbers[0]), (0...1).contains(numbers[2]),
                numbers.allSatisfy({ abs($0) <= 100 })
            else {
                issues.add(
                    path, "expected a cubic [x1, y1, x2, y2] with x1 and x2 in 0…1, got \(ObjectReader.show(value))")
                return nil
            }
            return .curve(TimingFunction(numbers[0], numbers[1], numbers[2], numbers[3]))
        }
        if let object = value.objectValue {
            let spring = ObjectReader(object: object, path: path, issues: issues)
            spring.rejectUnknownKeys(["damping", "velocity"])
            let damping = spring.number("damping", default: nil, in: 0...1, exclusiveLowerBound: true)
            let velocity = spring.number("velocity", default: 0, in: -1000...1000)
            guard let damping, let velocity else { return nil }
            return .spring(damping: damping, velocity: velocity)
        }
        issues.add(
            path, "expected a timing name, [x1, y1, x2, y2] or {\"damping\", \"velocity\"}, got \(value.typeName)")
        return nil
    }

    // MARK: Masks

    /// Points each mask at its layer in `nodes` and marks that layer as a mask; names are unique in a list.
    private func resolveMasks(_ nodes: inout [LayerNode], disabledNames: Set<String>) {
        var names: [String: Int] = [:]
        for (index, node) in nodes.enumerated() {
            guard let name = node.fields.name else { continue }
            if let earlier = names[name] {
                issues.add(
                    keyPath(node.path, "name"),
                    "\"\(name)\" also names \(nodes[earlier].path); names in one list are unique")
            } else {
                names[name] = index
            }
        }
        for index in nodes.indices {
            guard let mask = nodes[index].fields.mask else { continue }
            let path = keyPath(keyPath(nodes[index].path, "mask"), "layer")
            if names[mask.layer] == nil, disabledNames.contains(mask.layer) {
                issues.add(
                    path,
                    "\"\(mask.layer)\" is turned off (\"enabled\": false): a mask needs its layer enabled; "
                        + "enable it, or turn this layer off too")
                continue
            }
            guard let source = names[mask.layer] else {
                let known = names.keys.sorted()
                issues.add(
                    path,
                    "no layer named \"\(mask.layer)\" in this list\(Suggestion.hint(for: mask.layer, in: known))"
                        + (known.isEmpty
                            ? " (give the masking layer a \"name\")" : "; named: " + known.joined(separator: ", ")))
                continue
            }
            guard source != index else {
                issues.add(path, "a layer cannot mask itself")
                continue
            }
            guard nodes[source].fields.mask == nil else {
                issues.add(path, "\"\(mask.layer)\" has a mask of its own; a masking layer cannot be masked")
                continue
            }
            nodes[index].fields.mask?.source = source
            nodes[source].isMask = true
        }
    }
}
