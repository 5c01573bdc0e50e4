import EffectKit

/// One thing wrong with a Lottie file: where (`layers[2].shapes[0].it[1].c`) and what.
struct LottieProblem: Sendable, Equatable, CustomStringConvertible {
    var path: String
    var message: String

    var description: String { path.isEmpty ? message : "\(path): \(message)" }
}

/// Why a file was refused: every problem found (at most `LottieCheck.Limits.problems`).
struct LottieRefusal: Error, Equatable {
    var problems: [LottieProblem]
}

/// What the check learned about a file it accepted.
struct LottieFacts: Sendable, Equatable {
    /// Composition size in Lottie pixels.
    var width: Int
    var height: Int
    var frameRate: Double
    /// Frames in one play: ⌊op⌋ − ⌊ip⌋, as rlottie counts them (it truncates both).
    var frameCount: Int
}

/// Checks a Lottie (bodymovin) document before rlottie sees it.
///
/// rlottie is not hardened against hostile input: cycles in parenting or precomps recurse without end,
/// mismatched vertex or gradient stop counts read out of bounds, a repeater with 10⁸ copies runs for ever.
/// The check walks every key rlottie reads and requires its JSON type (integers where rlottie reads an
/// int), bounds every count and number, follows every reference, and refuses what rlottie cannot draw
/// (expressions, text, images, 3D layers, layer effects), so the animation is not silently wrong either.
/// Keys rlottie does not read are ignored. Problems carry their place in the file.
struct LottieCheck {
    /// Budgets for a whole file; a hand-made gift animation uses a small fraction of each.
    enum Limits {
        static let side = 8192
        static let frameRate = 240.0
        static let frames = 100_000
        static let layers = 500
        static let shapes = 10_000
        static let keyframes = 100_000
        static let vertices = 200_000
        static let values = 1024
        static let number = 1e6
        static let precompDepth = 16
        static let repeaterCopies = 100.0
        static let repeaterProduct = 1000.0
        static let starPoints = 100.0
        static let gradientStops = 64
        /// The most problems reported for one file.
        static let problems = 10
    }

    var problems: [LottieProblem] = []
    var layerCount = 0
    var shapeCount = 0
    var keyframeCount = 0
    var vertexCount = 0

    /// The facts of an accepted document, or every problem found (at most `Limits.problems`).
    static func check(_ document: JSONValue) -> Result<LottieFacts, LottieRefusal> {
        var check = LottieCheck()
        let facts = check.document(document)
        if let facts, check.problems.isEmpty { return .success(facts) }
        let problems = check.problems.isEmpty ? [LottieProblem(path: "", message: "not a Lottie file")] : check.problems
        return .failure(LottieRefusal(problems: problems))
    }

    mutating func report(_ path: String, _ message: String) {
        guard problems.count < Limits.problems else { return }
        problems.append(LottieProblem(path: path, message: message))
    }

    // MARK: Composition

    private mutating func document(_ value: JSONValue) -> LottieFacts? {
        guard let root = value.objectValue else {
            report("", "expected a Lottie object {\"v\", \"fr\", \"ip\", \"op\", \"w\", \"h\", \"layers\"}")
            return nil
        }
        guard root["v"]?.stringValue != nil else {
            report("v", root["v"] == nil ? "missing (the bodymovin version string)" : "expected a string")
            return nil
        }
        let width = integer(root, "w", "", in: 1...Limits.side, required: true)
        let height = integer(root, "h", "", in: 1...Limits.side, required: true)
        let rate = number(root, "fr", "", required: true)
        let inPoint = number(root, "ip", "", required: true)
        let outPoint = number(root, "op", "", required: true)
        var frameCount: Int?
        if let rate, !(rate > 0 && rate <= Limits.frameRate) {
            report("fr", "\(rate) is outside 0…\(Int(Limits.frameRate)) frames per second (exclusive of 0)")
        }
        if let inPoint, inPoint < 0 {
            report("ip", "\(inPoint) is negative (rlottie counts frames from 0)")
        } else if let inPoint, let outPoint {
            let count = Int(outPoint.rounded(.towardZero)) - Int(inPoint.rounded(.towardZero))
            if count < 1 || count > Limits.frames {
                report("op", "the animation must last 1…\(Limits.frames) frames (op − ip is \(count))")
            } else {
                frameCount = count
            }
        }
        if let markers = root["markers"] {
            list(markers, "markers") { check, marker, path in
                guard let marker = marker.objectValue else { return check.report(path, "expected an object") }
                check.string(marker, "cm", path)
                check.number(marker, "tm", path)
                check.number(marker, "dr", path)
            }
        }
        let precomps = assets(root["assets"])
        guard let layers = root["layers"] else {
            report("layers", "missing")
            return nil
        }
        layerList(layers, "layers", precomps: precomps, depth: 0, visiting: [])
        guard let width, let height, let rate, let frameCount else { return nil }
        return LottieFacts(width: width, height: height, frameRate: rate, frameCount: frameCount)
    }

