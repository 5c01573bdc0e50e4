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

    /// The example jobs whose variants vary `canvas.scale`, which `--scale` would replace.
    static let scaleMatrixJobs: [String] = jobs.filter { job in
        let text = try? String(contentsOf: Binary.packageRoot.appendingPathComponent("jobs/\(job)"), encoding: .utf8)
        return (text ?? "").contains("\"canvas.scale\": [")
    }

    /// The example jobs without variants (VariantTests shards a batch of variants).
    static let singleJobs: [String] = jobs.filter { job in
        let text = try? String(contentsOf: Binary.packageRoot.appendingPathComponent("jobs/\(job)"), encoding: .utf8)
        return !(text ?? "").contains("\"variants\"")
    }

    /// `make sanitize` sets RENDERFARM_SANITIZE: under AddressSanitizer and ThreadSanitizer one concurrent
    /// render of each job, at a quarter of its size, is what the sanitizers check; the reruns that prove the
    /// bytes equal are `make test`'s.
    static let sanitized = ProcessInfo.processInfo.environment["RENDERFARM_SANITIZE"] != nil

    /// Every render here is at half the job's size (a quarter under the sanitizers): each frame is drawn and
    /// written as at full size, for a quarter of the pixels (`make ci-render` renders at half size too, and
    /// `make demo` the default job at full size). A canvas.scale matrix keeps its scales: --scale would give
    /// its variants one.
    static func scaled(_ job: String) -> [String] {
        scaleMatrixJobs.contains(job) ? [] : ["--scale", sanitized ? "0.25" : "0.5"]
    }

    @Test("jobs/ holds the example jobs")
    func examplesExist() {
        #expect(Self.jobs.contains("live-hearts.json"))
        #expect(Self.jobs.count >= 3)
    }

    /// Each job is rendered twice, and the second render must give the first one's bytes: at `-j 2`
    /// (checked whole: a complete manifest whose every frame is the PNG it lists, and the reference frames
    /// in `Tests/References` matched), then as the union
    /// of 3 shards at `-j 1`, merged (live-hearts also as 1, 2 and 7 shards, at `-j 2`). A job with
    /// variants, which `--shard` splits as a batch (VariantTests), is rendered again at `-j 1` instead.
    @Test(
        "each example job validates and renders completely; -j 1, -j 2 and merged --shard K/N give the same bytes",
        arguments: jobs)
    func rendersCompletely(job: String) throws {
        let out = try TemporaryFolder()
        let validate = CLI.run(["validate", "jobs/\(job)"])
        #expect(validate.status == 0, "\(validate.stderr)")
        let render = CLI.run(
            ["render", "jobs/\(job)", "--out", out.path, "--progress", "none", "-j", "2"] + Self.scaled(job))
        #expect(render.status == 0, "\(render.stderr)")
        let folders = Self.renderFolders(out.url)
        #expect(!folders.isEmpty)
        for folder in folders {
            let manifest = try Manifest(folder: folder)
            #expect(manifest.complete)
            #expect(manifest.frames.count == manifest.frameCount)
            for frame in manifest.frames {
                let data = try Data(contentsOf: folder.appendingPathComponent(frame.file))
                #expect(data.starts(with: [0x89, 0x50, 0x4E, 0x47]), "\(frame.file) is not a PNG")
                #expect(data.count == frame.bytes)
                #expect(sha256(data) == frame.sha256, "\(frame.file) does not match its manifest checksum")
            }
        }
        guard !Self.sanitized else { return }
        try Self.expectReferences(job, out.url)
        guard Self.singleJobs.contains(job) else {
            let one = try TemporaryFolder()
            let serial = CLI.run(
                ["render", "jobs/\(job)", "--out", one.path, "--progress", "none", "-j", "1"] + Self.scaled(job))
            #expect(serial.status == 0, "\(serial.stderr)")
            let first = try Self.renderFolders(one.url).flatMap { try Manifest(folder: $0).frames.map(\.sha256) }
            #expect(!first.isEmpty)
            #expect(first == (try folders.flatMap { try Manifest(folder: $0).frames.map(\.sha256) }))
            return
        }
        let reference = try frameChecksums(out)
        let referenceManifest = try Manifest(folder: out.url)
        let splits = job == "live-hearts.json" ? [(1, 2), (2, 2), (3, 1), (7, 2)] : [(3, 1)]
        for (count, workers) in splits {
            let union = try TemporaryFolder()
            for index in 0..<count {
                let shard = CLI.run(
                    [
                        "render", "jobs/\(job)", "--out", union.path,
                        "--shard", "\(index)/\(count)", "--progress", "none", "-j", "\(workers)",
                    ] + Self.scaled(job))
                #expect(shard.status == 0, "shard \(index)/\(count): \(shard.stderr)")
            }
            #expect(
                !FileManager.default.fileExists(atPath: union.url.appendingPathComponent("manifest.json").path),
                "a shard must leave manifest.json to merge")
            // Every frame was rendered by exactly one shard.
            #expect(try journalLines(union) == reference.count, "N = \(count)")
            let merge = CLI.run(["merge", union.path])
            #expect(merge.status == 0, "N = \(count): \(merge.stderr)")
            #expect(merge.stdout.contains("complete, \(reference.count) frames verified"))
            #expect(try frameChecksums(union) == reference, "N = \(count): frames differ from the plain render")
            let manifest = try Manifest(folder: union.url)
            #expect(manifest.complete)
            #expect(manifest.missing == "")
            #expect(manifest.frames.map(\.sha256) == referenceManifest.frames.map(\.sha256))
            #expect(manifest.ffmpeg == referenceManifest.ffmpeg)
        }
    }

    /// The job's frames in `out` (rendered at half size) look like its reference frames in
    /// `Tests/References/<job>/` (`make update-references` writes them; a variant's frame is named
    /// `<variant>__frame_….png`), within `renderfarm compare`'s default tolerances.
    static func expectReferences(_ job: String, _ out: URL) throws {
        let name = (job as NSString).deletingPathExtension
        let folder = Binary.packageRoot.appendingPathComponent("Tests/References/\(name)")
        let references = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
            $0.hasSuffix(".png")
        }
        #expect(!references.isEmpty, "no reference frames in \(folder.path): run make update-references")
        for reference in references {
            let frame = out.appendingPathComponent(reference.replacingOccurrences(of: "__", with: "/")).path
            let compare = CLI.run(["compare", frame, folder.appendingPathComponent(reference).path])
            let output = compare.stdout + compare.stderr
            #expect(
                compare.status == 0,
                "\(name): \(reference) differs from its reference (make update-references after a change): \(output)")
        }
    }

    /// The folders under `out` with a manifest: `out` itself, or one per variant of a job with variants.
    static func renderFolders(_ out: URL) -> [URL] {
        var folders: [URL] = []
        let enumerator = FileManager.default.enumerator(atPath: out.path)
        if FileManager.default.fileExists(atPath: out.appendingPathComponent("manifest.json").path) {
            folders.append(out)
        }
        while let path = enumerator?.nextObject() as? String {
            guard path.hasSuffix("/manifest.json") else { continue }
            folders.append(out.appendingPathComponent((path as NSString).deletingLastPathComponent))
        }
        return folders.sorted { $0.path < $1.path }
    }
}
