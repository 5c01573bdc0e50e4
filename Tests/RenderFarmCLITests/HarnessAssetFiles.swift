import Foundation

/// Small asset files written byte by byte, so that the harness controls their exact size: a PNG of
/// stored (uncompressed) deflate blocks keeps its size whatever its pixels, a WAV whatever its samples.
enum HarnessAssetFiles {
    /// An RGBA PNG `width` × `height` of a background and a few rectangles, from `random`.
    static func png(width: Int, height: Int, random: inout FuzzRandom) -> Data {
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        let opaque = random.chance(0.5)
        func paint(_ x0: Int, _ y0: Int, _ x1: Int, _ y1: Int, _ colour: [UInt8]) {
            for y in max(0, y0)..<min(height, y1) {
                for x in max(0, x0)..<min(width, x1) {
                    pixels.replaceSubrange((y * width + x) * 4..<(y * width + x) * 4 + 4, with: colour)
                }
            }
        }
        func colour() -> [UInt8] {
            [
                UInt8(random.next(256)), UInt8(random.next(256)), UInt8(random.next(256)),
                opaque ? 255 : UInt8(random.next(256)),
            ]
        }
        paint(0, 0, width, height, colour())
        for _ in 0..<random.integer(1...4) {
            let x = random.next(width)
            let y = random.next(height)
            paint(x, y, x + 1 + random.next(width), y + 1 + random.next(height), colour())
        }
        var raw: [UInt8] = []
        raw.reserveCapacity(height * (width * 4 + 1))
        for y in 0..<height {
            raw.append(0)
            raw.append(contentsOf: pixels[(y * width * 4)..<((y + 1) * width * 4)])
        }
        var header: [UInt8] = []
        header += bigEndian(UInt32(width)) + bigEndian(UInt32(height))
        header += [8, 6, 0, 0, 0]  // 8 bits, RGBA, deflate, adaptive filters, no interlace
        var file: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        file += chunk("IHDR", header) + chunk("IDAT", storedZlib(raw)) + chunk("IEND", [])
        return Data(file)
    }

    /// The width and height a PNG's header states.
    static func pngSize(_ data: Data) -> (width: Int, height: Int)? {
        guard data.count > 24 else { return nil }
        let bytes = [UInt8](data.prefix(24))
        func read(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (read(16), read(20))
    }

    /// A mono 16-bit WAV of `seconds` of a sine tone.
    static func wav(seconds: Double, random: inout FuzzRandom) -> Data {
        let rate = 8_000
        let count = Int(Double(rate) * seconds)
        let frequency = random.number(200...900)
        let amplitude = random.number(2_000...12_000)
        var samples: [UInt8] = []
        samples.reserveCapacity(count * 2)
        for index in 0..<count {
            let value = Int16(amplitude * sin(2 * Double.pi * frequency * Double(index) / Double(rate)))
            samples += [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)]
        }
        var file = Array("RIFF".utf8) + littleEndian(UInt32(36 + samples.count)) + Array("WAVE".utf8)
        file += Array("fmt ".utf8) + littleEndian(UInt32(16)) + [1, 0, 1, 0]
        file += littleEndian(UInt32(rate)) + littleEndian(UInt32(rate * 2)) + [2, 0, 16, 0]
        file += Array("data".utf8) + littleEndian(UInt32(samples.count)) + samples
        return Data(file)
    }

    private static func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + body
        return bigEndian(UInt32(body.count)) + typed + bigEndian(crc32(typed))
    }

    /// A zlib stream of stored blocks: its length depends only on the length of `raw`.
    private static func storedZlib(_ raw: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let length = min(65_535, raw.count - offset)
            let final: UInt8 = offset + length == raw.count ? 1 : 0
            out += [final] + littleEndian(UInt16(length)) + littleEndian(~UInt16(length))
            out += raw[offset..<offset + length]
            offset += length
        } while offset < raw.count
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in raw {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return out + bigEndian(b << 16 | a)
    }

    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    private static func littleEndian(_ value: UInt32) -> [UInt8] { bigEndian(value).reversed() }

    private static func littleEndian(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
}