    /// Precomposition assets by id (their layers are checked where they are used); image assets refused.
    private mutating func assets(_ value: JSONValue?) -> [String: (layers: JSONValue, path: String)] {
        guard let value else { return [:] }
        var precomps: [String: (layers: JSONValue, path: String)] = [:]
        list(value, "assets") { check, asset, path in
            guard let asset = asset.objectValue else { return check.report(path, "expected an object") }
            check.integer(asset, "w", path, in: 0...Limits.side)
            check.integer(asset, "h", path, in: 0...Limits.side)
            if asset["p"] != nil || asset["u"] != nil || asset["e"] != nil {
                return check.report(
                    path,
                    "image assets are not supported (rlottie would read files beside the animation or "
                        + "decode embedded images without limits); use shapes")
            }
            guard let layers = asset["layers"] else { return }
            let id: String
            switch asset["id"] {
            case .string(let text)?: id = text
            case .number(let number)? where number.rounded() == number && abs(number) < 1e9: id = String(Int(number))
            default: return check.report(path + ".id", "expected a string (the precomp's id)")
            }
            guard precomps[id] == nil else { return check.report(path + ".id", "duplicate asset id \"\(id)\"") }
            precomps[id] = (layers, path + ".layers")
        }
        return precomps
    }

    // MARK: Layers

    /// A list of layers: each layer, then parenting (every parent exists, no cycle).
    private mutating func layerList(
        _ value: JSONValue, _ path: String, precomps: [String: (layers: JSONValue, path: String)], depth: Int,
        visiting: Set<String>
    ) {
        guard let layers = value.arrayValue else { return report(path, "expected an array of layers") }
        var parents: [Int: Int] = [:]
        var indices: Set<Int> = []
        for (index, layer) in layers.enumerated() {
            let place = "\(path)[\(index)]"
            layerCount += 1
            guard layerCount <= Limits.layers else { return report(place, "more than \(Limits.layers) layers") }
            guard let object = layer.objectValue else {
                report(place, "expected a layer object")
                continue
            }
            self.layer(object, place, precomps: precomps, depth: depth, visiting: visiting)
            if let ind = integer(object, "ind", place, in: -1_000_000...1_000_000) {
                if !indices.insert(ind).inserted { report(place + ".ind", "duplicate layer index \(ind)") }
                if let parent = integer(object, "parent", place, in: -1_000_000...1_000_000) { parents[ind] = parent }
            } else if object["parent"] != nil {
                report(place + ".parent", "a layer with a parent needs its own \"ind\"")
            }
        }
        for (child, parent) in parents.sorted(by: { $0.key < $1.key }) {
            guard indices.contains(parent) else {
                report(path, "layer \(child)'s parent \(parent) is not a layer of this list")
                continue
            }
            var seen: Set<Int> = [child]
            var current = parent
            while let next = parents[current] {
                guard seen.insert(current).inserted else {
                    report(path, "layer \(child)'s parents form a cycle")
                    break
                }
                current = next
            }
        }
    }

