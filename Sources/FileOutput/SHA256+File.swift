import FileInput
import Locking

extension SHA256 {
    /// The checksum of a regular file (opened through `InputFile`, so a named pipe or a device put in
    /// place of a frame is never waited on); nil when it cannot be read.
    /// `followLastLink: false` gives nil for a symbolic link (a frame in an output folder).
    package static func hex(ofFile path: String, followLastLink: Bool = true) -> String? {
        guard let file = try? InputFile(path, followLastLink: followLastLink) else { return nil }
        return hex(of: file)
    }

    /// The checksum of the rest of an open file, read through one 256 KiB buffer (it stays in the cache
    /// while it is hashed); nil when it cannot be read.
    package static func hex(of file: InputFile) -> String? {
        withUnsafeTemporaryAllocation(byteCount: 256 << 10, alignment: 64) { buffer in
            var hasher = Hasher()
            while true {
                guard let count = try? file.read(into: buffer) else { return nil }
                guard count > 0 else { return hasher.hex() }
                hasher.update(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            }
        }
    }

    /// The checksum of `file`, from a process-wide table when this version of it (its `FileIdentity`: device,
    /// inode, size, modification and change times, which no rewrite keeps) was hashed before: an image the
    /// variants of a batch share, or a plugin library that every plan in a long-lived process (the studio,
    /// in-process tests) fingerprints, is read and hashed once per version. One entry per path.
    package static func hex(ofVersion file: InputFile) -> String? {
        if let known = versions.withLock({ $0[file.path] }), known.identity == file.identity { return known.sha256 }
        guard let computed = hex(of: file) else { return nil }
        versions.withLock { $0[file.path] = (file.identity, computed) }
        return computed
    }

    private static let versions = Locked<[String: (identity: FileIdentity, sha256: String)]>([:])
}
