import FileInput
import Foundation
import StrictJSON

/// Where the variants of one job file stand, read from the folder that holds their folders and
/// `variants.json` (<doc:DataDrivenJobs>): each variant's `FolderStatus`, and the batch's totals.
package struct BatchStatus: Sendable {
    /// One variant: its name, its folder, and its status once a render has started in it.
    package struct Variant: Sendable {
        package var name: String
        /// Its place in the batch.
        package var index: Int
        /// Its row's columns and matrix keys, as the index records them.
        package var values: JSONObject
        package var folder: String
        /// Frames the variant renders, as the index records them.
        package var frames: Int
        /// Nil until a render has written the folder's job record.
        package var status: FolderStatus?

        package var state: FolderStatus.State { status?.state ?? .incomplete }
        package var done: Int { status?.done ?? 0 }
        package var total: Int { status?.total ?? frames }
    }

    /// Absolute path of the batch folder.
    package var directory: String
    /// The job's name, shared by its variants.
    package var name: String
    package var variants: [Variant]

    /// Rendering while any variant is, complete when all are, failed when any failed, else incomplete.
    package var state: FolderStatus.State {
        let states = variants.map(\.state)
        if states.contains(.rendering) { return .rendering }
        if states.allSatisfy({ $0 == .complete }) { return .complete }
        return states.contains(.failed) ? .failed : .incomplete
    }

    package var done: Int { variants.reduce(0) { $0 + $1.done } }
    package var total: Int { variants.reduce(0) { $0 + $1.total } }

    /// The status of the batch whose `variants.json` is in `directory`, or nil when it has none.
    package static func read(_ directory: String, now: Date = Date()) throws(FolderStatusError) -> BatchStatus? {
        let folder = URL(fileURLWithPath: directory).standardizedFileURL.path
        let path = (folder as NSString).appendingPathComponent(VariantIndex.fileName)
        let data: [UInt8]
        do {
            data = try InputFile.read(path, limit: JSONParser.Limits.default.maxBytes)
        } catch {
            if case .missing = error { return nil }
            throw .unreadable("\(path): \(error.reason)")
        }
        let damaged = { (reason: String) in
            FolderStatusError.unreadable(
                "\(path): \(reason); render the job again to rewrite it (renderfarm render JOB)")
        }
        guard let index = try? JSONParser.parse(data).objectValue,
            index["format"]?.stringValue == VariantIndex.format, let entries = index["variants"]?.arrayValue
        else { throw damaged("is not a variants index (\(VariantIndex.format))") }
        var variants: [Variant] = []
        for entry in entries {
            guard let object = entry.objectValue, let name = object["name"]?.stringValue,
                let relative = object["folder"]?.stringValue,
                let frames = object["frames"]?.doubleValue.flatMap({ Int(exactly: $0) }), frames >= 0
            else { throw damaged("a variant lacks its name, folder or frames") }
            let variantFolder =
                relative.hasPrefix("/")
                ? relative : URL(fileURLWithPath: folder).appendingPathComponent(relative).standardizedFileURL.path
            var variant = Variant(
                name: name, index: object["index"]?.doubleValue.flatMap { Int(exactly: $0) } ?? variants.count,
                values: object["values"]?.objectValue ?? [:], folder: variantFolder, frames: frames, status: nil)
            do {
                variant.status = try FolderStatus.read(variantFolder, now: now)
            } catch {
                // A variant no render has reached yet has no folder or no job record.
                guard case .notARenderFolder = error else { throw error }
            }
            variants.append(variant)
        }
        return BatchStatus(directory: folder, name: index["name"]?.stringValue ?? "", variants: variants)
    }

    /// The batch as one JSON object (`renderfarm status --json`): totals and each variant's status.
    package var json: JSONValue {
        .object([
            "folder": .string(directory), "name": .string(name), "state": .string(state.rawValue),
            "total": .number(Double(total)), "done": .number(Double(done)),
            "variants": .array(
                variants.map { variant in
                    let notStarted: JSONObject = [
                        "folder": .string(variant.folder), "state": .string("incomplete"),
                        "total": .number(Double(variant.frames)), "done": 0,
                    ]
                    var object = variant.status?.json.objectValue ?? notStarted
                    object["variant"] = .string(variant.name)
                    object["started"] = .bool(variant.status != nil)
                    return .object(object)
                }),
        ])
    }
}
