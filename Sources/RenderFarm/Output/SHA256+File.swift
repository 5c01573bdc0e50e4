import CCrypto
import Foundation

extension SHA256 {
    /// The checksum of a file read in 1 MiB chunks (videos can be larger than memory should
    /// hold), or nil when it cannot be read.
    static func hex(streamingFile path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path), let context = EVP_MD_CTX_new() else { return nil }
        defer {
            EVP_MD_CTX_free(context)
            try? handle.close()
        }
        guard EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else { return nil }
        while true {
            let chunk: Data?
            do {
                chunk = try handle.read(upToCount: 1 << 20)
            } catch {
                return nil
            }
            guard let chunk, !chunk.isEmpty else { break }
            let ok = chunk.withUnsafeBytes { EVP_DigestUpdate(context, $0.baseAddress, $0.count) }
            guard ok == 1 else { return nil }
        }
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        guard EVP_DigestFinal_ex(context, &digest, &length) == 1 else { return nil }
        return digest.map { String(format: "%02x", $0) }.joined()
    }
}
