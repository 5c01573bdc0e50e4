import EffectKit

/// Shape items, transforms and animatable properties (the keys rlottie 0.1's parser reads).
extension LottieCheck {
    /// What rlottie reads a property's value as: one number (opacity, rotation, width…) or a vector of them
    /// (point, size, colour). A static one number must be a plain number (rlottie 0.1's parser loses its
    /// place on `[100]`), a static vector an array; keyframe values of a number may be either.
    enum ValueKind {
        case scalar, vector, either
    }

    /// Shape types rlottie draws, with the properties each one reads.
    private static let shapeProperties: [String: [(String, ValueKind)]] = [
        "rc": [("p", .vector), ("s", .vector), ("r", .scalar)],
        "el": [("p", .vector), ("s", .vector)],
        "sr": [("p", .vector)] + ["or", "ir", "is", "os", "r", "pt"].map { ($0, .scalar) },
        "fl": [("c", .vector), ("o", .scalar)],
        "st": [("c", .vector), ("o", .scalar), ("w", .scalar)],
        "gf": [("s", .vector), ("e", .vector), ("o", .scalar), ("h", .scalar), ("a", .scalar)],
        "gs": [("s", .vector), ("e", .vector), ("o", .scalar), ("h", .scalar), ("a", .scalar), ("w", .scalar)],
        "tm": [("s", .scalar), ("e", .scalar), ("o", .scalar)],
        "rp": [("c", .scalar), ("o", .scalar)],
        "gr": [], "sh": [], "tr": [],
    ]
    /// Transform properties: vectors, numbers, and ones rlottie 0.1 skips (skew, 3D orientation).
    private static let transformProperties: [(String, ValueKind)] =
        [("a", .vector), ("s", .vector)] + ["r", "o", "so", "eo", "rx", "ry", "rz"].map { ($0, .scalar) }
        + ["sk", "sa", "or"].map { ($0, .either) }
    /// Shape types rlottie skips without drawing them differently enough to matter (merge paths, rounded corners).
    private static let skippedShapes: Set<String> = ["mm", "rd"]
    /// Integer members of each shape type (direction, star type, fill rule, caps, joins, gradient type, modes).
    private static let integerMembers: [String: [String]] = [
        "rc": ["d"], "el": ["d"], "sh": ["d"], "sr": ["sy", "d"], "fl": ["r"], "gf": ["r", "t"],
        "st": ["lc", "lj"], "gs": ["lc", "lj", "t"], "tm": ["m"], "rp": ["m"],
    ]

    mutating func shapeItem(_ value: JSONValue, _ path: String, repeat copies: Double, depth: Int) {
        guard let item = value.objectValue else { return report(path, "expected a shape object") }
        shapeCount += 1
        guard shapeCount <= Limits.shapes else { return report(path, "more than \(Limits.shapes) shape items") }
        guard depth <= 32 else { return report(path, "groups nested more than 32 deep") }
        string(item, "nm", path)
        bool(item, "hd", path)
        bool(item, "fillEnabled", path)
        guard let type = item["ty"]?.stringValue else { return report(path + ".ty", "expected a shape type string") }
        if Self.skippedShapes.contains(type) { return }
        guard let properties = Self.shapeProperties[type] else {
            let known = Self.shapeProperties.keys.sorted().joined(separator: ", ")
            return report(path + ".ty", "shape type \"\(type)\" is not supported by rlottie (expected one of \(known))")
        }
        for key in Self.integerMembers[type] ?? [] { integer(item, key, path, in: 0...16) }
        number(item, "ml", path)
        for (key, kind) in properties {
            if let property = item[key] { self.property(property, "\(path).\(key)", kind) }
        }
        switch type {
        case "gr":
            if let items = item["it"] {
                list(items, path + ".it") { check, child, place in
                    check.shapeItem(child, place, repeat: copies, depth: depth + 1)
                }
            }
        case "sh":
            if let shape = item["ks"] { pathProperty(shape, path + ".ks") } else { report(path + ".ks", "missing") }
        case "tr":
            transform(value, path)
        case "sr":
            if let points = item["pt"] { bounded(points, path + ".pt", 0...Limits.starPoints, "star points") }
            // Roundness is a percentage; far beyond it rlottie's flattening of a large star takes seconds.
            for key in ["is", "os"] {
                if let roundness = item[key] { bounded(roundness, "\(path).\(key)", -100...100, "roundness") }
            }
        case "rp":
            if let count = item["c"] {
                let most = bounded(count, path + ".c", 0...Limits.repeaterCopies, "repeater copies") ?? 0
                if copies * most > Limits.repeaterProduct {
                    report(path + ".c", "nested repeaters make more than \(Int(Limits.repeaterProduct)) copies")
                }
            }
            if let transform = item["tr"] { self.transform(transform, path + ".tr") }
        case "gf", "gs":
            if let gradient = item["g"] { self.gradient(gradient, path + ".g") } else { report(path + ".g", "missing") }
        default:
            break
        }
        if let dashes = item["d"], type == "st" || type == "gs" { dashPattern(dashes, path + ".d") }
    }

