import Foundation
import RenderFarm
import RenderFarmJobs
import StrictJSON

/// `render --video FILE` for several jobs, the variants of a job file among them: FILE names each job's video
/// with placeholders (`videos/{{variant}}.mp4`, `{{streamer}}-{{format}}.{{format}}`), filled from the job.
struct VideoFileTemplate {
    let text: String

    /// What a placeholder may name besides the variant's values (its row's columns and matrix keys).
    static let builtIn = ["variant", "name", "index"]

    /// Whether the text has a placeholder at all.
    var hasPlaceholders: Bool { !placeholders.isEmpty }

    /// The names between `{{` and `}}`, in order.
    var placeholders: [String] {
        var names: [String] = []
        var rest = Substring(text)
        while let open = rest.range(of: "{{"), let close = rest[open.upperBound...].range(of: "}}") {
            names.append(rest[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespaces))
            rest = rest[close.upperBound...]
        }
        return names
    }

    /// The file of each job, in order: every placeholder filled; refused when one names nothing the job has, a
    /// value cannot be part of a file name, several jobs share a file, or several jobs are given no placeholder.
    func files(for jobs: [PlannedJob], command: String) throws(UsageError) -> [String] {
        guard jobs.count == 1 || hasPlaceholders else {
            throw UsageError(
                message: "--video \(text): \(jobs.count) jobs (variants count as jobs) would all write one file; "
                    + "name each one's video with a placeholder, e.g. --video 'videos/{{variant}}.mp4'",
                command: command)
        }
        var files: [String] = []
        var writers: [String: String] = [:]
        for job in jobs {
            let file = try fill(for: job.job, command: command)
            let who = job.job.variant.map { "variant \($0.name)" } ?? job.job.spec.name
            if let other = writers[file] {
                throw UsageError(
                    message: "--video \(text): \(other) and \(who) would both write \(file); add a placeholder that "
                        + "tells them apart, e.g. {{variant}}", command: command)
            }
            writers[file] = who
            files.append(file)
        }
        return files
    }

    /// The text with the placeholders filled for `job`.
    private func fill(for job: LoadedJob, command: String) throws(UsageError) -> String {
        var values: [String: String] = [
            "variant": job.variant?.name ?? job.spec.name, "name": job.spec.name,
            "index": String(job.variant?.index ?? 0),
        ]
        for (key, value) in job.variant?.values ?? [:] where values[key] == nil { values[key] = Self.text(value) }
        var result = ""
        var rest = Substring(text)
        while let open = rest.range(of: "{{"), let close = rest[open.upperBound...].range(of: "}}") {
            result += rest[..<open.lowerBound]
            let name = rest[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespaces)
            guard let value = values[name] else {
                let known = Self.builtIn + (job.variant?.values.keys.sorted() ?? [])
                throw UsageError(
                    message: "--video \(text): {{\(name)}} is not a value of \(ShownPath.of(job.file))"
                        + "\(Suggestion.hint(for: name, in: known)); placeholders: "
                        + known.map { "{{\($0)}}" }.joined(separator: ", "), command: command)
            }
            guard !value.isEmpty, !value.contains("/"), !value.contains("\0"), value != ".", value != ".." else {
                throw UsageError(
                    message: "--video \(text): {{\(name)}} is \"\(value)\" for "
                        + (job.variant.map { "variant \($0.name)" } ?? job.spec.name)
                        + ", which cannot be part of a file name", command: command)
            }
            result += value
            rest = rest[close.upperBound...]
        }
        return result + rest
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
