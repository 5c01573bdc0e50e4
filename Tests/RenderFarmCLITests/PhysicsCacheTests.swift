import Foundation
import Testing

/// The job cache as a user meets it: `renderfarm prepare` leaves physics checkpoints in the output
/// folder, and renders of late frames that start from them (or from damaged ones, or from none)
/// write the same bytes.
@Suite("Physics checkpoints in the job cache")
struct PhysicsCacheTests {
    /// 130 s of gifts falling onto a floor at 60 fps (two checkpoints, at 60 s and 120 s), on a small canvas.
    static func job(in folder: TemporaryFolder) throws -> String {
        try folder.write(
            """
            { "name": "gifts", "fps": 60, "duration": 130, "seed": 9,
              "canvas": {"width": 120, "height": 160, "scale": 0.5}, "output": {"compression": "fast"},
              "layers": [ { "effect": "physics-bounce", "params": {
                "spawn": {"count": 300, "interval": 0.4, "area": {"x": 20, "y": 10, "width": 80, "height": 20}},
                "lifetime": 6, "bounds": true, "size": 14 } } ] }
            """, to: "gifts.json")
    }

    @Test("late frames rendered after prepare, from damaged checkpoints and from none are byte-identical")
    func lateFrames() throws {
        let folder = try TemporaryFolder()
        let job = try Self.job(in: folder)
        let late = 7_700...7_739
        let range = "\(late.lowerBound)-\(late.upperBound)"

        let cold = folder.url.appendingPathComponent("cold")
        let coldRender = CLI.run(["render", job, "--out", cold.path, "--frames", range, "--progress", "none"])
        #expect(coldRender.status == 0, "\(coldRender.stderr)")

        let warm = folder.url.appendingPathComponent("warm")
        let prepare = CLI.run(["prepare", job, "--out", warm.path])
        #expect(prepare.status == 0, "\(prepare.stderr)")
        #expect(prepare.stdout.contains("up to frame 7799, cache "), "\(prepare.stdout)")
        let cache = warm.appendingPathComponent("renderfarm.cache/physics-bounce")
        let files = try FileManager.default.contentsOfDirectory(atPath: cache.path).filter { !$0.hasPrefix(".") }
        #expect(files.count == 2, "a checkpoint a minute: \(files)")
        #expect(!FileManager.default.fileExists(atPath: warm.appendingPathComponent("frame_00000.png").path))
        let warmRender = CLI.run(["render", job, "--out", warm.path, "--frames", range, "--progress", "none"])
        #expect(warmRender.status == 0, "\(warmRender.stderr)")
        let expected = try frameChecksums(cold)
        #expect(try frameChecksums(warm) == expected)
        #expect(expected.count == late.count)

        // Checkpoints cut in half or overwritten with garbage are ignored: the same bytes again.
        for (index, name) in files.enumerated() {
            let path = cache.appendingPathComponent(name)
            let bytes = try Data(contentsOf: path)
            try (index == 0 ? bytes.prefix(bytes.count / 2) : Data(repeating: 0x5A, count: bytes.count)).write(to: path)
        }
        let damaged = CLI.run(
            ["render", job, "--out", warm.path, "--frames", range, "--force", "--progress", "none"])
        #expect(damaged.status == 0, "\(damaged.stderr)")
        #expect(try frameChecksums(warm) == expected)
    }
}