    /// A stroke's dashes `[{"n": "d"|"g"|"o", "v": property}, …]`. rlottie reads the values in order, so the
    /// offset (`o`) may only come last; dash and gap lengths must be fixed numbers ≥ 0 adding up to at least 1
    /// (a negative length makes rlottie's dasher run without end, tiny ones cut a path into millions of dashes).
    private mutating func dashPattern(_ value: JSONValue, _ path: String) {
        guard let entries = value.arrayValue else { return report(path, "expected an array of dashes") }
        var pattern = 0.0
        for (index, entry) in entries.enumerated() {
            let place = "\(path)[\(index)]"
            guard let dash = entry.objectValue else { return report(place, "expected a dash object") }
            string(dash, "n", place)
            string(dash, "nm", place)
            guard let length = dash["v"] else { continue }
            property(length, place + ".v", .scalar)
            if dash["n"]?.stringValue == "o" {
                if index != entries.count - 1 { report(place + ".n", "the dash offset must come last") }
                continue
            }
            guard let fixed = length.objectValue?["k"]?.doubleValue, fixed >= 0 else {
                return report(place + ".v", "dash and gap lengths must be fixed numbers ≥ 0")
            }
            pattern += fixed
        }
        if pattern > 0 || entries.count > 1, pattern < 1 {
            report(path, "dash and gap lengths add up to \(pattern); at least 1")
        }
    }

    /// A layer's `ks`, a group's `tr` or a repeater's `tr`.
    mutating func transform(_ value: JSONValue, _ path: String) {
        guard let transform = value.objectValue else { return report(path, "expected a transform object") }
        string(transform, "nm", path)
        bool(transform, "hd", path)
        for (key, kind) in Self.transformProperties {
            if let property = transform[key] { self.property(property, "\(path).\(key)", kind) }
        }
        guard let position = transform["p"] else { return }
        if let split = position.objectValue, split["s"]?.boolValue == true {
            // Separate dimensions: {"s": true, "x": {…}, "y": {…}}.
            for key in ["x", "y"] {
                if let axis = split[key] {
                    property(axis, "\(path).p.\(key)", .scalar)
                } else {
                    report("\(path).p.\(key)", "missing")
                }
            }
        } else {
            property(position, path + ".p", .vector)
        }
    }

    /// An animatable property `{"a": 0|1, "k": value or keyframes}` of numbers.
    mutating func property(_ value: JSONValue, _ path: String, _ kind: ValueKind) {
        guard let property = keyed(value, path) else { return }
        guard let content = property["k"] else { return report(path + ".k", "missing") }
        if let frames = keyframeList(content) {
            keyframes(frames, path + ".k") { check, value, place in
                check.numbers(value, place)
                if kind == .vector, value.arrayValue == nil { check.report(place, "expected an array of numbers") }
            }
            return
        }
        numbers(content, path + ".k")
        switch kind {
        case .scalar where content.doubleValue == nil: report(path + ".k", "expected a number")
        case .vector where content.arrayValue == nil: report(path + ".k", "expected an array of numbers")
        default: break
        }
    }

