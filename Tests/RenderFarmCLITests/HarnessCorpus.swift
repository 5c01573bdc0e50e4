import Foundation

/// Example parameter values, harvested from the layers of jobs/*.json and from the JSON examples of
/// the documentation: the shapes of the `json` parameters (a gradient fill, physics items, a text
/// banner) come from here, so the harness needs no plugin-specific knowledge of them.
struct HarnessCorpus: Sendable {
    /// Values by `effect.parameter`, in the order found.
    var values: [String: [HarnessJSON]] = [:]

    /// The examples of `effect.parameter`.
    func examples(_ effect: String, _ parameter: String) -> [HarnessJSON] { values["\(effect).\(parameter)"] ?? [] }

    static func load() -> HarnessCorpus {
        var corpus = HarnessCorpus()
        let root = Binary.packageRoot
        let fileManager = FileManager.default
        let jobs = root.appendingPathComponent("jobs")
        for name in ((try? fileManager.contentsOfDirectory(atPath: jobs.path)) ?? []).sorted()
        where name.hasSuffix(".json") {
            if let data = try? Data(contentsOf: jobs.appendingPathComponent(name)), let job = HarnessJSON.parse(data) {
                corpus.harvest(job)
            }
        }
        let sources = root.appendingPathComponent("Sources")
        let articles = (fileManager.enumerator(atPath: sources.path)?.allObjects as? [String] ?? [])
            .filter { $0.contains(".docc/") && $0.hasSuffix(".md") }.sorted()
        for article in articles {
            guard let text = try? String(contentsOf: sources.appendingPathComponent(article), encoding: .utf8) else {
                continue
            }
            for block in text.components(separatedBy: "```json").dropFirst() {
                guard let body = block.components(separatedBy: "```").first,
                    let value = HarnessJSON.parse(Data(body.utf8))
                else { continue }
                corpus.harvest(value)
            }
        }
        return corpus
    }

    /// Adds the parameters of every `{"effect", "params"}` object inside `value`.
    private mutating func harvest(_ value: HarnessJSON) {
        switch value {
        case .array(let list): list.forEach { harvest($0) }
        case .object(let object):
            if let effect = object["effect"]?.stringValue, let params = object["params"]?.objectValue {
                for key in params.keys.sorted() {
                    guard let parameter = params[key], !parameter.text.contains("{{") || effect == "text" else {
                        continue
                    }
                    values["\(effect).\(key)", default: []].append(parameter)
                }
            }
            for key in object.keys.sorted() { harvest(object[key] ?? .null) }
        default: break
        }
    }

    /// An example scaled from the 375-point-wide canvases of the examples to `width`, and perturbed:
    /// every number above 2 (a coordinate, a size, a radius) is scaled, then about a third of the
    /// numbers and colours are changed and list elements dropped or repeated.
    static func adapt(_ value: HarnessJSON, width: Double, random: inout FuzzRandom, scale: Bool = true)
        -> HarnessJSON
    {
        switch value {
        case .number(let number):
            var result = scale && abs(number) > 2 ? number * width / 375 : number
            if random.chance(0.3) { result *= random.number(0.5...1.5) }
            if number == number.rounded() {
                result = result.rounded()
                if number >= 1 { result = max(1, result) }
            }
            return .rounded(result)
        case .string(let string):
            let isColour = string.hasPrefix("#") && [7, 9].contains(string.count)
            return isColour && random.chance(0.3) ? .string(random.colour()) : value
        case .array(let list):
            var adapted = list.map { adapt($0, width: width, random: &random, scale: scale) }
            let structural = adapted.count > 1 && adapted.allSatisfy { $0.objectValue != nil }
            if structural && random.chance(0.2) {
                adapted.remove(at: random.next(adapted.count))
            } else if structural && random.chance(0.1) {
                adapted.append(adapted[random.next(adapted.count)])
            }
            return .array(adapted)
        case .object(let object):
            var adapted: [String: HarnessJSON] = [:]
            for key in object.keys.sorted() {
                adapted[key] = adapt(object[key] ?? .null, width: width, random: &random, scale: scale)
            }
            return .object(adapted)
        default: return value
        }
    }
}
