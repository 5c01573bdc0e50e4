import Foundation
import Testing

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
            // A process of its own: were the image decoded after all (a gigabyte of pixels), it is killed at the
            // timeout and the test process keeps its memory.
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
        let job = try folder.write(SmallJob.text(image: "star.png"), to: "job.json")
        let out = folder.url.appendingPathComponent("out/job")
        let result = CLI.run(["render", job, "--out", out.path, "--progress", "none"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Manifest(folder: out).complete)
    }
}
