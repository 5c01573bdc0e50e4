import Foundation

/// Draws edits of a job folder: a parameter, a host field, layers, a variants cell, an event-log line,
/// an asset's bytes (also rewritten with the same size and modification time), the sound, a no-op,
/// a plugin library rebuilt. Each draw depends only on the job and the random stream.
struct HarnessEditor: Sendable {
    let generator: HarnessGenerator

    /// A kind, by the kinds' weights.
    func kind(random: inout FuzzRandom) -> HarnessEditKind {
        var draw = random.next(HarnessEditKind.allCases.reduce(0) { $0 + $1.weight })
        for kind in HarnessEditKind.allCases {
            if draw < kind.weight { return kind }
            draw -= kind.weight
        }
        return .parameter
    }

    /// An edit of `kind`, nil when the job has nothing of that kind to edit.
    func edit(_ kind: HarnessEditKind, of folder: HarnessJobFolder, random: inout FuzzRandom) throws -> HarnessEdit? {
        switch kind {
        case .parameter: return try parameter(of: folder, random: &random)
        case .hostField: return try hostField(of: folder, random: &random)
        case .structure: return try structure(of: folder, random: &random)
        case .variantsCell: return try variantsCell(of: folder, random: &random)
        case .eventLine: return try eventLine(of: folder, random: &random)
        case .assetBytes: return try assetBytes(of: folder, random: &random)
        case .assetSameSizeAndTime: return try sameSizeAndTime(of: folder, random: &random)
        case .noOp: return noOp(of: folder, random: &random)
        case .sound: return try sound(of: folder, random: &random)
        case .pluginRebuilt: return pluginRebuilt(of: folder, random: &random)
        }
    }

    /// One parameter of one layer: a new value within its table, or removed (its default). Half the
    /// time it is one the layer sets, as users mostly edit the values they wrote.
    func parameter(of folder: HarnessJobFolder, random: inout FuzzRandom) throws -> HarnessEdit? {
        guard let path = random.pickIfAny(folder.job.effectLayerPaths), var layer = folder.job.layer(path),
            let effect = layer["effect"]?.stringValue
        else { return nil }
        let parameters = generator.catalog.plugin(effect)?.parameters ?? []
        let set = parameters.filter { layer["params"]?[$0.name] != nil }
        guard let parameter = random.chance(0.5) && !set.isEmpty ? random.pickIfAny(set) : random.pickIfAny(parameters)
        else { return nil }
        var edited = folder
        let old = layer["params"]?[parameter.name]
        var new: HarnessJSON?
        if old == nil || random.chance(0.8) {
            for _ in 0..<3 where new == nil || new == old {
                new = try generator.value(for: parameter, of: effect, in: &edited, random: &random)
            }
            guard new != nil, new != old else { return nil }
        }
        if layer["params"] == nil { layer["params"] = .object([:]) }
        layer["params"]?[parameter.name] = new
        edited.job.setLayer(path, layer)
        let location = "\(HarnessJSON.location(path)).params.\(parameter.name)"
        let masking = Self.isMaskSource(path, in: folder.job) ? " (masking layer)" : ""
        let file = new?.stringValue.flatMap { edited.assets[$0] != nil ? $0 : nil }
        return HarnessEdit(
            kind: .parameter, label: "\(effect).\(parameter.name)\(masking)",
            description: "\(location): \(HarnessEdit.show(old)) → \(HarnessEdit.show(new))",
            expected: file.map { .jobOrInput(path: location, file: $0) } ?? .job(location), folder: edited)
    }

    /// Whether another layer of its list masks with the layer at `path`.
    static func isMaskSource(_ path: HarnessLayerPath, in job: HarnessJSON) -> Bool {
        guard let name = job.layer(path)?["name"]?.stringValue else { return false }
        return job.list(of: path).contains { $0["mask"]?["layer"]?.stringValue == name }
    }