    /// A path property (`sh`'s `ks`, a mask's `pt`): every path with equal counts of `i`, `o` and `v`, and
    /// the same count in every keyframe (rlottie interpolates vertex by vertex).
    mutating func pathProperty(_ value: JSONValue, _ path: String) {
        guard let property = keyed(value, path) else { return }
        guard let content = property["k"] else { return report(path + ".k", "missing") }
        var count: Int?
        let vertices = { (check: inout LottieCheck, shape: JSONValue, place: String) in
            guard let found = check.bezier(shape, place) else { return }
            if let count, count != found {
                check.report(place, "\(found) vertices where the other keyframes have \(count)")
            }
            count = count ?? found
        }
        if let frames = keyframeList(content) {
            keyframes(frames, path + ".k") { check, value, place in
                // Keyframe values of a path are one-element arrays of path objects.
                guard let shapes = value.arrayValue, shapes.count == 1 else {
                    return check.report(place, "expected [path object] (one path)")
                }
                for (index, shape) in shapes.enumerated() { vertices(&check, shape, "\(place)[\(index)]") }
            }
        } else {
            vertices(&self, content, path + ".k")
        }
    }

    /// A gradient `{"p": stops, "k": property}`: every value holds 4 numbers per colour stop, then
    /// optionally 2 per opacity stop.
    private mutating func gradient(_ value: JSONValue, _ path: String) {
        guard let gradient = value.objectValue else { return report(path, "expected a gradient object") }
        guard let stops = integer(gradient, "p", path, in: 1...Limits.gradientStops, required: true) else { return }
        guard let property = gradient["k"], let object = keyed(property, path + ".k") else {
            return report(path + ".k", "missing")
        }
        guard let content = object["k"] else { return report(path + ".k.k", "missing") }
        let stopValues = { (check: inout LottieCheck, value: JSONValue, place: String) in
            check.numbers(value, place)
            guard let count = value.arrayValue?.count else { return check.report(place, "expected an array of stops") }
            if count < 4 * stops || (count - 4 * stops) % 2 != 0 {
                check.report(
                    place, "\(count) numbers do not fit \(stops) colour stops (4 each) and opacity stops (2 each)")
            }
        }
        if let frames = keyframeList(content) {
            keyframes(frames, path + ".k.k", stopValues)
        } else {
            stopValues(&self, content, path + ".k.k")
        }
    }

    /// One path `{"i": [[x, y]…], "o": …, "v": …, "c": bool}`; returns its vertex count.
    private mutating func bezier(_ value: JSONValue, _ path: String) -> Int? {
        guard let shape = value.objectValue else {
            report(path, "expected a path object {\"i\", \"o\", \"v\", \"c\"}")
            return nil
        }
        bool(shape, "c", path)
        var counts: [Int] = []
        for key in ["i", "o", "v"] {
            guard let points = shape[key]?.arrayValue else {
                report("\(path).\(key)", "expected an array of points [x, y]")
                return nil
            }
            for (index, point) in points.enumerated() {
                guard let pair = point.arrayValue, pair.count >= 2,
                    pair.allSatisfy({ ($0.doubleValue.map { abs($0) <= Limits.number }) ?? false })
                else {
                    report("\(path).\(key)[\(index)]", "expected a point [x, y] within ±\(Int(Limits.number))")
                    return nil
                }
            }
            counts.append(points.count)
        }
        guard counts[0] == counts[2], counts[1] == counts[2] else {
            report(path, "i, o and v must have as many points each (\(counts[0]), \(counts[1]), \(counts[2]))")
            return nil
        }
        vertexCount += counts[2]
        if vertexCount > Limits.vertices { report(path, "more than \(Limits.vertices) path vertices in the file") }
        return counts[2]
    }

