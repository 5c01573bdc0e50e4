/// The chunk structure of PNG bytes checked without decoding (PNG specification, section 5): every chunk
/// whole and its CRC right, up to `IEND`. cairo 1.16 reports every libpng error as "out of memory", so a
/// PNG cairo cannot decode is checked here to tell a damaged file (a wrong CRC, a file cut off) as such.
enum PNGChunks {
    /// What is damaged in `bytes` (which start with a PNG signature), e.g. "its IDAT chunk at byte 33
    /// fails its CRC check"; nil when every chunk up to `IEND` is whole and its CRC right.
    static func damage(in bytes: [UInt8]) -> String? {
        var offset = PNGHeader.signature.count
        while true {
            guard offset + 8 <= bytes.count else { return "it is cut off after \(bytes.count) bytes, before IEND" }
            let length = bigEndian(bytes[offset..<offset + 4])
            let type = bytes[offset + 4..<offset + 8]
            guard type.allSatisfy({ (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }) else {
                return "it has no valid chunk at byte \(offset)"
            }
            let name = String(decoding: type, as: UTF8.self)
            // A length over 2^31 - 1 is invalid (section 5.3).
            guard length <= 0x7FFF_FFFF else { return "its \(name) chunk at byte \(offset) has an invalid length" }
            let end = offset + 12 + length
            guard end <= bytes.count else { return "it is cut off inside its \(name) chunk at byte \(offset)" }
            let stored = bigEndian(bytes[end - 4..<end])
            guard crc32(bytes[offset + 4..<end - 4]) == stored else {
                return "its \(name) chunk at byte \(offset) fails its CRC check"
            }
            if name == "IEND" { return nil }
            offset = end
        }
    }

    private static func bigEndian(_ bytes: ArraySlice<UInt8>) -> Int {
        bytes.reduce(0) { $0 << 8 | Int($1) }
    }

    /// CRC-32 as PNG computes it over a chunk's type and data (ISO 3309, polynomial 0xEDB88320 reflected).
    static func crc32(_ bytes: ArraySlice<UInt8>) -> Int {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return Int(crc ^ 0xFFFF_FFFF)
    }

    private static let table: [UInt32] = (0..<256).map { index in
        (0..<8).reduce(UInt32(index)) { crc, _ in crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
    }
}
