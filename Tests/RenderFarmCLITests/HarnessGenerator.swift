import Foundation

/// Generates small jobs over every installed plugin and every host field (timing, opacity, blend,
/// transform, masks, groups, keyframes, canvas, seed, fps, variants, event logs, assets, sound),
/// deterministically from a `FuzzRandom`. Jobs are not checked here: `HarnessRepair` runs
/// `renderfarm validate` and falls back to defaults where it refuses.
struct HarnessGenerator: Sendable {
    let catalog: HarnessCatalog
    let corpus: HarnessCorpus
    let library: HarnessAssetLibrary

    static let blendModes = [
        "normal", "multiply", "screen", "overlay", "darken", "lighten", "color-dodge", "color-burn", "hard-light",
        "soft-light", "difference", "exclusion", "add",
    ]
    static let timings = [
        "linear", "easeIn", "easeOut", "easeInEaseOut", "default", "ease-in-out", "easeOutBack", "easeInOutExpo",
    ]
    static let frameRates: [Double] = [5, 8, 10, 12, 15, 24, 25, 30]

    /// The plugins jobs are made of: every installed one whose files the library can make.
    var effects: [String] {
        catalog.plugins.map(\.id).filter { id in
            HarnessPluginTable.files.filter {
                $0.key.hasPrefix(id + ".") && !HarnessPluginTable.optionalFiles.contains($0.key)
            }
            .allSatisfy { library.has($0.value) }
        }
    }

    /// A new job folder.
    func job(random: inout FuzzRandom) throws -> HarnessJobFolder {
        var folder = HarnessJobFolder(job: .object([:]))
        let fps = random.pick(Self.frameRates)
        let width = Double(random.integer(32...96))
        let height = Double(random.integer(32...96))
        var canvas: [String: HarnessJSON] = [
            "width": .number(width), "height": .number(height),
            "scale": .number(width * height <= 48 * 48 && random.chance(0.2) ? 2 : 1),
        ]
        if random.chance(0.7) { canvas["background"] = .string(random.colour()) }
        var output: [String: HarnessJSON] = ["dir": .string(HarnessJobFolder.outputDirectory)]
        if random.chance(0.2) { output["compression"] = .number(Double(random.integer(0...9))) }
        if random.chance(0.1) { output["duplicates"] = .string("link") }
        folder.job = .object([
            "version": .number(1), "name": .string("job-" + random.pick(["a", "b", "c", "d"])),
            "seed": .number(Double(random.next(1_000_000))), "canvas": .object(canvas), "fps": .number(fps),
            "duration": .rounded(Double(random.integer(4...12)) / fps, places: 3), "output": .object(output),
            "layers": .array([]),
        ])
        for index in 0..<random.integer(1...4) {
            folder.job.insertLayer(try layer(depth: 0, in: &folder, random: &random), into: [], at: index)
        }
        for list in folder.job.listPaths where random.chance(0.25) {
            addMask(in: list, to: &folder.job, random: &random)
        }
        if random.chance(0.3) { try addVariants(to: &folder, random: &random) }
        if random.chance(0.2) { try addAudio(to: &folder, random: &random) }
        return folder
    }

    /// An effect layer, or one time in five (above the deepest level) a group of one to three.
    func layer(depth: Int, in folder: inout HarnessJobFolder, random: inout FuzzRandom) throws -> HarnessJSON {
        var layer: HarnessJSON
        if depth < 2, random.chance(0.2) {
            var children: [HarnessJSON] = []
            for _ in 0..<random.integer(1...3) {
                children.append(try self.layer(depth: depth + 1, in: &folder, random: &random))
            }
            layer = .object(["group": .array(children)])
        } else {
            let effect = random.pick(effects)
            layer = .object([
                "effect": .string(effect), "params": .object(try params(effect, in: &folder, random: &random)),
            ])
        }
        hostFields(into: &layer, frame: Frame(folder.job), random: &random)
        return layer
    }

    /// Some of the plugin's parameters (each with probability 0.35; required files always).
    func params(_ effect: String, in folder: inout HarnessJobFolder, random: inout FuzzRandom) throws
        -> [String: HarnessJSON]
    {
        var params: [String: HarnessJSON] = [:]
        for parameter in catalog.plugin(effect)?.parameters ?? [] {
            let key = "\(effect).\(parameter.name)"
            let required = HarnessPluginTable.files[key] != nil && !HarnessPluginTable.optionalFiles.contains(key)
            guard random.chance(0.35) || required else { continue }
            params[parameter.name] = try value(for: parameter, of: effect, in: &folder, random: &random)
        }
        return params
    }

