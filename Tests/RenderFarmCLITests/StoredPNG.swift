import Foundation

/// PNG files written byte by byte, their image data in one stored (uncompressed) deflate block: a file's size
/// depends only on its rows' length, never on the pixels.
enum StoredPNG {
    /// A PNG of `width` × `height` 8-bit pixels (`colorType` 2: RGB, 6: RGBA) whose image data is `rows`
    /// (each row a filter byte and its pixels; at most 65,535 bytes), as they are.
    static func data(width: Int, height: Int, rows: [UInt8], colorType: UInt8 = 2) -> Data {
        let length = rows.count
        let stored: [UInt8] = [
            0x01, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF),
        ]
        let stream: [UInt8] = [0x78, 0x01] + stored + rows + bigEndian(adler32(rows))
        return png(width: width, height: height, colorType: colorType, stream: stream)
    }

    /// A PNG of `width` × `height` 8-bit pixels whose image data is the zlib `stream` as it is, in one IDAT chunk.
    static func png(width: Int, height: Int, colorType: UInt8 = 2, stream: [UInt8]) -> Data {
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        let header = bigEndian(width) + bigEndian(height) + [8, colorType, 0, 0, 0]
        png += chunk("IHDR", header) + chunk("IDAT", stream) + chunk("IEND", [])
        return Data(png)
    }

    /// A decompression bomb: a PNG of `width` × `height` RGBA pixels whose zlib stream of about `bytes` bytes
    /// inflates to zeros 158 times as many (a fixed-Huffman block of one literal and then copies of 258 bytes,
    /// 13 bits each): its first rows are transparent, and the rest of the stream is more than they need.
    static func bomb(width: Int, height: Int, bytes: Int) -> Data {
        var bits: [Bool] = []
        // Huffman codes are sent from their most significant bit, everything else from its least.
        func code(_ value: Int, _ count: Int) {
            for bit in (0..<count).reversed() { bits.append(value >> bit & 1 == 1) }
        }
        // BFINAL 1, BTYPE 01 (fixed Huffman), LSB first.
        bits += [true, true, false]
        code(0b0011_0000, 8)  // literal 0
        // Length 258 (symbol 285: 11000101), distance 1 (code 0: 00000): 13 bits, 24 with the above, then 8 a pattern.
        for _ in 0..<9 { code(0b1100_0101, 8); code(0, 5) }
        var packed = [UInt8](repeating: 0, count: bits.count / 8)
        for (index, bit) in bits.enumerated() where bit && index / 8 < packed.count {
            packed[index / 8] |= 1 << (index % 8)
        }
        let pattern = Array(packed[3..<16])
        var stream: [UInt8] = [0x78, 0x01] + packed[0..<3]
        stream.reserveCapacity(bytes + 16)
        while stream.count < bytes { stream += pattern }
        return png(width: width, height: height, colorType: 6, stream: stream)
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
