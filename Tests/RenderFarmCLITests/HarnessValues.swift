import Foundation

/// Parameter values, drawn from a parameter's table row: its type, range, choices and default, the
/// corpus's examples for `json` parameters, and `HarnessPluginTable` for files and grammars.
extension HarnessGenerator {
    /// Canvas size in points and length in seconds of the job being generated.
    struct Frame {
        var width: Double
        var height: Double
        var duration: Double

        init(_ job: HarnessJSON) {
            width = job.value(at: "canvas.width")?.numberValue ?? 64
            height = job.value(at: "canvas.height")?.numberValue ?? 64
            duration = job["duration"]?.numberValue ?? 1
        }

        var side: Double { max(width, height) }
    }

    static let words = [
        "Bob", "Robert", "aiko", "LIVE", "Gift ×3", "مرحبا", "さくら", "🎁 win", "x", "Ok Go", "שלום",
    ]

    /// A value for `parameter` of `effect`; nil when there is nothing to give (a `json` parameter
    /// without a default or an example). Files it names are added to `folder`.
    func value(
        for parameter: HarnessCatalog.Parameter, of effect: String, in folder: inout HarnessJobFolder,
        random: inout FuzzRandom
    ) throws -> HarnessJSON? {
        let frame = Frame(folder.job)
        let key = "\(effect).\(parameter.name)"
        if let kind = HarnessPluginTable.files[key], library.has(kind) {
            let asset = try library.make(kind, random: &random)
            return .string(folder.add(.file(kind, asset.data), ext: asset.ext))
        }
        switch parameter.type {
        case "number", "integer": return number(parameter, frame: frame, random: &random)
        case "bool": return .bool(random.chance(0.5))
        case "color": return .string(random.colour())
        case "point": return point(parameter, frame: frame, random: &random)
        case "rect":
            return .object([
                "x": .rounded(random.number(-0.1...0.7) * frame.width, places: 1),
                "y": .rounded(random.number(-0.1...0.7) * frame.height, places: 1),
                "width": .rounded(random.number(0.1...1) * frame.width, places: 1),
                "height": .rounded(random.number(0.1...1) * frame.height, places: 1),
            ])
        case "size":
            guard random.chance(0.3) else { return number(parameter, frame: frame, random: &random) }
            return .array([
                number(parameter, frame: frame, random: &random),
                number(parameter, frame: frame, random: &random),
            ])
        case "enum": return parameter.choices.isEmpty ? nil : .string(random.pick(parameter.choices))
        case "string": return string(parameter, key: key, frame: frame, random: &random)
        case "number list":
            let top = min(parameter.max ?? frame.duration, frame.duration)
            let bottom = max(parameter.min ?? 0, 0)
            let times = (0..<random.integer(1...6)).map { _ in random.number(bottom...max(bottom, top)) }.sorted()
            return .array(times.map { .rounded($0) })
        case "color list":
            let count = random.integer(max(1, Int(parameter.min ?? 1))...max(1, min(4, Int(parameter.max ?? 4))))
            return .array((0..<count).map { _ in .string(random.colour()) })
        case "events": return try events(parameter, of: effect, in: &folder, random: &random)
        default: return json(parameter, of: effect, frame: frame, random: &random)
        }
    }

    /// Within the table's range, mostly near the default (up to three times it) or the canvas size;
    /// one time in ten the range's lower end.
    private func number(_ parameter: HarnessCatalog.Parameter, frame: Frame, random: inout FuzzRandom)
        -> HarnessJSON
    {
        let low = parameter.min ?? -1_000_000
        let high = parameter.max ?? 1_000_000
        let fallback = parameter.defaultValue?.numberValue ?? parameter.defaultValue?.arrayValue?.first?.numberValue
        var softHigh = fallback.map { $0 != 0 ? abs($0) * 3 : frame.side } ?? frame.side
        var softLow = low >= 0 ? low : -softHigh
        softHigh = min(high, max(softHigh, low + 1))
        softLow = max(low, min(softLow, softHigh))
        var drawn: Double
        switch random.next(10) {
        case 0: drawn = low.isFinite && low > -1_000_000 ? low : softLow
        case 1: drawn = fallback ?? softLow
        default: drawn = random.number(softLow...softHigh)
        }
        drawn = min(high, max(low, drawn))
        return parameter.type == "integer" ? .number(drawn.rounded()) : .rounded(drawn)
    }

    private func point(_ parameter: HarnessCatalog.Parameter, frame: Frame, random: inout FuzzRandom) -> HarnessJSON {
        let low = parameter.min ?? -100_000
        let high = parameter.max ?? 100_000
        if high - low <= 20 {
            let centre = parameter.defaultValue?.arrayValue?.compactMap(\.numberValue) ?? [0, 0]
            return .array(centre.map { .rounded(min(high, max(low, $0 + random.number(-1...1)))) })
        }
        return .array([
            .rounded(min(high, max(low, random.number(-0.1...1.1) * frame.width)), places: 1),
            .rounded(min(high, max(low, random.number(-0.1...1.1) * frame.height)), places: 1),
        ])
    }

    private func string(
        _ parameter: HarnessCatalog.Parameter, key: String, frame: Frame, random: inout FuzzRandom
    ) -> HarnessJSON {
        switch HarnessPluginTable.grammars[key] {
        case .svgPath:
            var path = "M \(Int(random.number(0...frame.width))) \(Int(random.number(0...frame.height)))"
            for _ in 0..<random.integer(2...4) {
                let x = Int(random.number(-5...frame.width + 5))
                let y = Int(random.number(-5...frame.height + 5))
                path += random.chance(0.3) ? " Q \(x / 2) \(y) \(x) \(y / 2 + 3)" : " L \(x) \(y)"
            }
            return .string(path + (random.chance(0.7) ? " Z" : ""))
        case .words:
            return .string((0..<random.integer(1...3)).map { _ in random.pick(Self.words) }.joined(separator: " "))
        case nil:
            let examples = corpus.values[key, default: []].compactMap(\.stringValue)
            if !examples.isEmpty, random.chance(0.5) { return .string(random.pick(examples)) }
            if let fallback = parameter.defaultValue, random.chance(0.5) { return fallback }
            return .string(random.pick(Self.words))
        }
    }

    /// An example of the corpus or the default, scaled to the canvas and perturbed.
    private func json(_ parameter: HarnessCatalog.Parameter, of effect: String, frame: Frame, random: inout FuzzRandom)
        -> HarnessJSON?
    {
        let examples = corpus.examples(effect, parameter.name)
        if !examples.isEmpty, random.chance(0.8) || parameter.defaultValue == nil {
            return HarnessCorpus.adapt(random.pick(examples), width: frame.width, random: &random)
        }
        guard let fallback = parameter.defaultValue else { return nil }
        return HarnessCorpus.adapt(fallback, width: frame.width, random: &random, scale: false)
    }
}
