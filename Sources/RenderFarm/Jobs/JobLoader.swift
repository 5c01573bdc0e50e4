import FileInput
import Foundation
import StrictJSON

/// A job file read from disk and validated on its own (effects are checked by `RenderPlan`).
public struct LoadedJob: Sendable, Equatable {
    public var spec: JobSpec
    /// Absolute path of the job file.
    public var file: String
    /// Absolute folder of the job file: relative paths inside it resolve here.
    public var directory: String
}

/// Reads job files with the limits of DESIGN.md §7: no input can crash the renderer.
public enum JobLoader {
    /// The largest job file accepted.
    public static let maxFileBytes = 1 << 20
    static let parseLimits = JSONParser.Limits(
        maxBytes: maxFileBytes, maxDepth: 32, maxStringBytes: 4096, maxContainerCount: 100_000)

    /// Reads and validates the job file at `path` (through `InputFile`: a named pipe, a device or a
    /// folder is refused without waiting on it).
    public static func load(_ path: String) throws(JobError) -> LoadedJob {
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
        let defaultName = url.deletingPathExtension().lastPathComponent
        let spec = try decode(data, file: path, defaultName: defaultName)
        return LoadedJob(spec: spec, file: url.path, directory: url.deletingLastPathComponent().path)
    }

    /// Parses and validates job-file bytes; `file` names the source in messages.
    public static func decode(_ data: some Collection<UInt8>, file: String, defaultName: String) throws(JobError)
        -> JobSpec
    {
        let document: JSONValue
        do {
            document = try JSONParser.parse(data, limits: parseLimits)
        } catch {
            throw .syntax(file: file, message: error.description)
        }
        switch JobDecoder.decode(document, defaultName: defaultName) {
        case .success(let spec): return spec
        case .failure(let problems): throw .invalid(file: file, issues: problems.issues)
        }
    }
}
