import Foundation
import Testing

/// A PNG that declares any size in its IHDR header but holds only a few bytes of image data: enough
/// for a reader that must refuse it from the header alone.
enum HeaderOnlyPNG {
    static func bytes(width: Int, height: Int) -> Data {
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        // 8-bit RGBA, deflate, no filter method variants, no interlace.
        let header = bigEndian(width) + bigEndian(height) + [8, 6, 0, 0, 0]
        // A zlib stream of one stored block of 16 zero bytes: far too little for the declared rows.
        let zeros = [UInt8](repeating: 0, count: 16)
        let stream: [UInt8] = [0x78, 0x01, 0x01, 0x10, 0x00, 0xEF, 0xFF] + zeros + bigEndian(adler32(zeros))
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

/// Image assets are checked from their PNG header before anything is decoded (RenderFarm article
/// JobFileReference, "Files a job names").
@Suite("Image asset limits")
struct AssetLimitTests {
    @Test(
        "a PNG over the size limits is refused quickly by validate and render, naming the file, its size and the limit",
        arguments: [
            (16_000, 16_000, "the limit is 8192 pixels a side"), (8192, 4096, "the limit is 16777216 pixels"),
        ])
    func refusesLargeImages(width: Int, height: Int, limit: String) throws {
        let folder = try TemporaryFolder()
        try HeaderOnlyPNG.bytes(width: width, height: height).write(to: folder.url.appendingPathComponent("big.png"))
        try folder.write(SmallJob.text(image: "big.png"), to: "job.json")
        for command in ["validate", "render"] {
            let start = Date()
            let result = try Binary.run([command, "job.json"] + SmallJob.quiet(command), in: folder.url, timeout: 20)
            #expect(Date().timeIntervalSince(start) < 5, "\(command) took too long")
            #expect(result.status == 65, "\(command): \(result.stderr)")
            #expect(
                result.stderr.contains(
                    "image: big.png is \(width) × \(height) pixels, too large to draw (\(limit))"), "\(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/out"), "a refused job wrote output")
    }

    @Test("an image within the limits but drawn much smaller renders")
    func rendersLargeWithinLimits() throws {
        let folder = try TemporaryFolder()
        try FileManager.default.copyItem(
            at: Binary.packageRoot.appendingPathComponent("jobs/assets/star.png"),
            to: folder.url.appendingPathComponent("star.png"))
        try folder.write(SmallJob.text(image: "star.png"), to: "job.json")
        let result = try Binary.run(["render", "job.json", "--progress", "none"], in: folder.url, timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Manifest(folder: folder.url.appendingPathComponent("out/job")).complete)
    }
}
