import Foundation

/// Edits of the host's fields: a layer's or group's timing, opacity, blend, transform, mask, name, style and
/// motion blur (constants and keyframes), and the job's canvas, seed, fps, length, frame set and output settings.
extension HarnessEditor {
    static let layerFields = [
        "start", "end", "speed", "loop", "opacity", "blend", "transform.anchor", "transform.position",
        "transform.scale", "transform.rotation", "transform.path", "mask", "name", "style", "motionBlur",
    ]
    static let jobFields = [
        "canvas.background", "canvas.width", "canvas.height", "canvas.scale", "seed", "fps", "duration", "frames",
        "output.compression", "output.duplicates", "output.prefix", "output.padding",
    ]

    func hostField(of folder: HarnessJobFolder, random: inout FuzzRandom) throws -> HarnessEdit? {
        guard random.chance(0.75) else { return jobField(of: folder, random: &random) }
        // Groups are picked more often than their number alone would give (a group's fields are host fields too).
        let groups = folder.job.listPaths.filter { !$0.isEmpty }
        let paths = !groups.isEmpty && random.chance(0.6) ? groups : folder.job.layerPaths
        guard let path = random.pickIfAny(paths), var layer = folder.job.layer(path) else { return nil }
        // Half the time a field the layer sets: an anchor matters beside a position, scale or rotation.
        let set = Self.layerFields.filter { layer.value(at: $0) != nil }
        let field = random.chance(0.5) && !set.isEmpty ? random.pick(set) : random.pick(Self.layerFields)
        let frame = HarnessGenerator.Frame(folder.job)
        let old = layer.value(at: field)
        var label = field
        var edited = folder
        switch field {
        case "mask":
            guard let mask = layer["mask"] else {
                edited.job = try addMask(to: path, in: folder.job, random: &random) ?? folder.job
                guard edited.job != folder.job else { return nil }
                layer = edited.job.layer(path) ?? layer
                break
            }
            switch random.next(3) {
            case 0: layer["mask"] = nil
            case 1: layer["mask"]?["invert"] = .bool(mask["invert"] != .bool(true))
            default: layer["mask"]?["mode"] = .string(mask["mode"]?.stringValue == "luminance" ? "alpha" : "luminance")
            }
        case "name":
            guard let name = layer["name"]?.stringValue else {
                layer["name"] = .string("n\(random.next(100))")
                break
            }
            let renamed = name + "x"
            layer["name"] = .string(renamed)
            edited.job.setLayer(path, layer)
            for sibling in edited.job.layerPaths
            where sibling.count == path.count
                && Array(sibling.dropLast()) == Array(path.dropLast())
            {
                guard var other = edited.job.layer(sibling), other["mask"]?["layer"]?.stringValue == name else {
                    continue
                }
                other["mask"]?["layer"] = .string(renamed)
                edited.job.setLayer(sibling, other)
            }
            layer = edited.job.layer(path) ?? layer
        default:
            if case .object(let animated)? = old, animated["keyframes"] != nil, random.chance(0.7) {
                label += ".keyframes"
                layer.set(field, editKeyframe(old ?? .null, field: field, frame: frame, random: &random))
            } else if old != nil && random.chance(0.25) {
                layer.set(field, nil)
            } else {
                layer.set(field, layerValue(field, of: layer, frame: frame, random: &random))
            }
            // A motion path places the anchor instead of a position: a job gives one of them.
            if field == "transform.path", layer.value(at: field) != nil { layer.set("transform.position", nil) }
            if field == "transform.position", layer.value(at: field) != nil { layer.set("transform.path", nil) }
            if let start = layer["start"]?.numberValue, let end = layer["end"]?.numberValue, end <= start {
                layer["end"] = .rounded(start + 0.2)
            }
        }
        guard layer != folder.job.layer(path) || edited.job != folder.job else { return nil }
        edited.job.setLayer(path, layer)
        let location = "\(HarnessJSON.location(path)).\(field)"
        let isGroup = layer["group"] != nil
        return HarnessEdit(
            kind: .hostField, label: (isGroup ? "group." : "layer.") + label,
            description: "\(location): \(HarnessEdit.show(old)) → \(HarnessEdit.show(layer.value(at: field)))",
            expected: .job(location), folder: edited)
    }

    /// A new value for a layer's host field.
    private func layerValue(
        _ field: String, of layer: HarnessJSON, frame: HarnessGenerator.Frame,
        random: inout FuzzRandom
    ) -> HarnessJSON {
        let duration = frame.duration
        switch field {
        case "start": return .rounded(random.number(0...0.7 * duration))
        case "end": return .rounded((layer["start"]?.numberValue ?? 0) + random.number(0.1...duration))
        case "speed": return .number(random.pick([0.5, 0.75, 1.5, 2].filter { .number($0) != layer["speed"] }))
        case "loop": return .rounded(random.number(0.1...duration))
        case "opacity": return generator.opacity(frame: frame, random: &random)
        case "blend": return .string(random.pick(HarnessGenerator.blendModes.filter { .string($0) != layer["blend"] }))
        case "style": return generator.style(frame: frame, random: &random)
        case "motionBlur": return generator.motionBlur(random: &random)
        default:
            return generator.transformValue(String(field.dropFirst("transform.".count)), frame: frame, random: &random)
        }
    }

