import FileInput
import Foundation
import StrictJSON

/// A job file read from disk and validated on its own (effects are checked by `RenderPlan`).
package struct LoadedJob: Sendable, Equatable {
    package var spec: JobSpec
    /// Absolute path of the job file.
    package var file: String
    /// Absolute folder of the job file: relative paths inside it resolve here.
    package var directory: String
    /// The variant this job is, for a job file with `variants`.
    package var variant: JobVariant?
    /// Problems of the file itself when `spec` is only what could be read of an invalid job; `RenderPlan`
    /// reports them together with the plugins' problems and refuses the job.
    package var issues: [JobIssue]

    package init(
        spec: JobSpec, file: String, directory: String, variant: JobVariant? = nil, issues: [JobIssue] = []
    ) {
        self.spec = spec
        self.file = file
        self.directory = directory
        self.variant = variant
        self.issues = issues
    }

    /// `issues` of this job, each told at the data row it came from where a variant's value is
    /// at fault.
    package func located(_ issues: [JobIssue]) -> [JobIssue] {
        variant?.located(issues) ?? issues
    }
}

/// Reads job files with the limits of <doc:JobFileReference>: no input can crash the renderer.
package enum JobLoader {
    /// The largest job file accepted.
    package static let maxFileBytes = 1 << 20
    package static let parseLimits = JSONParser.Limits(
        maxBytes: maxFileBytes, maxDepth: 32, maxStringBytes: 4096, maxContainerCount: 100_000)

    /// Reads a job file that has no `variants` (through `InputFile`: a named pipe, a device or a folder
    /// is refused without waiting on it).
    package static func load(_ path: String) throws(JobError) -> LoadedJob {
        let jobs = try loadAll(path)
        guard jobs.count == 1, let job = jobs.first, job.variant == nil else {
            throw .invalid(file: path, issues: [JobIssue(path: "variants", "a job with variants is a batch of jobs")])
        }
        return job
    }

    /// Reads a job file: one job, or one per variant when it has `variants`.
    package static func loadAll(_ path: String) throws(JobError) -> [LoadedJob] {
        let url = URL(fileURLWithPath: path).standardizedFileURL
        let data: [UInt8]
        do {
            data = try InputFile.read(url.path, limit: maxFileBytes)
        } catch {
            switch error {
            case .missing: throw .missing(file: path)
            case .notAFile(_, let kind): throw .notAFile(file: path, kind: kind)
            case .tooLarge(_, let bytes, _):
                throw .syntax(
                    file: path, message: "\(bytes) bytes is larger than the \(maxFileBytes)-byte limit for job files")
            case .unreadable(_, let reason): throw .unreadable(file: path, reason: reason)
            }
        }
        return try loadAll(data, file: path)
    }

    /// Reads job-file bytes as if they were the file at `path` (an edit not yet written, say):
    /// the same jobs and the same messages `loadAll(path)` gives once they are written there.
    package static func loadAll(_ data: [UInt8], file path: String) throws(JobError) -> [LoadedJob] {
        let url = URL(fileURLWithPath: path).standardizedFileURL
        guard data.count <= maxFileBytes else {
            throw .syntax(
                file: path, message: "\(data.count) bytes is larger than the \(maxFileBytes)-byte limit for job files")
        }
        let defaultName = url.deletingPathExtension().lastPathComponent
        let absolute = url.path
        let directory = url.deletingLastPathComponent().path
        let document = try parse(data, file: path)
        let compositions = CompositionFiles(root: directory, jobFile: url.lastPathComponent)
        guard var root = document.objectValue, let variants = root["variants"] else {
            let (spec, issues) = try decodeCollecting(
                document, file: path, defaultName: defaultName, compositions: compositions)
            return [LoadedJob(spec: spec, file: absolute, directory: directory, issues: issues)]
        }
        if root["parameters"] != nil {
            throw .invalid(
                file: path,
                issues: [
                    JobIssue(
                        path: "parameters",
                        "a job file has variants or parameters, not both: the parameters of a composition are set by "
                            + "the job that places it, whose variants may fill them")
                ])
        }
        root["variants"] = nil
        let expanded: [VariantExpansion.Expanded]
        switch VariantExpansion.expand(root, spec: variants, jobDirectory: directory, defaultName: defaultName) {
        case .success(let list): expanded = list
        case .failure(let problems): throw .invalid(file: path, issues: problems.issues)
        }
        var jobs: [LoadedJob] = []
        var issues: [JobIssue] = []
        for item in expanded {
            switch JobDecoder.decode(
                item.document, defaultName: defaultName, checksName: false, compositions: compositions,
                variant: item.variant)
            {
            case .success(let spec):
                jobs.append(LoadedJob(spec: spec, file: absolute, directory: directory, variant: item.variant))
            case .failure(let problems):
                issues += item.variant.issues + item.variant.located(problems.issues)
            }
        }
        var seen: Set<String> = []
        issues = issues.filter { seen.insert($0.description).inserted }
        guard issues.isEmpty else { throw .invalid(file: path, issues: issues) }
        let batch = VariantBatch(
            file: absolute,
            name: (root["name"]?.stringValue).flatMap { Template.names(in: $0) == nil ? $0 : nil } ?? defaultName,
            variants: jobs.compactMap { job in
                job.variant.map {
                    VariantBatch.Summary(
                        variant: $0.name, values: $0.values, origin: $0.origin, jobName: job.spec.name,
                        outputDirectory: job.spec.output.directory, frameCount: job.spec.frames.count)
                }
            })
        return jobs.map { job in
            var job = job
            job.variant?.batch = batch
            return job
        }
    }

    /// The files besides the job file itself that `loadAll` reads to make its jobs (a `variants.rows` file), as
    /// absolute paths, whether they exist or not: an edit of one changes the jobs as an edit of the job file does.
    /// Empty for bytes that are no JSON object.
    package static func definitionFiles(_ data: [UInt8], file path: String) -> [String] {
        guard let document = try? parse(data, file: path),
            let rows = document.objectValue?["variants"]?.objectValue?["rows"]?.stringValue, !rows.isEmpty
        else { return [] }
        let directory = URL(fileURLWithPath: path).standardizedFileURL.deletingLastPathComponent()
        return [URL(fileURLWithPath: rows, relativeTo: directory).standardizedFileURL.path]
    }

    /// Parses and validates job-file bytes; `file` names the source in messages.
    package static func decode(_ data: some Collection<UInt8>, file: String, defaultName: String) throws(JobError)
        -> JobSpec
    {
        try decode(try parse(data, file: file), file: file, defaultName: defaultName)
    }

    private static func parse(_ data: some Collection<UInt8>, file: String) throws(JobError) -> JSONValue {
        do {
            return try JSONParser.parse(data, limits: parseLimits)
        } catch {
            let excerpt = error.excerpt(of: data)
            throw .syntax(file: file, message: error.description + (excerpt.isEmpty ? "" : "\n" + excerpt))
        }
    }

    private static func decode(_ document: JSONValue, file: String, defaultName: String) throws(JobError) -> JobSpec {
        let (spec, issues) = try decodeCollecting(document, file: file, defaultName: defaultName)
        guard issues.isEmpty else { throw .invalid(file: file, issues: issues) }
        return spec
    }

    /// Like `decode`, but an invalid job whose layers could be read comes back as what was read, with
    /// its problems, so the plugins can check the layers in the same pass.
    package static func decodeCollecting(
        _ document: JSONValue, file: String, defaultName: String, compositions: CompositionFiles? = nil
    ) throws(JobError) -> (JobSpec, [JobIssue]) {
        switch JobDecoder.decode(document, defaultName: defaultName, compositions: compositions) {
        case .success(let spec): return (spec, [])
        case .failure(let problems):
            guard let partial = problems.partial else { throw .invalid(file: file, issues: problems.issues) }
            return (partial, problems.issues)
        }
    }

    /// `decodeCollecting` of job-file bytes.
    package static func decodeCollecting(_ data: Data, file: String, defaultName: String) throws(JobError)
        -> (JobSpec, [JobIssue])
    {
        try decodeCollecting(try parse(data, file: file), file: file, defaultName: defaultName)
    }

}
