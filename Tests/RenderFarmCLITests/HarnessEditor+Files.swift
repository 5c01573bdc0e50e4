import Foundation

/// Edits of the files beside the job: a variants cell or row, an event-log line, an asset's bytes,
/// an asset rewritten with the same size and modification time, and the sound.
extension HarnessEditor {
    static let variantNames = ["mika", "jonas", "sora", "lena", "omar"]

    func variantsCell(of folder: HarnessJobFolder, random: inout FuzzRandom) throws -> HarnessEdit? {
        guard let path = folder.job.value(at: "variants.rows")?.stringValue,
            case .rows(var rows)? = folder.assets[path],
            !rows.rows.isEmpty, !rows.header.isEmpty
        else { return nil }
        var edited = folder
        let label: String
        let description: String
        let nameColumn = rows.header.firstIndex(of: "who")
        if random.chance(0.2) {
            if rows.rows.count > 1, random.chance(0.5) {
                let row = random.next(rows.rows.count)
                rows.rows.remove(at: row)
                (label, description) = ("variants row removed", "\(path) row \(row + 2) removed")
            } else {
                var row = try rows.header.indices.map { try cell($0, of: rows, in: &edited, random: &random) }
                if let nameColumn {
                    let used = Set(rows.rows.compactMap { $0[nameColumn].stringValue })
                    guard let name = Self.variantNames.first(where: { !used.contains($0) }) else { return nil }
                    row[nameColumn] = .string(name)
                }
                rows.rows.append(row)
                (label, description) = ("variants row added", "\(path) row \(rows.rows.count + 1) added")
            }
        } else {
            let row = random.next(rows.rows.count)
            let column = random.next(rows.header.count)
            let old = rows.rows[row][column]
            if column == nameColumn {
                let used = Set(rows.rows.compactMap { $0[column].stringValue })
                guard let name = Self.variantNames.first(where: { !used.contains($0) }) else { return nil }
                rows.rows[row][column] = .string(name)
                label = "variants name cell"
            } else {
                rows.rows[row][column] = try cell(column, of: rows, in: &edited, random: &random)
                label = "variants cell"
            }
            guard rows.rows[row][column] != old else { return nil }
            description =
                "\(path) row \(row + 2) column \(rows.header[column]): \(HarnessEdit.show(old)) → "
                + HarnessEdit.show(rows.rows[row][column])
        }
        edited.assets[path] = .rows(rows)
        return HarnessEdit(
            kind: .variantsCell, label: label, description: description,
            expected: .jobOrInput(path: "variants", file: path), folder: edited)
    }

    /// A new value for a column of the variants: drawn as the parameter that uses it is.
    private func cell(_ column: Int, of rows: HarnessRows, in folder: inout HarnessJobFolder, random: inout FuzzRandom)
        throws -> HarnessJSON
    {
        let placeholder = HarnessJSON.string("{{\(rows.header[column])}}")
        for path in folder.job.effectLayerPaths {
            guard let layer = folder.job.layer(path), let effect = layer["effect"]?.stringValue,
                let params = layer["params"]?.objectValue
            else { continue }
            for key in params.keys.sorted() where params[key] == placeholder {
                if let parameter = generator.catalog.plugin(effect)?.parameter(key),
                    let value = try generator.value(for: parameter, of: effect, in: &folder, random: &random)
                {
                    return value
                }
            }
        }
        return rows.rows.first.map { $0[column] } ?? .string(random.pick(HarnessGenerator.words))
    }

    /// The event logs the job's layers name: (layer, file), files first.
    private func eventLogs(of folder: HarnessJobFolder) -> [(path: HarnessLayerPath, file: String?)] {
        folder.job.effectLayerPaths.compactMap { path in
            switch folder.job.layer(path)?["params"]?["events"] {
            case .string(let file)? where folder.assets[file] != nil: (path, file)
            case .array?: (path, nil)
            default: nil
            }
        }
    }

