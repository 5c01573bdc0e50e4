import EffectKit
import FileInput
import Glibc

/// A job's footage file, opened once: confined to the job's folder, a regular file, within the size limit.
///
/// The decoder reads through its own copy of this descriptor (`reader()`), so the file that was
/// checked is the file decoded, whatever happens to its path afterwards.
final class FootageFile: @unchecked Sendable {
    /// The containers read, by file extension.
    static let extensions = ["mp4", "mov", "m4v", "webm", "mkv"]
    /// The largest file read: 4 GiB (an hour of 1080p at 8 Mbit/s).
    static let maxBytes = 4 << 30

    /// The path as the job names it, for messages.
    let name: String
    /// The absolute, symlink-free path (``Effect/inputFiles``).
    let path: String
    let size: Int
    /// Never written after `init`; closed in `deinit`. Why `@unchecked Sendable`: only `dup` reads it.
    private let descriptor: Int32

    init(_ name: String, jobDirectory: String) throws(EffectError) {
        let suffix = name.split(separator: ".").last.map { $0.lowercased() } ?? ""
        guard name.contains("."), Self.extensions.contains(suffix) else {
            throw EffectError(
                parameter: "file",
                "\(name) is not a video file: name a .\(Self.extensions.joined(separator: ", .")) file")
        }
        let resolved = try AssetPath.resolve(name, in: jobDirectory, parameter: "file")
        // O_NONBLOCK: opening a FIFO or a device must not wait for a writer; fstat then refuses it.
        let descriptor = open(resolved, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw EffectError(parameter: "file", "\(name) cannot be opened (\(String(cString: strerror(errno))))")
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            close(descriptor)
            throw EffectError(parameter: "file", "\(name) cannot be examined (\(String(cString: strerror(errno))))")
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw EffectError(parameter: "file", "\(name) is \(FileKind(mode: status.st_mode).rawValue), not a file")
        }
        guard status.st_size <= Self.maxBytes else {
            close(descriptor)
            throw EffectError(parameter: "file", "\(name) is \(status.st_size) bytes; the limit is \(Self.maxBytes)")
        }
        // Reads block as for any regular file from here on.
        _ = fcntl(descriptor, F_SETFL, O_RDONLY)
        self.name = name
        path = resolved
        size = Int(status.st_size)
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// A descriptor of its own for one reader (a `dup`: the reader reads with `pread` at a position of
    /// its own, and a sandboxed worker could not open the file again); the reader closes it.
    func reader() throws(EffectError) -> Int32 {
        let copy = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0 else {
            throw EffectError(parameter: "file", "\(name) cannot be read again (\(String(cString: strerror(errno))))")
        }
        return copy
    }
}