    private mutating func layer(
        _ layer: JSONObject, _ path: String, precomps: [String: (layers: JSONValue, path: String)], depth: Int,
        visiting: Set<String>
    ) {
        string(layer, "nm", path)
        let type = integer(layer, "ty", path, in: 0...5, required: true)
        switch type {
        case 2: report(path + ".ty", "image layers are not supported; use shapes")
        case 5: report(path + ".ty", "text layers are not supported by rlottie; convert the text to shapes")
        default: break
        }
        if integer(layer, "ddd", path, in: 0...1) == 1 {
            report(path + ".ddd", "3D layers are not supported by rlottie")
        }
        if let effects = layer["ef"], effects.arrayValue?.isEmpty != true {
            report(path + ".ef", "layer effects are not supported by rlottie (they would be skipped)")
        }
        if let stretch = number(layer, "sr", path), !(stretch > 0 && stretch <= 100) {
            report(path + ".sr", "time stretch \(stretch) is outside 0…100 (exclusive of 0)")
        }
        for key in ["ip", "op", "st"] { number(layer, key, path) }
        for key in ["bm", "tt", "ao"] { integer(layer, key, path, in: 0...64) }
        for key in ["w", "h", "sw", "sh"] { integer(layer, key, path, in: 0...Limits.side) }
        for key in ["hd", "hasMask"] { bool(layer, key, path) }
        if let color = layer["sc"] {
            if color.stringValue == nil { report(path + ".sc", "expected a colour string \"#rrggbb\"") }
        }
        if let remap = layer["tm"] { property(remap, path + ".tm", .scalar) }
        if let transform = layer["ks"] {
            self.transform(transform, path + ".ks")
        } else {
            report(path + ".ks", "missing (every layer needs a transform)")
        }
        if let masks = layer["masksProperties"] {
            list(masks, path + ".masksProperties") { check, mask, place in check.mask(mask, place) }
        }
        if let shapes = layer["shapes"] {
            list(shapes, path + ".shapes") { check, item, place in check.shapeItem(item, place, repeat: 1, depth: 0) }
        }
        if let reference = layer["refId"] {
            guard let id = reference.stringValue else { return report(path + ".refId", "expected a string") }
            guard let precomp = precomps[id] else {
                return report(path + ".refId", "no precomp asset has the id \"\(id)\"")
            }
            guard !visiting.contains(id) else {
                return report(path + ".refId", "precomp \"\(id)\" contains itself")
            }
            guard depth < Limits.precompDepth else {
                return report(path + ".refId", "precomps nested more than \(Limits.precompDepth) deep")
            }
            layerList(
                precomp.layers, precomp.path, precomps: precomps, depth: depth + 1, visiting: visiting.union([id]))
        } else if type == 0 {
            report(path + ".refId", "missing (a precomp layer names its asset)")
        }
    }

    private mutating func mask(_ value: JSONValue, _ path: String) {
        guard let mask = value.objectValue else { return report(path, "expected a mask object") }
        bool(mask, "inv", path)
        string(mask, "mode", path)
        string(mask, "nm", path)
        if let shape = mask["pt"] { pathProperty(shape, path + ".pt") }
        if let opacity = mask["o"] { property(opacity, path + ".o", .scalar) }
        if let expansion = mask["x"] { property(expansion, path + ".x", .scalar) }
    }

    // MARK: Typed members

    @discardableResult
    mutating func integer(
        _ object: JSONObject, _ key: String, _ path: String, in range: ClosedRange<Int>, required: Bool = false
    ) -> Int? {
        let place = path.isEmpty ? key : "\(path).\(key)"
        guard let value = object[key] else {
            if required { report(place, "missing") }
            return nil
        }
        guard let number = value.doubleValue, number.rounded() == number, abs(number) <= 2_000_000_000 else {
            report(place, "expected an integer")
            return nil
        }
        guard range.contains(Int(number)) else {
            report(place, "\(Int(number)) is outside \(range.lowerBound)…\(range.upperBound)")
            return nil
        }
        return Int(number)
    }

    @discardableResult
    mutating func number(_ object: JSONObject, _ key: String, _ path: String, required: Bool = false) -> Double? {
        let place = path.isEmpty ? key : "\(path).\(key)"
        guard let value = object[key] else {
            if required { report(place, "missing") }
            return nil
        }
        guard let number = value.doubleValue else {
            report(place, "expected a number")
            return nil
        }
        guard abs(number) <= Limits.number else {
            report(place, "\(number) is beyond ±\(Int(Limits.number))")
            return nil
        }
        return number
    }

    mutating func string(_ object: JSONObject, _ key: String, _ path: String) {
        if let value = object[key], value.stringValue == nil { report("\(path).\(key)", "expected a string") }
    }

    mutating func bool(_ object: JSONObject, _ key: String, _ path: String) {
        if let value = object[key], value.boolValue == nil { report("\(path).\(key)", "expected true or false") }
    }

    /// Calls `body` for each element of an array, with its place.
    mutating func list(
        _ value: JSONValue, _ path: String, _ body: (inout LottieCheck, JSONValue, String) -> Void
    ) {
        guard let array = value.arrayValue else { return report(path, "expected an array") }
        for (index, element) in array.enumerated() {
            guard problems.count < Limits.problems else { return }
            body(&self, element, "\(path)[\(index)]")
        }
    }
}