    /// A layer added (anywhere), removed (with the masks naming it) or moved one place.
    func structure(of folder: HarnessJobFolder, random: inout FuzzRandom) throws -> HarnessEdit? {
        var edited = folder
        let paths = folder.job.layerPaths
        switch random.next(3) {
        case 0:
            let parent = random.pick(folder.job.listPaths)
            let count =
                parent.isEmpty
                ? folder.job["layers"]?.arrayValue?.count ?? 0
                : folder.job.layer(parent)?["group"]?.arrayValue?.count ?? 0
            let layer = try generator.layer(depth: parent.count, in: &edited, random: &random)
            let index = random.integer(0...count)
            edited.job.insertLayer(layer, into: parent, at: index)
            let location = HarnessJSON.location(parent + [index])
            return HarnessEdit(
                kind: .structure, label: "layer added", description: "\(location) added: \(HarnessEdit.show(layer))",
                expected: .job(location), folder: edited)
        case 1:
            guard let path = random.pickIfAny(paths.filter { folder.job.list(of: $0).count > 1 }) else { return nil }
            let name = folder.job.layer(path)?["name"]?.stringValue
            edited.job.setLayer(path, nil)
            for other in edited.job.layerPaths
            where name != nil && other.count == path.count
                && Array(other.dropLast()) == Array(path.dropLast())
            {
                guard var layer = edited.job.layer(other), layer["mask"]?["layer"]?.stringValue == name else {
                    continue
                }
                layer["mask"] = nil
                edited.job.setLayer(other, layer)
            }
            let location = HarnessJSON.location(path)
            return HarnessEdit(
                kind: .structure, label: "layer removed", description: "\(location) removed",
                expected: .job(location), folder: edited)
        default:
            guard let path = random.pickIfAny(paths.filter { ($0.last ?? 0) > 0 }), let layer = folder.job.layer(path),
                let previous = folder.job.layer(Array(path.dropLast()) + [(path.last ?? 1) - 1])
            else { return nil }
            edited.job.setLayer(path, previous)
            edited.job.setLayer(Array(path.dropLast()) + [(path.last ?? 1) - 1], layer)
            let location = HarnessJSON.location(path)
            return HarnessEdit(
                kind: .structure, label: "layer moved", description: "\(location) moved one place down",
                expected: .job(location), folder: edited)
        }
    }

    /// Changes nothing a frame shows: a file touched, the job renamed, `retries`, the job file reformatted.
    func noOp(of folder: HarnessJobFolder, random: inout FuzzRandom) -> HarnessEdit? {
        var edited = folder
        switch random.next(5) {
        case 0:
            return HarnessEdit(
                kind: .noOp, label: "job file touched", description: "touch job.json", expected: .nothing,
                folder: folder, operations: [.touch(HarnessJobFolder.jobFile)])
        case 1:
            guard let path = random.pickIfAny(folder.assets.keys.sorted()) else { return nil }
            return HarnessEdit(
                kind: .noOp, label: "asset touched", description: "touch \(path)", expected: .nothing, folder: folder,
                operations: [.touch(path)])
        case 2:
            let name = random.pick(["job-a", "job-b", "job-c", "job-d"].filter { $0 != folder.name })
            edited.job["name"] = .string(name)
            return HarnessEdit(
                kind: .noOp, label: "job name", description: "name: \(folder.name) → \(name)", expected: .nothing,
                folder: edited)
        case 3:
            let retries = random.pick([0, 1, 2, 3].filter { Double($0) != folder.job["retries"]?.numberValue ?? 1 })
            edited.job["retries"] = .number(Double(retries))
            return HarnessEdit(
                kind: .noOp, label: "retries",
                description: "retries: \(HarnessEdit.show(folder.job["retries"])) → \(retries)",
                expected: .nothing, folder: edited)
        default:
            return HarnessEdit(
                kind: .noOp, label: "job file reformatted", description: "job.json rewritten with one member per line",
                expected: .nothing, folder: folder, operations: [.reformatJob])
        }
    }

    /// A plugin library rebuilt with the same version and other bytes (one the job uses, mostly).
    func pluginRebuilt(of folder: HarnessJobFolder, random: inout FuzzRandom) -> HarnessEdit? {
        let used = folder.job.effects
        let all = generator.catalog.plugins.map(\.id)
        guard let plugin = random.chance(0.85) ? random.pickIfAny(used) : random.pickIfAny(all) else { return nil }
        let bytes = (0..<random.integer(8...32)).map { _ in UInt8(random.next(256)) }
        let isUsed = used.contains(plugin)
        return HarnessEdit(
            kind: .pluginRebuilt, label: isUsed ? plugin : "a plugin the job does not use",
            description: "librenderfarm-\(plugin).so rebuilt: \(bytes.count) bytes appended, same version",
            expected: isUsed ? .plugin(plugin) : .nothing, folder: folder, operations: [.rebuildPlugin(plugin, bytes)])
    }
}
