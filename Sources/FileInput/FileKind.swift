import Glibc

/// What a path names, as `stat(2)` sees it: the words a message uses for anything that is not a file.
public enum FileKind: String, Sendable, Equatable {
    case regular = "a file"
    case directory = "a folder"
    case namedPipe = "a named pipe"
    case socket = "a socket"
    case characterDevice = "a character device"
    case blockDevice = "a block device"
    case symbolicLink = "a symbolic link"
    case unknown = "a special file"

    /// What `path` names now (`lstat` when `followLastLink` is false); nil when nothing is there. Only for
    /// messages after an `open` failed: deciding by it before opening would race with the file changing.
    public init?(path: String, followLastLink: Bool = true) {
        var info = stat()
        guard (followLastLink ? stat(path, &info) : lstat(path, &info)) == 0 else { return nil }
        self.init(mode: info.st_mode)
    }

    /// The kind encoded in `st_mode`.
    public init(mode: mode_t) {
        switch mode & S_IFMT {
        case S_IFREG: self = .regular
        case S_IFDIR: self = .directory
        case S_IFIFO: self = .namedPipe
        case S_IFSOCK: self = .socket
        case S_IFCHR: self = .characterDevice
        case S_IFBLK: self = .blockDevice
        case S_IFLNK: self = .symbolicLink
        default: self = .unknown
        }
    }
}