    /// The host's fields of a layer or group, each with a small probability.
    func hostFields(into layer: inout HarnessJSON, frame: Frame, random: inout FuzzRandom) {
        let duration = frame.duration
        if random.chance(0.25) { layer["start"] = .rounded(random.number(0...0.6 * duration)) }
        if random.chance(0.15) {
            layer["end"] = .rounded((layer["start"]?.numberValue ?? 0) + random.number(0.1...duration))
        }
        if random.chance(0.1) { layer["speed"] = .number(random.pick([0.5, 0.75, 1.5, 2])) }
        if random.chance(0.1) { layer["loop"] = .rounded(random.number(0.1...duration)) }
        if random.chance(0.25) { layer["opacity"] = opacity(frame: frame, random: &random) }
        if random.chance(0.25) { layer["blend"] = .string(random.pick(Self.blendModes)) }
        if random.chance(0.15) { layer["style"] = style(frame: frame, random: &random) }
        if random.chance(0.1) { layer["motionBlur"] = motionBlur(random: &random) }
        // A transform more often on groups: a group's anchor matters only beside its position, scale or rotation.
        if random.chance(layer["group"] != nil ? 0.5 : 0.25) {
            var transform: [String: HarnessJSON] = [:]
            for field in ["anchor", "position", "scale", "rotation"] where random.chance(0.5) {
                transform[field] = transformValue(field, frame: frame, random: &random)
            }
            // A motion path instead of a position, now and then.
            if transform["position"] == nil, random.chance(0.2) {
                transform["path"] = transformValue("path", frame: frame, random: &random)
            }
            layer["transform"] = .object(transform)
        }
    }

    func opacity(frame: Frame, random: inout FuzzRandom) -> HarnessJSON {
        guard random.chance(0.5) else { return .rounded(random.unit()) }
        return keyframes(frame: frame, random: &random) { $0.chance(0.3) ? .number(1) : .rounded($0.unit()) }
    }

    /// Motion blur: on with its defaults, or a shutter and two to four samples.
    func motionBlur(random: inout FuzzRandom) -> HarnessJSON {
        guard random.chance(0.7) else { return .bool(true) }
        return .object([
            "shutterAngle": .rounded(random.number(30...360), places: 0),
            "shutterPhase": .rounded(random.number(-180...90), places: 0),
            "samples": .number(Double(random.integer(2...4))),
        ])
    }

    /// Layer styles: one to three of the six parts, each with some of its fields, a length sometimes keyframed.
    func style(frame: Frame, random: inout FuzzRandom) -> HarnessJSON {
        let length: (inout FuzzRandom) -> HarnessJSON = { .rounded($0.number(0...8), places: 1) }
        let fraction: (inout FuzzRandom) -> HarnessJSON = { .rounded($0.unit()) }
        func value(_ one: (inout FuzzRandom) -> HarnessJSON, _ random: inout FuzzRandom) -> HarnessJSON {
            random.chance(0.2) ? keyframes(frame: frame, random: &random, value: one) : one(&random)
        }
        var style: [String: HarnessJSON] = [:]
        for part in random.sample(
            ["dropShadow", "outerGlow", "innerGlow", "stroke", "blur", "adjust"], random.integer(1...3))
        {
            var fields: [String: HarnessJSON] = [:]
            switch part {
            case "blur":
                style[part] = value(length, &random)
                continue
            case "adjust":
                for field in ["brightness", "contrast", "saturation"] where random.chance(0.5) {
                    fields[field] = value({ .rounded($0.number(-1...1)) }, &random)
                }
                if random.chance(0.4) {
                    fields["tint"] = .string(random.colour())
                    fields["tintAmount"] = value(fraction, &random)
                }
            default:
                if random.chance(0.7) { fields["color"] = .string(random.colour()) }
                if random.chance(0.5) { fields["opacity"] = value(fraction, &random) }
                let lengths =
                    part == "stroke"
                    ? ["width"] : part == "dropShadow" ? ["distance", "blur", "spread"] : ["blur", "spread"]
                for field in lengths where random.chance(0.6) { fields[field] = value(length, &random) }
                if part == "dropShadow", random.chance(0.6) {
                    fields["angle"] = value({ .rounded($0.number(-180...360), places: 1) }, &random)
                }
                if part == "stroke", random.chance(0.6) {
                    fields["position"] = .string(random.pick(["outside", "inside", "center"]))
                }
            }
            style[part] = .object(fields)
        }
        return .object(style)
    }

