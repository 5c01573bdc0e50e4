import FileInput

/// Writing output failed. `path` is the file or folder concerned.
package enum OutputError: Error, Equatable, CustomStringConvertible {
    /// The output folder cannot be created or written (exit 73).
    case cannotCreate(path: String, reason: String)
    /// Reading or writing a file failed, e.g. the disk is full (exit 74).
    case io(path: String, reason: String)
    /// The output folder would leave the allowed root (exit 65: the job asks for it).
    case outsideRoot(path: String, root: String)
    /// Another run holds the folder's lock (exit 75); `holders` names it when it could be read.
    case locked(path: String, holders: [LockHolder])

    package var description: String {
        switch self {
        case .cannotCreate(let path, let reason):
            "cannot create output \(EscapedPath.of(path)): \(reason)"
        case .io(let path, let reason):
            "I/O error on \(EscapedPath.of(path)): \(reason)"
        case .outsideRoot(let path, let root):
            "output folder \(EscapedPath.of(path)) is outside \(EscapedPath.of(root)); "
                + "pass --out or --output-root to allow another place"
        case .locked(let path, let holders):
            "\(EscapedPath.of(path)) is in use by "
                + (holders.isEmpty ? "another run" : holders.map(\.description).joined(separator: ", "))
                + "; wait for it to finish, or stop it and run again"
        }
    }
}