    /// One event of a log changed (a field or its time), removed or added.
    func eventLine(of folder: HarnessJobFolder, random: inout FuzzRandom) throws -> HarnessEdit? {
        guard let (path, file) = random.pickIfAny(eventLogs(of: folder)), var layer = folder.job.layer(path),
            let effect = layer["effect"]?.stringValue,
            let parameter = generator.catalog.plugin(effect)?.parameter("events")
        else { return nil }
        var edited = folder
        var log: HarnessEventLog
        if let file, case .events(let stored)? = folder.assets[file] {
            log = stored
        } else {
            let inline = layer["params"]?["events"]?.arrayValue ?? []
            log = HarnessEventLog(csv: false, columns: [], events: inline.compactMap(\.objectValue))
        }
        let fields = HarnessGenerator.fields(of: parameter).filter { file == nil || log.columns.contains($0.name) }
        var what: String
        let index = random.next(max(1, log.events.count))
        switch random.next(4) {
        case 0 where log.events.count > 1:
            log.events.remove(at: index)
            what = "event \(index) removed"
        case 1:
            var event = try generator.event(fields, parameter: parameter, of: effect, in: &edited, random: &random)
            if file != nil { event = event.filter { $0.key == "time" || log.columns.contains($0.key) } }
            log.events.insert(event, at: min(index, log.events.count))
            what = "event added: \(HarnessEdit.show(.object(event)))"
        default:
            guard log.events.indices.contains(index) else { return nil }
            let field = random.chance(0.7) ? random.pickIfAny(fields) : nil
            let old = log.events[index][field?.name ?? "time"]
            if let field {
                log.events[index][field.name] = try generator.eventValue(
                    field, of: effect, in: &edited, random: &random)
            } else {
                log.events[index]["time"] = .rounded(random.number(0...HarnessGenerator.Frame(folder.job).duration))
            }
            let new = log.events[index][field?.name ?? "time"]
            guard new != old else { return nil }
            what = "event \(index) \(field?.name ?? "time"): \(HarnessEdit.show(old)) → \(HarnessEdit.show(new))"
        }
        let location = "\(HarnessJSON.location(path)).params.events"
        guard let file else {
            layer["params"]?["events"] = .array(log.events.map { .object($0) })
            edited.job.setLayer(path, layer)
            return HarnessEdit(
                kind: .eventLine, label: "\(effect) inline events", description: "\(location): \(what)",
                expected: .job(location), folder: edited)
        }
        edited.assets[file] = .events(log)
        return HarnessEdit(
            kind: .eventLine, label: "\(effect) \(log.csv ? "CSV" : "JSONL") log", description: "\(file): \(what)",
            expected: .jobOrInput(path: location, file: file), folder: edited)
    }

    /// The reason an asset's new content should give: an input file the job reads, nothing otherwise.
    static func expected(for path: String, in folder: HarnessJobFolder) -> HarnessExpectedReason {
        switch folder.assets[path]?.kind {
        case .rows?: .jobOrInput(path: "variants", file: path)
        case .sound?: .nothing
        default: folder.names(path) ? .input(path) : .nothing
        }
    }

    /// An image, Lottie file, font or clip given other bytes.
    func assetBytes(of folder: HarnessJobFolder, random: inout FuzzRandom) throws -> HarnessEdit? {
        let kinds: [HarnessAssetKind] = [.picture, .png, .lottie, .font, .footage]
        guard
            let path = random.pickIfAny(
                folder.assets.keys.sorted().filter { kinds.contains(folder.assets[$0]?.kind ?? .rows) }),
            let asset = folder.assets[path]
        else { return nil }
        let library = generator.library
        var data: Data
        switch asset.kind {
        case .picture, .png:
            data = HarnessAssetFiles.png(width: random.integer(6...24), height: random.integer(6...24), random: &random)
            if path.hasSuffix(".jpg") { data = try library.jpeg(from: data) ?? asset.data }
        case .lottie:
            data = Self.changeNumber(in: asset.data, random: &random)
        case .font:
            let others = try library.fonts.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }.filter {
                $0 != asset.data
            }
            guard let other = random.pickIfAny(others) else { return nil }
            data = other
        default:
            let ext = URL(fileURLWithPath: path).pathExtension
            let others = try library.footage.filter { $0.hasSuffix("." + ext) }
                .map { try Data(contentsOf: URL(fileURLWithPath: $0)) }.filter { $0 != asset.data }
            guard let other = random.pickIfAny(others) else { return nil }
            data = other
        }
        guard data != asset.data else { return nil }
        var edited = folder
        edited.assets[path] = .file(asset.kind, data)
        return HarnessEdit(
            kind: .assetBytes, label: "\(asset.kind.rawValue) (.\(URL(fileURLWithPath: path).pathExtension))",
            description: "\(path): \(asset.data.count) → \(data.count) bytes, new content",
            expected: Self.expected(for: path, in: folder), folder: edited)
    }
}
