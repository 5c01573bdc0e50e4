import Glibc

/// The one way RenderFarm opens a file it reads on a user's behalf: job files, files found by scanning
/// a folder, image assets, manifests, job records, journals and frames.
///
/// The file is opened with `O_NONBLOCK` (opening a named pipe or a device never waits) and, when asked,
/// `O_NOFOLLOW` (a final symbolic link is refused, for paths already resolved by confinement rules).
/// `fstat` on the open descriptor then decides: anything but a regular file is refused, so there is no
/// window between a check and the open. Size limits are enforced on the same descriptor, and the read
/// stops at the limit even if the file grows meanwhile.
///
/// Owns its descriptor (closed on deinit); not `Sendable`, use it on one thread.
public final class InputFile {
    /// The path as the caller gave it, for messages.
    public let path: String
    /// Size in bytes when the file was opened.
    public let size: Int
    /// Device, inode, size and modification time of the open file: a cache key.
    public let identity: FileIdentity
    /// The open descriptor, owned by this value. A child process given it as its standard input reads,
    /// by `/dev/stdin`, the file this value opened and checked, whatever its path names by then.
    public let descriptor: Int32

    /// Opens the regular file at `path`; `followLastLink: false` refuses a symbolic link as the last
    /// component (`O_NOFOLLOW`).
    public convenience init(_ path: String, followLastLink: Bool = true) throws(InputFileError) {
        guard !path.utf8.contains(0) else { throw .unreadable(path: path, reason: "the path contains a NUL byte") }
        let flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | (followLastLink ? 0 : O_NOFOLLOW)
        let fd = open(path, flags)
        guard fd >= 0 else {
            let code = errno
            throw Self.openError(code, path, followLastLink: followLastLink) {
                FileKind(path: path, followLastLink: followLastLink)
            }
        }
        try self.init(checking: fd, path: path)
    }

    /// Opens the regular file `name` of the folder open as `folder`: one name (no `/`), no link followed
    /// (`openat` with `O_NOFOLLOW`), for files read from an output folder. `path` names it in messages.
    public convenience init(_ name: String, in folder: Int32, path: String) throws(InputFileError) {
        guard !name.isEmpty, name != ".", name != "..", !name.utf8.contains(where: { $0 == 0 || $0 == 0x2F }) else {
            throw .unreadable(path: path, reason: "\"\(name)\" is not a file name")
        }
        let fd = openat(folder, name, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else {
            let code = errno
            throw Self.openError(code, path, followLastLink: false) {
                var info = stat()
                return fstatat(folder, name, &info, AT_SYMLINK_NOFOLLOW) == 0 ? FileKind(mode: info.st_mode) : nil
            }
        }
        try self.init(checking: fd, path: path)
    }

    /// Takes `fd` when it is a regular file (else closes it and throws).
    private init(checking fd: Int32, path: String) throws(InputFileError) {
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            close(fd)
            throw .unreadable(path: path, reason: Self.reason(code))
        }
        let kind = FileKind(mode: info.st_mode)
        guard kind == .regular else {
            close(fd)
            throw .notAFile(path: path, kind: kind)
        }
        self.path = path
        descriptor = fd
        size = Int(info.st_size)
        identity = FileIdentity(info)
    }

    deinit { close(descriptor) }

    /// Reads the whole file at `path` (see `init`); files over `limit` bytes are refused unread.
    public static func read(_ path: String, limit: Int, followLastLink: Bool = true) throws(InputFileError)
        -> [UInt8]
    {
        try InputFile(path, followLastLink: followLastLink).readAll(limit: limit)
    }

    /// Refuses anything at `path` that is not a regular file, without reading it: for files another
    /// program reads (ffmpeg reading frames).
    public static func check(_ path: String) throws(InputFileError) {
        _ = try InputFile(path)
    }

    /// The rest of the file; throws `tooLarge` when it has more than `limit` bytes.
    public func readAll(limit: Int) throws(InputFileError) -> [UInt8] {
        guard size <= limit else { throw .tooLarge(path: path, bytes: size, limit: limit) }
        // Straight into the array, one byte past the size fstat gave: the end of the file is then seen
        // without a buffer of its own.
        var bytes = try read(filling: size + 1)
        // The file grew after fstat: read on, still refusing anything over the limit.
        while bytes.count > size {
            guard bytes.count <= limit else { throw .tooLarge(path: path, bytes: bytes.count, limit: limit) }
            let chunk = try read(upTo: 1 << 20)
            if chunk.isEmpty { break }
            bytes.append(contentsOf: chunk)
        }
        return bytes
    }

    /// Up to `count` bytes from the current position (one read); empty at the end of the file.
    public func read(upTo count: Int) throws(InputFileError) -> [UInt8] {
        try Self.bytes(capacity: max(1, count)) { buffer throws(InputFileError) in
            try read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<min(count, buffer.count)]))
        }
    }

    /// Up to `count` bytes from the current position, reading until they are all in or the file ends.
    private func read(filling count: Int) throws(InputFileError) -> [UInt8] {
        try Self.bytes(capacity: count) { buffer throws(InputFileError) in
            var filled = 0
            while filled < buffer.count {
                let read = try read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
                if read == 0 { break }
                filled += read
            }
            return filled
        }
    }

    /// An array of the bytes `fill` writes into `capacity` bytes of its storage (returning how many), which
    /// are not zeroed first.
    private static func bytes(
        capacity: Int, _ fill: (UnsafeMutableRawBufferPointer) throws(InputFileError) -> Int
    ) throws(InputFileError) -> [UInt8] {
        var failure: InputFileError?
        let bytes = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, initialized in
            do throws(InputFileError) {
                initialized = try fill(UnsafeMutableRawBufferPointer(buffer))
            } catch { failure = error }
        }
        if let failure { throw failure }
        return bytes
    }

    /// Reads up to `buffer.count` bytes from the current position into `buffer`: how many were read,
    /// 0 at the end of the file. Reusing one buffer spares a large read its allocations.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(InputFileError) -> Int {
        let result = DescriptorIO.retrying { Glibc.read(descriptor, buffer.baseAddress, buffer.count) }
        guard result >= 0 else { throw .unreadable(path: path, reason: Self.reason(errno)) }
        return result
    }

    /// The error of a failed open; `kind` says what is there now (for messages only).
    private static func openError(
        _ code: Int32, _ path: String, followLastLink: Bool, kind: () -> FileKind?
    ) -> InputFileError {
        switch code {
        case ENOENT, ENOTDIR: return .missing(path: path)
        // O_NOFOLLOW on a link.
        case ELOOP where !followLastLink: return .notAFile(path: path, kind: .symbolicLink)
        // open(2) of a socket, or of a device without a driver: say what it is.
        case ENXIO, EOPNOTSUPP:
            if let kind = kind(), kind != .regular { return .notAFile(path: path, kind: kind) }
            return .unreadable(path: path, reason: reason(code))
        default: return .unreadable(path: path, reason: reason(code))
        }
    }

    private static func reason(_ code: Int32) -> String { String(cString: strerror(code)) }
}