    /// A value of `transform.FIELD`: constant, or keyframes for all but the anchor.
    func transformValue(_ field: String, frame: Frame, random: inout FuzzRandom) -> HarnessJSON {
        let point: (inout FuzzRandom) -> HarnessJSON = { random in
            .array([
                .rounded(random.number(-0.2...1.2) * frame.width, places: 1),
                .rounded(random.number(-0.2...1.2) * frame.height, places: 1),
            ])
        }
        let one: (inout FuzzRandom) -> HarnessJSON
        switch field {
        case "anchor": return point(&random)
        case "position": one = point
        case "path":
            // One stroke of a line and a curve or two across the canvas, travelled by a fraction or keyframes.
            let corner = { (random: inout FuzzRandom) -> String in
                "\(HarnessJSON.format(random.number(0...1) * frame.width)) "
                    + HarnessJSON.format(random.number(0...1) * frame.height)
            }
            var data = "M " + corner(&random) + " L " + corner(&random)
            for _ in 0..<random.integer(1...2) {
                data += " C " + corner(&random) + " " + corner(&random) + " " + corner(&random)
            }
            let fraction: (inout FuzzRandom) -> HarnessJSON = { random in .rounded(random.unit()) }
            return .object([
                "d": .string(data), "autoOrient": .bool(random.chance(0.5)),
                "progress": random.chance(0.7)
                    ? keyframes(frame: frame, random: &random, value: fraction) : fraction(&random),
            ])
        case "scale":
            one = { random in
                random.chance(0.7)
                    ? .rounded(random.number(0.3...1.8))
                    : .array([.rounded(random.number(-1.5...1.5)), .rounded(random.number(0.3...1.5))])
            }
        default: one = { random in .rounded(random.number(-90...90), places: 1) }
        }
        guard random.chance(0.4) else { return one(&random) }
        let keys = keyframes(frame: frame, random: &random, value: one)
        // Positions curve now and then: spatial tangents on their keyframes.
        guard field == "position", random.chance(0.4), case .object(var object) = keys,
            case .array(let list)? = object["keyframes"]
        else { return keys }
        object["keyframes"] = .array(
            list.map { key in
                guard case .object(var fields) = key else { return key }
                for side in ["inTangent", "outTangent"] where random.chance(0.6) {
                    fields[side] = .array([
                        .rounded(random.number(-0.3...0.3) * frame.width, places: 1),
                        .rounded(random.number(-0.3...0.3) * frame.height, places: 1),
                    ])
                }
                return .object(fields)
            })
        return .object(object)
    }

    /// Two or three keyframes over the job's length, each with a timing.
    func keyframes(frame: Frame, random: inout FuzzRandom, value: (inout FuzzRandom) -> HarnessJSON) -> HarnessJSON {
        var t = random.number(-0.2...0.3) * frame.duration
        var keys: [HarnessJSON] = []
        for index in 0..<random.integer(2...3) {
            var key: [String: HarnessJSON] = ["t": .rounded(t, places: 3), "value": value(&random)]
            if index > 0, random.chance(0.7) { key["timing"] = timing(random: &random) }
            keys.append(.object(key))
            t += random.number(0.1...0.6) * frame.duration + 0.01
        }
        return .object(["keyframes": .array(keys)])
    }

    func timing(random: inout FuzzRandom) -> HarnessJSON {
        switch random.next(3) {
        case 0:
            return .array([
                .rounded(random.unit()), .rounded(random.number(-0.5...1.5)), .rounded(random.unit()),
                .rounded(random.number(-0.5...1.5)),
            ])
        case 1:
            return .object(["damping": .rounded(random.number(0.2...1)), "velocity": .rounded(random.number(-1...2))])
        default: return .string(random.pick(Self.timings))
        }
    }

