import Glibc

/// Which file, in which version: device, inode, size, modification and change times of an open descriptor.
/// Two opens with equal identities read the same bytes unless the file was rewritten within the clock's
/// resolution, keeping its size.
public struct FileIdentity: Sendable, Hashable {
    public let device: UInt64
    public let inode: UInt64
    public let size: Int64
    public let modifiedSeconds: Int64
    public let modifiedNanoseconds: Int64
    /// When the file's content or attributes last changed (`st_ctim`), which no program can set: a file
    /// rewritten with its old size and modification time restored still gets another identity.
    public let changedSeconds: Int64
    public let changedNanoseconds: Int64

    init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        modifiedSeconds = Int64(info.st_mtim.tv_sec)
        modifiedNanoseconds = Int64(info.st_mtim.tv_nsec)
        changedSeconds = Int64(info.st_ctim.tv_sec)
        changedNanoseconds = Int64(info.st_ctim.tv_nsec)
    }
}
