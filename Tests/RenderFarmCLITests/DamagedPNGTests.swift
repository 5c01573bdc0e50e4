import Foundation
import Testing

/// A PNG whose chunks are damaged — a CRC that does not match, a file cut off — is told as damaged, naming
/// the chunk, wherever RenderFarm reads one (cairo alone reported it as "out of memory").
@Suite("Damaged PNG files")
struct DamagedPNGTests {
    /// `jobs/assets/star.png` damaged by `damage`, with the message's detail.
    static let damages: [(name: String, detail: String, damage: @Sendable (inout [UInt8], Int) -> Void)] = [
        ("idat-crc", "its IDAT chunk at byte", { bytes, idat in bytes[idat + 10] ^= 0xFF }),
        ("ihdr-crc", "its IHDR chunk at byte 8 fails its CRC check", { bytes, _ in bytes[29] ^= 0xFF }),
        (
            "cut-off", "it is cut off inside its IDAT chunk at byte",
            { bytes, idat in bytes.removeLast(bytes.count - idat - 20) }
        ),
    ]

    @Test("a PNG with a broken CRC or cut off is refused as damaged, naming the chunk, by validate and compare")
    func damaged() throws {
        let folder = try TemporaryFolder()
        let star = Array(try Data(contentsOf: URL(fileURLWithPath: CLI.repositoryFile("jobs/assets/star.png"))))
        let idat = try #require(star.firstRange(of: Array("IDAT".utf8))?.lowerBound) - 4
        for (name, detail, damage) in Self.damages {
            var bytes = star
            damage(&bytes, idat)
            let file = name + ".png"
            try Data(bytes).write(to: folder.url.appendingPathComponent(file))
            let job = try folder.write(
                #"{"canvas": {"width": 50, "height": 50, "scale": 1}, "fps": 10, "duration": 0.1, "#
                    + #""layers": [{"effect": "image", "params": {"file": "\#(file)"}}]}"#, to: name + ".json")
            let validate = CLI.run(["validate", job])
            #expect(validate.status == 65, "\(validate.stderr)")
            let message = "layers[0].params.file: \(file) is a damaged PNG: \(detail)"
            #expect(validate.stderr.contains(message), "\(validate.stderr)")
            #expect(!validate.stderr.contains("out of memory"), "\(validate.stderr)")
            let compare = CLI.run(["compare", folder.path + "/" + file, CLI.repositoryFile("jobs/assets/star.png")])
            #expect(compare.status == 65, "\(compare.stderr)")
            #expect(compare.stderr.contains("\(file) is a damaged PNG: \(detail)"), "\(compare.stderr)")
        }
    }

    /// A 16 × 16 PNG whose 5 MB of image data inflate to about 800 MB cost seconds of CPU in cairo (libpng
    /// inflates the stream to its end); its size alone is refused. A 1024 × 1024 one whose 1 MB stream is within
    /// the size but inflates to 160 MB is refused once it passes the image's 4 MiB of rows.
    @Test("a decompression bomb is refused in validate and render at once, before cairo inflates it")
    func bomb() throws {
        let folder = try TemporaryFolder()
        let bombs = [
            ("idat", 16, 16, 5_000_000, "its image data is 5000000 bytes, more than a 16 × 16 image can need"),
            (
                "ratio", 1024, 1024, 1_000_000,
                "its image data inflates to more than the 4195328 bytes of a 1024 × 1024"
            ),
        ]
        for (name, width, height, bytes, detail) in bombs {
            try StoredPNG.bomb(width: width, height: height, bytes: bytes)
                .write(to: folder.url.appendingPathComponent(name + ".png"))
            let job = try folder.write(
                #"{"canvas": {"width": 50, "height": 50, "scale": 1}, "fps": 10, "duration": 0.1, "#
                    + #""output": {"dir": "out-\#(name)"}, "#
                    + #""layers": [{"effect": "image", "params": {"file": "\#(name).png"}}]}"#, to: name + ".json")
            for command in [["validate", job], ["render", job]] {
                let start = ContinuousClock.now
                let result = CLI.run(command)
                let seconds = (ContinuousClock.now - start) / .seconds(1)
                #expect(result.status == 65, "\(command[0]) \(name): \(result.stderr)")
                #expect(
                    result.stderr.contains("layers[0].params.file: \(name).png is refused: \(detail)"),
                    "\(command[0]) \(name): \(result.stderr)")
                #expect(result.stderr.contains("a decompression bomb"), "\(result.stderr)")
                // Seconds before (11 s to validate the 16 × 16 one on a shared machine); a debug build's start here.
                #expect(seconds < 3, "\(command[0]) \(name) took \(seconds) s")
            }
        }
    }
}
