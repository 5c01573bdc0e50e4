import FileInput

/// One problem in a job file, with its path inside the file (`layers[1].params.rate`).
public struct JobIssue: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var message: String

    public init(path: String, _ message: String) {
        self.path = path
        self.message = message
    }

    public var description: String { path.isEmpty ? message : "\(path): \(message)" }
}

/// Why a job file could not be used. Messages name the file and the place inside it.
public enum JobError: Error, Equatable, CustomStringConvertible {
    /// The file does not exist (exit 66).
    case missing(file: String)
    /// The file exists but cannot be read (exit 66).
    case unreadable(file: String, reason: String)
    /// The path names a folder, a named pipe, a socket or a device (exit 66; skipped when found by
    /// scanning a folder).
    case notAFile(file: String, kind: FileKind)
    /// Not valid JSON, or beyond a size or nesting limit (exit 65).
    case syntax(file: String, message: String)
    /// Valid JSON that is not a valid job; every problem at once (exit 65).
    case invalid(file: String, issues: [JobIssue])

    public var file: String {
        switch self {
        case .missing(let file), .unreadable(let file, _), .notAFile(let file, _), .syntax(let file, _),
            .invalid(let file, _):
            file
        }
    }

    public var description: String {
        switch self {
        case .missing(let file):
            return "\(file): no such job file"
        case .unreadable(let file, let reason):
            return "\(file): cannot read: \(reason)"
        case .notAFile(let file, let kind):
            return InputFileError.notAFile(path: file, kind: kind).description
        case .syntax(let file, let message):
            return "\(file): \(message)"
        case .invalid(let file, let issues):
            return issues.map { "\(file): \($0)" }.joined(separator: "\n")
        }
    }
}
