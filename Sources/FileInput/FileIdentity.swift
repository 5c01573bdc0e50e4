import Glibc

/// Which file, in which version: device, inode, size and modification time of an open descriptor. Two
/// opens with equal identities read the same bytes unless the file was rewritten within the clock's
/// resolution, keeping its size.
public struct FileIdentity: Sendable, Hashable {
    public let device: UInt64
    public let inode: UInt64
    public let size: Int64
    public let modifiedSeconds: Int64
    public let modifiedNanoseconds: Int64

    init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        modifiedSeconds = Int64(info.st_mtim.tv_sec)
        modifiedNanoseconds = Int64(info.st_mtim.tv_nsec)
    }
}
