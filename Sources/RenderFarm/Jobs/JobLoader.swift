import Foundation
import StrictJSON

/// A job file read from disk and validated on its own (effects are checked by `RenderPlan`).
public struct LoadedJob: Sendable, Equatable {
    public var spec: JobSpec
    /// Absolute path of the job file.
    public var file: String
    /// Absolute folder of the job file: relative paths inside it resolve here.
    public var directory: String
    /// Problems of the file itself when `spec` is only what could be read of an invalid job; `RenderPlan`
    /// reports them together with the plugins' problems and refuses the job.
    public var issues: [JobIssue] = []
}

/// Reads job files with the limits of DESIGN.md §7: no input can crash the renderer.
public enum JobLoader {
    /// The largest job file accepted.
    public static let maxFileBytes = 1 << 20
    static let parseLimits = JSONParser.Limits(
        maxBytes: maxFileBytes, maxDepth: 32, maxStringBytes: 4096, maxContainerCount: 100_000)

    public static func load(_ path: String) throws(JobError) -> LoadedJob {
        let url = URL(fileURLWithPath: path).standardizedFileURL
        let absolute = url.path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: absolute, isDirectory: &isDirectory) else {
            throw .missing(file: path)
        }
        guard !isDirectory.boolValue else { throw .unreadable(file: path, reason: "is a folder, not a job file") }
        let size = (try? FileManager.default.attributesOfItem(atPath: absolute)[.size] as? Int) ?? 0
        guard size <= maxFileBytes else {
            throw .syntax(
                file: path, message: "\(size) bytes is larger than the \(maxFileBytes)-byte limit for job files")
        }
        guard let handle = FileHandle(forReadingAtPath: absolute) else {
            throw .unreadable(file: path, reason: "permission denied")
        }
        defer { try? handle.close() }
        let data: Data
        do {
            data = try handle.read(upToCount: maxFileBytes + 1) ?? Data()
        } catch {
            throw .unreadable(file: path, reason: error.localizedDescription)
        }
        let defaultName = url.deletingPathExtension().lastPathComponent
        let (spec, issues) = try decodeCollecting(data, file: path, defaultName: defaultName)
        return LoadedJob(spec: spec, file: absolute, directory: url.deletingLastPathComponent().path, issues: issues)
    }

    /// Parses and validates job-file bytes; `file` names the source in messages.
    public static func decode(_ data: Data, file: String, defaultName: String) throws(JobError) -> JobSpec {
        let (spec, issues) = try decodeCollecting(data, file: file, defaultName: defaultName)
        guard issues.isEmpty else { throw .invalid(file: file, issues: issues) }
        return spec
    }

    /// Like `decode`, but an invalid job whose layers could be read comes back as what was read, with
    /// its problems, so the plugins can check the layers in the same pass.
    static func decodeCollecting(_ data: Data, file: String, defaultName: String) throws(JobError)
        -> (JobSpec, [JobIssue])
    {
        let document: JSONValue
        do {
            document = try JSONParser.parse(data, limits: parseLimits)
        } catch {
            let excerpt = error.excerpt(of: data)
            throw .syntax(file: file, message: error.description + (excerpt.isEmpty ? "" : "\n" + excerpt))
        }
        switch JobDecoder.decode(document, defaultName: defaultName) {
        case .success(let spec): return (spec, [])
        case .failure(let problems):
            guard let partial = problems.partial else { throw .invalid(file: file, issues: problems.issues) }
            return (partial, problems.issues)
        }
    }
}
