import Foundation
import Testing

/// Every example job renders with the real binary, so the examples in `jobs/` can never rot.
@Suite("Example jobs end to end")
struct ExampleJobsTests {
    static let jobs: [String] = {
        let folder = Binary.packageRoot.appendingPathComponent("jobs")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".json") }.sorted()
    }()

    @Test("jobs/ holds the example jobs")
    func examplesExist() {
        #expect(Self.jobs.contains("live-hearts.json"))
        #expect(Self.jobs.count >= 3)
    }

    @Test("each example job validates and renders completely", arguments: jobs)
    func rendersCompletely(job: String) throws {
        let out = try TemporaryFolder()
        let validate = try Binary.run(["validate", "jobs/\(job)"])
        #expect(validate.status == 0, "\(validate.stderr)")
        let render = try Binary.run(["render", "jobs/\(job)", "--out", out.path, "--progress", "none", "-j", "2"])
        #expect(render.status == 0, "\(render.stderr)")
        let manifest = try Manifest(folder: out.url)
        #expect(manifest.complete)
        #expect(manifest.frames.count == manifest.frameCount)
        for frame in manifest.frames {
            let data = try Data(contentsOf: out.url.appendingPathComponent(frame.file))
            #expect(data.starts(with: [0x89, 0x50, 0x4E, 0x47]), "\(frame.file) is not a PNG")
            #expect(data.count == frame.bytes)
            #expect(sha256(data) == frame.sha256, "\(frame.file) does not match its manifest checksum")
        }
    }

    @Test("-j 1 and -j 2 give byte-identical frames", arguments: jobs)
    func deterministicAcrossConcurrency(job: String) throws {
        let one = try TemporaryFolder()
        let two = try TemporaryFolder()
        try Binary.run(["render", "jobs/\(job)", "--out", one.path, "--progress", "none", "-j", "1"])
        try Binary.run(["render", "jobs/\(job)", "--out", two.path, "--progress", "none", "-j", "2"])
        let first = try Manifest(folder: one.url).frames.map(\.sha256)
        let second = try Manifest(folder: two.url).frames.map(\.sha256)
        #expect(!first.isEmpty)
        #expect(first == second)
    }
}