    /// One keyframe changed: its value, its time (between its neighbours) or its timing.
    private func editKeyframe(
        _ animated: HarnessJSON, field: String, frame: HarnessGenerator.Frame,
        random: inout FuzzRandom
    ) -> HarnessJSON {
        guard var keys = animated["keyframes"]?.arrayValue, !keys.isEmpty else { return animated }
        let index = random.next(keys.count)
        var key = keys[index]
        switch random.next(3) {
        case 0:
            let fresh =
                field == "opacity"
                ? generator.opacity(frame: frame, random: &random)
                : generator.transformValue(String(field.dropFirst("transform.".count)), frame: frame, random: &random)
            key["value"] = fresh["keyframes"]?.arrayValue?.first?["value"] ?? fresh
        case 1:
            let low = index > 0 ? (keys[index - 1]["t"]?.numberValue ?? 0) + 0.001 : -frame.duration
            let high = index + 1 < keys.count ? (keys[index + 1]["t"]?.numberValue ?? 0) - 0.001 : 2 * frame.duration
            key["t"] = .rounded(random.number(low...max(low, high)), places: 3)
            if let t = key["t"]?.numberValue, t <= low - 0.001 || t >= high + 0.001 { key["t"] = keys[index]["t"] }
        default:
            key["timing"] = generator.timing(random: &random)
        }
        keys[index] = key
        return .object(["keyframes": .array(keys)])
    }

    /// `job` with the layer at `path` masked by another layer of its list (named if need be).
    private func addMask(to path: HarnessLayerPath, in job: HarnessJSON, random: inout FuzzRandom) throws
        -> HarnessJSON?
    {
        let list = job.list(of: path)
        let names = Set(list.compactMap { $0["name"]?.stringValue })
        if let name = job.layer(path)?["name"]?.stringValue,
            list.contains(where: { $0["mask"]?["layer"]?.stringValue == name })
        {
            return nil
        }
        let sources = list.indices.filter { $0 != path.last && list[$0]["mask"] == nil }
        guard let source = random.pickIfAny(sources) else { return nil }
        var edited = job
        let sourcePath = Array(path.dropLast()) + [source]
        var sourceLayer = list[source]
        let name = sourceLayer["name"]?.stringValue ?? (1...).lazy.map { "m\($0)" }.first { !names.contains($0) } ?? "m"
        sourceLayer["name"] = .string(name)
        edited.setLayer(sourcePath, sourceLayer)
        guard var layer = edited.layer(path) else { return nil }
        var mask: [String: HarnessJSON] = ["layer": .string(name)]
        if random.chance(0.5) { mask["mode"] = .string(random.pick(["alpha", "luminance"])) }
        if random.chance(0.3) { mask["invert"] = .bool(true) }
        layer["mask"] = .object(mask)
        edited.setLayer(path, layer)
        return edited
    }

    /// One of the job's own fields.
    private func jobField(of folder: HarnessJobFolder, random: inout FuzzRandom) -> HarnessEdit? {
        let field = random.pick(Self.jobFields)
        let old = folder.job.value(at: field)
        let fps = folder.job["fps"]?.numberValue ?? 60
        let frames = Int(((folder.job["duration"]?.numberValue ?? 1) * fps).rounded())
        var new: HarnessJSON?
        switch field {
        case "canvas.background": new = random.chance(0.8) ? .string(random.colour()) : nil
        case "canvas.width", "canvas.height": new = .number(Double(random.integer(32...96)))
        case "canvas.scale": new = .number(old == .number(2) ? 1 : 2)
        case "seed": new = .number(Double(random.next(1_000_000)))
        case "fps":
            let rates = HarnessGenerator.frameRates.filter { Double(frames) / fps * $0 <= 14 && $0 != fps }
            guard let rate = random.pickIfAny(rates) else { return nil }
            new = .number(rate)
        case "duration": new = .rounded(Double(random.integer(3...14)) / fps, places: 3)
        case "frames":
            let last = max(0, frames - 1)
            new = random.pick([nil, .string("0-\(last):2"), .string("1-\(last)"), .string("0,\(last / 2),\(last)")])
        case "output.compression":
            new = random.pick([.number(0), .number(1), .number(6), .number(9), .string("small")])
        case "output.duplicates": new = .string(old == .string("link") ? "copy" : "link")
        case "output.prefix": new = .string(random.pick(["frame_", "f-", "img."]))
        default: new = .number(Double(random.integer(3...6)))
        }
        guard new != old else { return nil }
        var edited = folder
        edited.job.set(field, new)
        var place = field
        if field == "canvas.scale", new == .number(2) {
            edited.job.set("canvas.width", .number(min(48, edited.job.value(at: "canvas.width")?.numberValue ?? 48)))
            edited.job.set("canvas.height", .number(min(48, edited.job.value(at: "canvas.height")?.numberValue ?? 48)))
            // The canvas shrunk as well (and with it every default anchor, its centre): the reason may name the
            // canvas and the layers rather than its scale.
            let resized = ["canvas.width", "canvas.height"].contains {
                edited.job.value(at: $0) != folder.job.value(at: $0)
            }
            if resized { place = "canvas" }
        }
        if ["fps", "duration"].contains(field) { edited.job["frames"] = nil }
        return HarnessEdit(
            kind: .hostField, label: field,
            description: "\(field): \(HarnessEdit.show(old)) → \(HarnessEdit.show(new))",
            expected: field == "frames" ? .anyEarlierChange : .job(place), folder: edited)
    }
}