    /// The property object itself; refuses expressions (rlottie ignores them, so the motion would be wrong).
    private mutating func keyed(_ value: JSONValue, _ path: String) -> JSONObject? {
        guard let property = value.objectValue else {
            report(path, "expected a property object {\"a\", \"k\"}")
            return nil
        }
        if property["x"]?.stringValue != nil {
            report(path + ".x", "expressions are not supported by rlottie; bake them into keyframes")
            return nil
        }
        integer(property, "a", path, in: 0...1)
        return property
    }

    /// The keyframes when `content` is an array of objects.
    private func keyframeList(_ content: JSONValue) -> [JSONValue]? {
        guard let array = content.arrayValue, let first = array.first, first.objectValue != nil else { return nil }
        return array
    }

    /// Keyframes: increasing times `t`, start and end values checked by `values`, easing handles.
    private mutating func keyframes(
        _ frames: [JSONValue], _ path: String, _ values: (inout LottieCheck, JSONValue, String) -> Void
    ) {
        var previous: Double?
        for (index, frame) in frames.enumerated() {
            let place = "\(path)[\(index)]"
            guard problems.count < Limits.problems else { return }
            keyframeCount += 1
            guard keyframeCount <= Limits.keyframes else {
                return report(place, "more than \(Limits.keyframes) keyframes")
            }
            guard let keyframe = frame.objectValue else {
                report(place, "expected a keyframe object")
                continue
            }
            if let time = number(keyframe, "t", place, required: true) {
                if let previous, time <= previous {
                    report(place + ".t", "keyframe times must increase (\(time) after \(previous))")
                }
                previous = time
            }
            integer(keyframe, "h", place, in: 0...1)
            for key in ["s", "e"] {
                if let value = keyframe[key] { values(&self, value, "\(place).\(key)") }
            }
            for key in ["ti", "to"] {
                if let tangent = keyframe[key] { numbers(tangent, "\(place).\(key)") }
            }
            for key in ["i", "o"] {
                guard let handle = keyframe[key] else { continue }
                guard let object = handle.objectValue, let x = object["x"], let y = object["y"] else {
                    report("\(place).\(key)", "expected an easing handle {\"x\", \"y\"}")
                    continue
                }
                numbers(x, "\(place).\(key).x")
                numbers(y, "\(place).\(key).y")
            }
            if let name = keyframe["n"], name.stringValue == nil,
                name.arrayValue?.allSatisfy({ $0.stringValue != nil }) != true
            {
                report(place + ".n", "expected a string or an array of strings")
            }
        }
    }

    /// A number or an array of at most `Limits.values` numbers, each within ±`Limits.number`.
    mutating func numbers(_ value: JSONValue, _ path: String) {
        let valid = { (number: Double) in abs(number) <= Limits.number }
        if let number = value.doubleValue {
            if !valid(number) { report(path, "\(number) is beyond ±\(Int(Limits.number))") }
            return
        }
        guard let array = value.arrayValue, array.count <= Limits.values,
            array.allSatisfy({ $0.doubleValue.map(valid) ?? false })
        else {
            return report(path, "expected a number or up to \(Limits.values) numbers within ±\(Int(Limits.number))")
        }
    }

    /// Every number a property can take lies in `range`; returns the largest.
    @discardableResult
    private mutating func bounded(_ value: JSONValue, _ path: String, _ range: ClosedRange<Double>, _ what: String)
        -> Double?
    {
        var numbers: [Double] = []
        func collect(_ value: JSONValue) {
            switch value {
            case .number(let number): numbers.append(number)
            case .array(let array): array.forEach(collect)
            case .object(let object): for key in ["k", "s", "e"] { if let inner = object[key] { collect(inner) } }
            default: break
            }
        }
        collect(value)
        guard let worst = numbers.first(where: { !range.contains($0) }) else { return numbers.max() }
        report(path, "\(what) \(worst) outside \(Int(range.lowerBound))…\(Int(range.upperBound))")
        return nil
    }
}
