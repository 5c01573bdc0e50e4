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
}
