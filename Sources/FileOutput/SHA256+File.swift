import FileInput

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
}
