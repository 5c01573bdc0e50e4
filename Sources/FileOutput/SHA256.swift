import CNettle
import Foundation

/// SHA-256 through Nettle, which has nothing to set up before its first digest (OpenSSL 3 spends about a
/// millisecond loading its providers, a cost every short command paid) and uses the CPU's SHA instructions
/// where it has them.
package enum SHA256 {
    package static func hex(_ bytes: UnsafeRawBufferPointer) -> String {
        var hasher = Hasher()
        hasher.update(bytes)
        return hasher.hex()
    }

    /// A digest fed in pieces.
    package struct Hasher {
        private var context = sha256_ctx()

        package init() { nettle_sha256_init(&context) }

        package mutating func update(_ bytes: UnsafeRawBufferPointer) {
            guard let base = bytes.baseAddress else { return }
            nettle_sha256_update(&context, bytes.count, base.assumingMemoryBound(to: UInt8.self))
        }

        /// The digest as lowercase hexadecimal digits; the hasher starts over afterwards.
        package mutating func hex() -> String {
            var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_SIZE))
            nettle_sha256_digest(&context, digest.count, &digest)
            return hexString(digest)
        }
    }

    /// Lower-case hexadecimal digits of `bytes`, without Foundation's per-byte formatting.
    package static func hexString(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    package static func hex(_ data: Data) -> String { data.withUnsafeBytes { hex($0) } }

    package static func hex(_ text: String) -> String { hex(Data(text.utf8)) }
}
