import Foundation

/// PNG files written byte by byte, their image data in one stored (uncompressed) deflate block: a file's size
/// depends only on its rows' length, never on the pixels.
enum StoredPNG {
    /// A PNG of `width` × `height` 8-bit pixels (`colorType` 2: RGB, 6: RGBA) whose image data is `rows`
    /// (each row a filter byte and its pixels; at most 65,535 bytes), as they are.
    static func data(width: Int, height: Int, rows: [UInt8], colorType: UInt8 = 2) -> Data {
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        // Deflate, no interlace.
        let header = bigEndian(width) + bigEndian(height) + [8, colorType, 0, 0, 0]
        let length = rows.count
        let stored: [UInt8] = [
            0x01, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF),
        ]
        let stream: [UInt8] = [0x78, 0x01] + stored + rows + bigEndian(adler32(rows))
        png += chunk("IHDR", header) + chunk("IDAT", stream) + chunk("IEND", [])
        return Data(png)
    }

    private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return bigEndian(data.count) + body + bigEndian(crc32(body))
    }

    private static func bigEndian(_ value: Int) -> [UInt8] {
        [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    /// CRC-32 (ISO 3309, as the PNG specification's annex D computes it).
    private static func crc32(_ bytes: [UInt8]) -> Int {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        }
        return Int(crc ^ 0xFFFF_FFFF)
    }

    private static func adler32(_ bytes: [UInt8]) -> Int {
        var (a, b) = (1, 0)
        for byte in bytes {
            a = (a + Int(byte)) % 65521
            b = (b + a) % 65521
        }
        return b << 16 | a
    }
}

/// A PNG that declares any size in its IHDR header but holds only a few bytes of image data: enough
/// for a reader that must refuse it from the header alone.
enum HeaderOnlyPNG {
    /// 8-bit RGBA whose image data is 16 zero bytes: far too little for the declared rows.
    static func bytes(width: Int, height: Int) -> Data {
        StoredPNG.data(width: width, height: height, rows: [UInt8](repeating: 0, count: 16), colorType: 6)
    }
}
