import CCrypto
import Foundation

/// SHA-256 through OpenSSL's libcrypto.
package enum SHA256 {
    package static func hex(_ bytes: UnsafeRawBufferPointer) -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        // EVP_Digest only fails on allocation failure inside OpenSSL; the zeroed digest then never
        // matches a real file, so a frame would be rendered again rather than trusted.
        _ = EVP_Digest(bytes.baseAddress, bytes.count, &digest, &length, EVP_sha256(), nil)
        return hexString(digest)
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
