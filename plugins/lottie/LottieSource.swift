import EffectKit
import FileInput
import Foundation

/// Reads a job's Lottie file: confined to the job's folder, never blocking, bounded in size.
enum LottieSource {
    /// The largest Lottie file read, in bytes. Hand-made gift animations are a few hundred KiB; images are
    /// not accepted inside them (see `LottieCheck`), so this leaves room without inviting abuse.
    static let maxBytes = 4 << 20

    /// The bytes of `path` (relative to `jobDirectory`) and the file they came from (absolute, links
    /// resolved), or an error naming the `file` parameter.
    static func read(_ path: String, jobDirectory: String) throws(EffectError) -> (bytes: [UInt8], file: String) {
        guard path.lowercased().hasSuffix(".json") else {
            throw EffectError(parameter: "file", "\(path) is not a .json Lottie file (dotLottie archives are not read)")
        }
        let resolved = try AssetPath.resolve(path, in: jobDirectory, parameter: "file")
        // O_NONBLOCK: opening a FIFO or a device must not wait for a writer; fstat then refuses it.
        let descriptor = open(resolved, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw EffectError(parameter: "file", "\(path) cannot be opened (\(String(cString: strerror(errno))))")
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw EffectError(parameter: "file", "\(path) cannot be examined (\(String(cString: strerror(errno))))")
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw EffectError(parameter: "file", "\(path) is \(FileKind(mode: status.st_mode).rawValue), not a file")
        }
        guard status.st_size <= maxBytes else {
            throw EffectError(parameter: "file", "\(path) is \(status.st_size) bytes; the limit is \(maxBytes)")
        }
        var bytes = [UInt8](repeating: 0, count: Int(status.st_size))
        var filled = 0
        while filled < bytes.count {
            let count = bytes.withUnsafeMutableBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return Foundation.read(descriptor, base + filled, buffer.count - filled)
            }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                throw EffectError(parameter: "file", "\(path) could not be read to its end")
            }
            filled += count
        }
        return (bytes, resolved)
    }
}
