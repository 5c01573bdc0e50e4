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

    /// The kind encoded in `st_mode`.
    init(mode: mode_t) {
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
