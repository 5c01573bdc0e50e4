/// Why an input file cannot be read. Messages start with the path as the caller gave it.
public enum InputFileError: Error, Equatable, CustomStringConvertible {
    /// Nothing exists at the path (ENOENT, ENOTDIR).
    case missing(path: String)
    /// The path names a folder, a named pipe, a socket, a device or (when links are not followed) a link.
    case notAFile(path: String, kind: FileKind)
    /// A regular file larger than the reader accepts; nothing was read.
    case tooLarge(path: String, bytes: Int, limit: Int)
    /// `open` or `read` failed for another reason, e.g. permission denied.
    case unreadable(path: String, reason: String)

    public var path: String {
        switch self {
        case .missing(let path), .notAFile(let path, _), .tooLarge(let path, _, _), .unreadable(let path, _): path
        }
    }

    public var description: String { message(naming: path) }

    /// The message with `name` standing for the path, e.g. the path as a job file wrote it (escaped,
    /// `EscapedPath`).
    public func message(naming name: String) -> String { "\(EscapedPath.of(name)) \(reason)" }

    /// What is wrong, without the path: "is a named pipe, not a file".
    public var reason: String {
        switch self {
        case .missing: "does not exist"
        case .notAFile(_, let kind): "is \(kind.rawValue), not a file"
        case .tooLarge(_, let bytes, let limit): "is \(bytes) bytes, larger than the \(limit)-byte limit"
        case .unreadable(_, let reason): "cannot be read: \(reason)"
        }
    }
}
