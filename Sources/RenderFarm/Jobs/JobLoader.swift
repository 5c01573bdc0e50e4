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
        let spec = try decode(data, file: path, defaultName: defaultName)
        return LoadedJob(spec: spec, file: absolute, directory: url.deletingLastPathComponent().path)
    }

    /// Parses and validates job-file bytes; `file` names the source in messages.
    public static func decode(_ data: Data, file: String, defaultName: String) throws(JobError) -> JobSpec {
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
