import Foundation
import Testing

/// Every PNG path (libdeflate, zlib, libpng with adaptive filters) writes standard PNG files, and
/// drawing static layers once gives the same bytes as drawing them at every frame.
@Suite("PNG output and static layers")
struct OutputFormatTests {
    /// Example jobs that between them take every encode path: opaque frames at level 1
    /// (libdeflate), transparent frames at level 1 (mostly flat: zlib), "small" (libpng).
    static let jobs = ["hearts-on-gradient.json", "live-hearts.json", "burst.json"]

    @Test("pngcheck accepts every frame", arguments: jobs)
    func pngcheckAccepts(job: String) throws {
        let pngcheck = "/usr/bin/pngcheck"
        try #require(FileManager.default.isExecutableFile(atPath: pngcheck), "pngcheck is missing: run make deps")
        let out = try TemporaryFolder()
        let render = CLI.run([
            "render", "jobs/\(job)", "--frames", "0-7,60-63", "--out", out.path,
            "--progress", "none", "-j", "2",
        ])
        #expect(render.status == 0, "\(render.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: out.path).filter { $0.hasSuffix(".png") }
            .sorted()
        #expect(files.count == 12)
        let check = Process()
        check.executableURL = URL(fileURLWithPath: pngcheck)
        check.arguments = ["-q"] + files.map { out.url.appendingPathComponent($0).path }
        let output = Pipe()
        check.standardOutput = output
        check.standardError = output
        try check.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        check.waitUntilExit()
        #expect(check.terminationStatus == 0, "pngcheck: \(text)")
    }

    @Test("static layers drawn once give the same bytes as drawn every frame")
    func staticLayerCache() throws {
        let cached = try TemporaryFolder()
        let redrawn = try TemporaryFolder()
        let arguments = ["render", "jobs/hearts-on-gradient.json", "--frames", "0-11", "--progress", "none", "-j", "2"]
        let first = CLI.run(arguments + ["--out", cached.path])
        let second = CLI.run(
            arguments + ["--out", redrawn.path],
            environment: ["RENDERFARM_STATIC_LAYERS": "redraw"])
        #expect(first.status == 0 && second.status == 0, "\(first.stderr)\(second.stderr)")
        let one = try Manifest(folder: cached.url).frames.map(\.sha256)
        let two = try Manifest(folder: redrawn.url).frames.map(\.sha256)
        #expect(one.count == 12)
        #expect(one == two)
    }

    @Test("the gradient plugin declares itself frame-invariant, the heart does not")
    func frameInvariantFlag() throws {
        let result = CLI.run(["plugins", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let plugins = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]] ?? []
        let flags = Dictionary(
            uniqueKeysWithValues: plugins.compactMap { plugin in
                (plugin["id"] as? String).map { ($0, plugin["static"] as? Bool) }
            })
        #expect(flags["gradient"] == .some(true))
        #expect(flags["floating-heart"] == .some(false))
    }
}
