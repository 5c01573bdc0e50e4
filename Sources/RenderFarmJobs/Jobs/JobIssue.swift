import FileOutput
import FileInput

/// One problem in a job file, with its path inside the file (`layers[1].params.rate`).
package struct JobIssue: Error, Sendable, Equatable, CustomStringConvertible {
    package var path: String
    package var message: String
    /// Whether the job can still be rendered (a plugin's warning) or not.
    package var severity: Severity = .error

    package enum Severity: Sendable, Equatable {
        case error, warning
    }

    package init(path: String, _ message: String, severity: Severity = .error) {
        self.path = path
        self.message = message
        self.severity = severity
    }

    package var description: String {
        let text = path.isEmpty ? message : "\(path): \(message)"
        return severity == .warning ? "warning: \(text)" : text
    }
}

/// Why a job file could not be used. Messages name the file and the place inside it.
package enum JobError: Error, Equatable, CustomStringConvertible {
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
    /// The job's output folder cannot be created or locked: another run holds it (exit 75), or
    /// creating it failed (exit 73 or 74).
    case output(file: String, error: OutputError)

    package var file: String {
        switch self {
        case .missing(let file), .unreadable(let file, _), .notAFile(let file, _), .syntax(let file, _),
            .invalid(let file, _), .output(let file, _):
            file
        }
    }

    package var description: String {
        let file = ShownPath.of(file)
        switch self {
        case .missing:
            return "\(file): no such job file"
        case .unreadable(_, let reason):
            return "\(file): cannot read: \(reason)"
        case .notAFile(_, let kind):
            return InputFileError.notAFile(path: file, kind: kind).description
        case .syntax(_, let message):
            return "\(file): \(message)"
        case .invalid(_, let issues):
            return issues.map { "\(file): \($0)" }.joined(separator: "\n")
        case .output(_, let error):
            return "\(file): \(error.description)"
        }
    }

    /// The problems that make the job unusable (an invalid job may carry warnings too).
    package var errorCount: Int {
        guard case .invalid(_, let issues) = self else { return 1 }
        return issues.filter { $0.severity == .error }.count
    }
}
