import Foundation
import RenderFarm
import RenderFarmJobs
import RenderFarmOutput
import StrictJSON

/// A file name for each of several jobs or variants: `render --video FILE` of several jobs (the variants of a job
/// file among them), `encode -o FILE` of a rendered batch, `preview -o SHEET` of either. FILE names each file with
/// placeholders (`videos/{{variant}}.mp4`, `{{sender}}.{{format}}`), filled from the job or the variant.
struct FileNameTemplate {
    let text: String

    /// What a placeholder may name besides the variant's values (its row's columns and matrix keys).
    static let builtIn = ["variant", "name", "index"]

    /// Whether the text has a placeholder at all.
    var hasPlaceholders: Bool { !placeholders.isEmpty }

    /// The names between `{{` and `}}`, in order.
    var placeholders: [String] {
        var names: [String] = []
        _ = try? replacing { name throws(UsageError) in
            names.append(name)
            return ""
        }
        return names
    }

    /// The text with each placeholder replaced by what `value` gives for its name.
    private func replacing(_ value: (String) throws(UsageError) -> String) throws(UsageError) -> String {
        var result = ""
        var rest = Substring(text)
        while let open = rest.range(of: "{{"), let close = rest[open.upperBound...].range(of: "}}") {
            result += rest[..<open.lowerBound]
            result += try value(rest[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespaces))
            rest = rest[close.upperBound...]
        }
        return result + rest
    }

    /// What a placeholder may be filled from: one job, or one variant of a rendered batch.
    struct Fields {
        /// The variant's name, or the job's `name` for a job without variants.
        var variant: String
        var name: String
        var index: Int
        /// The variant's row columns and matrix keys.
        var values: JSONObject
        /// The job file or batch folder, for messages.
        var source: String
        /// How messages call it: `variant aiko-mp4`, or the job's name.
        var shown: String

        init(_ job: LoadedJob) {
            variant = job.variant?.name ?? job.spec.name
            name = job.spec.name
            index = job.variant?.index ?? 0
            values = job.variant?.values ?? [:]
            source = job.file
            shown = job.variant.map { "variant \($0.name)" } ?? job.spec.name
        }

        /// A rendered folder, a variant's among them (its manifest's `variant`; the job's `name` there is
        /// `NAME/VARIANT`).
        init(rendered: RenderedOutput) {
            let recorded = rendered.manifest["variant"]?.objectValue
            let variantName = recorded?["name"]?.stringValue
            variant = variantName ?? rendered.jobName
            name =
                variantName.flatMap { variant in
                    rendered.jobName.hasSuffix("/" + variant)
                        ? String(rendered.jobName.dropLast(variant.count + 1)) : nil
                } ?? rendered.jobName
            index = recorded?["index"]?.doubleValue.flatMap { Int(exactly: $0) } ?? 0
            values = recorded?["values"]?.objectValue ?? [:]
            source = rendered.directory
            shown = variantName.map { "variant \($0)" } ?? rendered.jobName
        }

        init(variant: BatchStatus.Variant, of batch: BatchStatus) {
            self.variant = variant.name
            name = batch.name
            index = variant.index
            values = variant.values
            source = batch.directory
            shown = "variant \(variant.name)"
        }
    }

    /// The file of each, in order: every placeholder filled; refused when one names nothing it has, a value cannot
    /// be part of a file name, several share a file, or several are given no placeholder. `option` names the
    /// option in messages (`--video`, `-o`), `example` a name that would do (`videos/{{variant}}.mp4`).
    func files(for all: [Fields], option: String, example: String, command: String) throws(UsageError) -> [String] {
        guard all.count == 1 || hasPlaceholders else {
            throw UsageError(
                message: "\(option) \(text) names one file for \(all.count) jobs or variants; name each one's with a "
                    + "placeholder, e.g. \(option) '\(example)'", command: command)
        }
        var files: [String] = []
        var writers: [String: String] = [:]
        for fields in all {
            let file = try fill(fields, option: option, command: command)
            if let other = writers[file] {
                throw UsageError(
                    message: "\(option) \(text): \(other) and \(fields.shown) would both write \(file); add a "
                        + "placeholder that tells them apart, e.g. {{variant}}", command: command)
            }
            writers[file] = fields.shown
            files.append(file)
        }
        return files
    }

    /// Makes the folders the files go in, when the name has placeholders (a name per job or variant is usually
    /// a folder of them: `videos/{{variant}}.mp4`); a plain name's folder must exist, as for one video.
    func makeFolders(for files: [String]) throws(CommandRefusal) {
        guard hasPlaceholders else { return }
        for folder in Set(files.map { ($0 as NSString).deletingLastPathComponent }) where !folder.isEmpty {
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                throw .noOutputFolder(ShownPath.of(folder), reason: (error as NSError).localizedDescription)
            }
        }
    }

    /// The text with the placeholders filled from `fields`.
    private func fill(_ fields: Fields, option: String, command: String) throws(UsageError) -> String {
        var values: [String: String] = ["variant": fields.variant, "name": fields.name, "index": String(fields.index)]
        for (key, value) in fields.values where values[key] == nil { values[key] = Self.text(value) }
        return try replacing { name throws(UsageError) in
            guard let value = values[name] else {
                let known = Self.builtIn + fields.values.keys.sorted()
                throw UsageError(
                    message: "\(option) \(text): {{\(name)}} is not a value of \(ShownPath.of(fields.source))"
                        + "\(Suggestion.hint(for: name, in: known)); placeholders: "
                        + known.map { "{{\($0)}}" }.joined(separator: ", "), command: command)
            }
            guard !value.isEmpty, !value.contains("/"), !value.contains("\0"), value != ".", value != ".." else {
                throw UsageError(
                    message: "\(option) \(text): {{\(name)}} is \"\(value)\" for \(fields.shown), which cannot be "
                        + "part of a file name", command: command)
            }
            return value
        }
    }

    private static func text(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): text
        case .number(let number): JSONValue.format(number)
        case .bool(let flag): flag ? "true" : "false"
        default: value.serialized(sortedKeys: true)
        }
    }
}
