import CCrypto
import FileInput

extension SHA256 {
    /// The checksum of a regular file (opened through `InputFile`, so a named pipe or a device put in
    /// place of a frame is never waited on), read in 1 MiB chunks; nil when it cannot be read.
    /// `followLastLink: false` gives nil for a symbolic link (a frame in an output folder).
    package static func hex(ofFile path: String, followLastLink: Bool = true) -> String? {
        guard let file = try? InputFile(path, followLastLink: followLastLink) else { return nil }
        return hex(of: file)
    }

    /// The checksum of the rest of an open file, read in 1 MiB chunks; nil when it cannot be read.
    package static func hex(of file: InputFile) -> String? {
        guard let context = EVP_MD_CTX_new() else { return nil }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else { return nil }
        while true {
            guard let chunk = try? file.read(upTo: 1 << 20) else { return nil }
            guard !chunk.isEmpty else { break }
            let ok = chunk.withUnsafeBytes { EVP_DigestUpdate(context, $0.baseAddress, $0.count) }
            guard ok == 1 else { return nil }
        }
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        guard EVP_DigestFinal_ex(context, &digest, &length) == 1 else { return nil }
        return hexString(digest)
    }
}
