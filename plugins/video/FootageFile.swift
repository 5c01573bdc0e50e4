import EffectKit
import FileInput
import Glibc

/// A job's footage file, opened once: confined to the job's folder, a regular file, within the size limit.
///
/// The decoder reads through its own copy of this descriptor (`reader()`), so the file that was
/// checked is the file decoded, whatever happens to its path afterwards.
final class FootageFile: @unchecked Sendable {
    /// The containers read, by file extension: video, and animated pictures (an APNG is often named `.png`).
    static let extensions = ["mp4", "mov", "m4v", "webm", "mkv", "gif", "apng", "png", "webp"]
    /// The largest file read: 4 GiB (an hour of 1080p at 8 Mbit/s).
    static let maxBytes = 4 << 30

    /// The path as the job names it, for messages.
    let name: String
    /// The absolute, symlink-free path (``Effect/inputFiles``).
    let path: String
    let size: Int
    /// Whether it is a WebP (by its signature), which `WebPAnimation` reads instead of libav.
    let isWebP: Bool
    /// Never written after `init`; closed in `deinit`. Why `@unchecked Sendable`: only `dup` reads it.
    private let descriptor: Int32

    init(_ name: String, jobDirectory: String) throws(EffectError) {
        let suffix = name.split(separator: ".").last.map { $0.lowercased() } ?? ""
        guard name.contains("."), Self.extensions.contains(suffix) else {
            throw EffectError(
                parameter: "file",
                "\(name) is not a video or animated picture: name a .\(Self.extensions.joined(separator: ", .")) file")
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
        if Self.isCutGIF(descriptor, size: Int(status.st_size)) {
            close(descriptor)
            throw EffectError(
                parameter: "file",
                "\(name) is truncated: a GIF ends with its trailer byte (;), this one does not; "
                    + "export it again")
        }
        self.name = name
        path = resolved
        size = Int(status.st_size)
        self.descriptor = descriptor
        isWebP = WebPAnimation.isWebP(descriptor)
    }

    deinit { close(descriptor) }

    /// Whether the file is a GIF (by its signature) whose last byte is not the trailer (0x3B, GIF89a section 27):
    /// cut off, which FFmpeg's demuxer reads as a shorter animation without a word.
    private static func isCutGIF(_ descriptor: Int32, size: Int) -> Bool {
        var head = [UInt8](repeating: 0, count: 6)
        guard size >= 6, pread(descriptor, &head, 6, 0) == 6,
            head.elementsEqual(Array("GIF87a".utf8)) || head.elementsEqual(Array("GIF89a".utf8))
        else { return false }
        var last: UInt8 = 0
        return pread(descriptor, &last, 1, off_t(size - 1)) != 1 || last != 0x3B
    }

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
