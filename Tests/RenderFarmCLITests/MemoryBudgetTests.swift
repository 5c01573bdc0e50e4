import Foundation
import Testing

/// `render` keeps its frames in flight within a memory budget: `-j` is lowered to what fits, and a
/// frame that does not fit at all is refused before anything is written.
@Suite("Memory budget")
struct MemoryBudgetTests {
    /// A 2048 × 2048 pixel job (16 MiB a canvas, about 32 MiB a frame in flight) of `frames` frames.
    static func job(in folder: TemporaryFolder, frames: Int = 6) throws -> String {
        try folder.write(
            """
            {"name": "wide", "canvas": {"width": 1024, "height": 1024, "scale": 2}, "fps": 10,
             "duration": \(Double(frames) / 10), "output": {"dir": "out", "compression": "fast"},
             "layers": [{"effect": "floating-heart", "params": {"emitter": [512, 1000], "rate": 8, "size": 60}}]}
            """, to: "job.json")
    }

    @Test("-j is lowered to what --memory holds, and the frames equal a one-worker render")
    func lowered() throws {
        let folder = try TemporaryFolder()
        let job = try Self.job(in: folder)
        let result = CLI.run(["render", job, "-j", "32", "--memory", "200M", "--progress", "none"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "renderfarm: -j 32 lowered to 4: a frame in flight takes about 32 MB and the memory budget is 200 MB"),
            "\(result.stderr)")
        let single = CLI.run(
            ["render", job, "-j", "1", "--out", folder.path + "/single", "--progress", "none"])
        #expect(single.status == 0 && !single.stderr.contains("lowered"), "\(single.stderr)")
        for index in 0..<6 {
            let name = String(format: "frame_%05d.png", index)
            let many = try Data(contentsOf: folder.url.appendingPathComponent("out/" + name))
            let one = try Data(contentsOf: folder.url.appendingPathComponent("single/" + name))
            #expect(many == one, "\(name)")
        }
    }

    @Test("a frame larger than the budget is refused with 73 before anything is written")
    func refused() throws {
        let folder = try TemporaryFolder()
        let job = try Self.job(in: folder)
        let result = CLI.run(["render", job, "--memory", "80M", "--progress", "none"])
        #expect(result.status == 73, "\(result.stderr)")
        #expect(
            result.stderr.contains("a frame in flight takes about 32 MB, but the memory budget is 80 MB; give --memory"),
            "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/out"))
        let video = CLI.run(["render", job, "--memory", "80M", "--video", folder.path + "/x.mp4"])
        #expect(video.status == 73, "\(video.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/x.mp4"))
    }

    @Test("--memory takes sizes with units; anything else is a usage error")
    func sizes() throws {
        let folder = try TemporaryFolder()
        let job = try Self.job(in: folder, frames: 1)
        for bad in ["lots", "-1G", "0", "12Q"] {
            let result = CLI.run(["render", job, "--memory", bad])
            #expect(result.status == 64 && result.stderr.contains("--memory expects a size"), "\(bad): \(result.stderr)")
        }
        let fine = CLI.run(["render", job, "--memory", "1.5GiB", "--progress", "none"])
        #expect(fine.status == 0, "\(fine.stderr)")
    }
}
