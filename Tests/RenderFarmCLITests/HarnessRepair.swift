import Foundation

/// Makes a generated job valid the way the brief allows without plugin-specific rules: run
/// `renderfarm validate`, and for every parameter or field its messages name (`layers[1].params.rate`)
/// fall back to the default (or drop the field), generate a value the message says is missing, or
/// drop the layer after a few tries; then try again.
struct HarnessRepair {
    let generator: HarnessGenerator
    let binary: HarnessBinary
    static let rounds = 12

    /// A location in a job as messages give it, split: `layers`, 1, `group`, 0, `params`, `size`.
    enum Token: Equatable {
        case key(String)
        case index(Int)
    }

    /// The locations (`layers[1].params.rate`) and texts of `validate`'s error lines.
    static func problems(_ stderr: String) -> [(location: String, message: String)] {
        stderr.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("renderfarm: error: "), let file = line.range(of: HarnessJobFolder.jobFile + ": ")
            else {
                return nil
            }
            let rest = line[file.upperBound...]
            guard let colon = rest.range(of: ": ") else { return (String(rest), "") }
            return (String(rest[..<colon.lowerBound]), String(rest[colon.upperBound...]))
        }
    }

    static func tokens(_ location: String) -> [Token] {
        var tokens: [Token] = []
        var word = ""
        var index: String?
        for character in location {
            switch character {
            case ".":
                if !word.isEmpty { tokens.append(.key(word)) }
                word = ""
            case "[":
                if !word.isEmpty { tokens.append(.key(word)) }
                word = ""
                index = ""
            case "]":
                if let text = index { tokens.append(Int(text).map(Token.index) ?? .key(text)) }
                index = nil
            default:
                if index != nil { index?.append(character) } else { word.append(character) }
            }
        }
        if !word.isEmpty { tokens.append(.key(word)) }
        return tokens
    }

    /// Writes `folder` into `directory` and validates it until it passes; false when it cannot be made
    /// valid in `rounds` rounds.
    func repair(_ folder: inout HarnessJobFolder, in directory: URL, random: inout FuzzRandom) throws -> Bool {
        var attempts: [String: Int] = [:]
        for _ in 0..<Self.rounds {
            try folder.write(into: directory)
            let result = try binary.run(["validate", HarnessJobFolder.jobFile], in: directory)
            if result.status == 0 { return true }
            let problems = Self.problems(result.stderr)
            guard !problems.isEmpty else { return false }
            var changed = false
            for problem in problems {
                let outcome = try fallBack(problem.location, in: &folder, attempts: &attempts, random: &random)
                changed = changed || outcome != .unchanged
                if outcome == .structural { break }
            }
            guard changed else { return false }
        }
        return false
    }

    enum Outcome { case unchanged, changed, structural }

    /// Applies the fallback for one message's location.
    func fallBack(
        _ location: String, in folder: inout HarnessJobFolder, attempts: inout [String: Int],
        random: inout FuzzRandom
    ) throws -> Outcome {
        let tokens = Self.tokens(location)
        guard tokens.first == .key("layers"), case .index(let first)? = tokens.dropFirst().first else {
            return fallBackOutsideLayers(tokens, location: location, in: &folder)
        }
        var path = [first]
        var rest = Array(tokens.dropFirst(2))
        while rest.count >= 2, rest[0] == .key("group"), case .index(let child) = rest[1] {
            path.append(child)
            rest.removeFirst(2)
        }
        guard var layer = folder.job.layer(path) else { return .unchanged }
        let tries = attempts[location, default: 0] + 1
        attempts[location] = tries
        guard tries <= 3, case .key(let field)? = rest.first, field != "effect", field != "group" else {
            removeLayer(path, from: &folder.job)
            return .structural
        }
        guard field == "params" else {
            layer[field] = nil
            folder.job.setLayer(path, layer)
            return .changed
        }
        let effect = layer["effect"]?.stringValue ?? ""
        guard case .key(let name)? = rest.dropFirst().first,
            let parameter = generator.catalog.plugin(effect)?.parameter(name)
        else {
            layer["params"] = .object(try generator.params(effect, in: &folder, random: &random))
            folder.job.setLayer(path, layer)
            return .changed
        }
        if let current = layer["params"]?[name] {
            let fallback = parameter.defaultValue
            layer["params"]?[name] = fallback != nil && fallback != current ? fallback : nil
        } else if let value = try generator.value(for: parameter, of: effect, in: &folder, random: &random) {
            layer["params"]?[name] = value
        } else {
            removeLayer(path, from: &folder.job)
            return .structural
        }
        folder.job.setLayer(path, layer)
        return .changed
    }

    /// A top-level field falls back to its default (is removed); variants are replaced by their first row.
    private func fallBackOutsideLayers(_ tokens: [Token], location: String, in folder: inout HarnessJobFolder)
        -> Outcome
    {
        let keys = tokens.compactMap { token -> String? in
            if case .key(let key) = token { return key }
            return nil
        }
        if keys.first == "variants" || location.contains(".csv:") && folder.hasVariants {
            Self.dropVariants(&folder)
            return .structural
        }
        if keys.first == "layers" {
            guard let count = folder.job["layers"]?.arrayValue?.count, count > 1 else { return .unchanged }
            removeLayer([count - 1], from: &folder.job)
            return .structural
        }
        guard let top = keys.first, top != "duration", top != "version" else {
            return .unchanged
        }
        let keyPath = keys.prefix(2).joined(separator: ".")
        guard folder.job.value(at: keyPath) != nil else { return .unchanged }
        folder.job.set(keyPath, nil)
        return .changed
    }

    /// Removes a layer; an emptied group goes too, and an emptied job gets a plain gradient.
    func removeLayer(_ path: HarnessLayerPath, from job: inout HarnessJSON) {
        job.setLayer(path, nil)
        if path.count > 1, job.layer(Array(path.dropLast()))?["group"]?.arrayValue?.isEmpty == true {
            removeLayer(Array(path.dropLast()), from: &job)
        }
        if job["layers"]?.arrayValue?.isEmpty != false {
            job["layers"] = .array([.object(["effect": .string("gradient"), "params": .object([:])])])
        }
    }

    /// Puts each variant placeholder's first-row value in its place and removes `variants`.
    static func dropVariants(_ folder: inout HarnessJobFolder) {
        guard let rowsPath = folder.job.value(at: "variants.rows")?.stringValue,
            case .rows(let rows)? = folder.assets[rowsPath], let first = rows.rows.first
        else {
            folder.job["variants"] = nil
            return
        }
        for path in folder.job.effectLayerPaths {
            guard var layer = folder.job.layer(path), let params = layer["params"]?.objectValue else { continue }
            for key in params.keys.sorted() {
                guard let text = params[key]?.stringValue, text.hasPrefix("{{"), text.hasSuffix("}}") else { continue }
                let column = String(text.dropFirst(2).dropLast(2))
                if let index = rows.header.firstIndex(of: column), first.indices.contains(index) {
                    layer["params"]?[key] = first[index]
                }
            }
            folder.job.setLayer(path, layer)
        }
        folder.job["variants"] = nil
    }
}