    /// Masks one layer of the list at `list` (the job's for `[]`) by another, named, one.
    func addMask(in list: HarnessLayerPath, to job: inout HarnessJSON, random: inout FuzzRandom) {
        let layers = list.isEmpty ? job["layers"]?.arrayValue ?? [] : job.layer(list)?["group"]?.arrayValue ?? []
        let sources = layers.indices.filter { layers[$0]["mask"] == nil }
        guard layers.count >= 2, let source = random.pickIfAny(sources) else { return }
        let names = Set(layers.compactMap { $0["name"]?.stringValue })
        let targets = layers.indices.filter { $0 != source && !names.contains(layers[$0]["name"]?.stringValue ?? "-") }
        guard let target = random.pickIfAny(targets) else { return }
        var sourceLayer = layers[source]
        let name = sourceLayer["name"]?.stringValue ?? (1...).lazy.map { "m\($0)" }.first { !names.contains($0) } ?? "m"
        sourceLayer["name"] = .string(name)
        job.setLayer(list + [source], sourceLayer)
        var targetLayer = layers[target]
        var mask: [String: HarnessJSON] = ["layer": .string(name)]
        if random.chance(0.5) { mask["mode"] = .string(random.pick(["alpha", "luminance"])) }
        if random.chance(0.5) { mask["invert"] = .bool(random.chance(0.5)) }
        targetLayer["mask"] = .object(mask)
        job.setLayer(list + [target], targetLayer)
    }

    /// The parameters a variants column may fill: scalar values, not files or events.
    func variableParameters(_ job: HarnessJSON) -> [(path: HarnessLayerPath, parameter: HarnessCatalog.Parameter)] {
        job.effectLayerPaths.flatMap { path -> [(path: HarnessLayerPath, parameter: HarnessCatalog.Parameter)] in
            guard let effect = job.layer(path)?["effect"]?.stringValue, let plugin = catalog.plugin(effect) else {
                return []
            }
            return plugin.parameters.filter { parameter in
                ["color", "number", "integer", "enum", "bool", "string"].contains(parameter.type)
                    && HarnessPluginTable.files["\(effect).\(parameter.name)"] == nil
                    && HarnessPluginTable.grammars["\(effect).\(parameter.name)"] != .svgPath
            }.map { (path, $0) }
        }
    }

    /// A variants CSV of two or three rows filling one or two parameters, sometimes with a matrix.
    func addVariants(to folder: inout HarnessJobFolder, random: inout FuzzRandom) throws {
        let candidates = variableParameters(folder.job)
        guard !candidates.isEmpty else { return }
        var header: [String] = []
        var columns: [[HarnessJSON]] = []
        let rowCount = random.integer(2...3)
        for column in 1...random.integer(1...2) {
            let (path, parameter) = random.pick(candidates)
            guard var layer = folder.job.layer(path), let effect = layer["effect"]?.stringValue,
                layer["params"]?[parameter.name]?.stringValue?.contains("{{") != true
            else { continue }
            var cells: [HarnessJSON] = []
            for _ in 0..<rowCount {
                cells.append(try value(for: parameter, of: effect, in: &folder, random: &random) ?? .string("x"))
            }
            header.append("c\(column)")
            columns.append(cells)
            layer["params"]?[parameter.name] = .string("{{c\(column)}}")
            folder.job.setLayer(path, layer)
        }
        guard !header.isEmpty else { return }
        var variants: [String: HarnessJSON] = [:]
        if random.chance(0.5) {
            header.append("who")
            columns.append(Array(["mika", "jonas", "sora"].prefix(rowCount)).map { .string($0) })
            variants["name"] = .string("{{who}}")
        }
        if random.chance(0.2) {
            variants["matrix"] = .object(["seed": .array([.number(1), .number(2)])])
            if variants["name"] != nil { variants["name"] = .string("{{who}}-{{seed}}") }
        }
        let rows = (0..<rowCount).map { row in columns.map { $0[row] } }
        variants["rows"] = .string(folder.add(.rows(HarnessRows(header: header, rows: rows)), ext: "csv"))
        folder.job["variants"] = .object(variants)
    }

    /// An `audio` section: music, sounds at times, or both.
    func addAudio(to folder: inout HarnessJobFolder, random: inout FuzzRandom) throws {
        var audio: [String: HarnessJSON] = [:]
        let duration = Frame(folder.job).duration
        if random.chance(0.6) {
            let sound = try library.make(.sound, random: &random)
            audio["music"] = .object([
                "file": .string(folder.add(.file(.sound, sound.data), ext: sound.ext)),
                "gain": .rounded(random.number(-12...0)), "fadeIn": .rounded(random.number(0...0.3)),
            ])
        }
        if audio.isEmpty || random.chance(0.5) {
            let sound = try library.make(.sound, random: &random)
            let at = (0..<random.integer(1...3)).map { _ in HarnessJSON.rounded(random.number(0...duration)) }
            audio["sounds"] = .array([
                .object([
                    "file": .string(folder.add(.file(.sound, sound.data), ext: sound.ext)), "at": .array(at),
                    "gain": .rounded(random.number(-12...0)),
                ])
            ])
        }
        folder.job["audio"] = .object(audio)
    }
}
