import CairoKit
import Foundation
import Testing

/// Killed renders lose nothing and re-runs do only what is left (RenderFarm article OutputFolder).
@Suite("Crash safety and resume", .serialized)
struct ResumeTests {
    static let job = "jobs/live-hearts.json"
    static let frames = "0-299"

    /// An uninterrupted render of the same frames, by file name.
    static let reference: [String: Data] = {
        guard let folder = try? TemporaryFolder(),
            CLI.run(["render", job, "--frames", frames, "--out", folder.path, "--progress", "none"]).status == 0
        else { return [:] }
        return frameFiles(in: folder.url)
    }()

    static func frameFiles(in folder: URL) -> [String: Data] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        var files: [String: Data] = [:]
        for name in names where name.hasPrefix("frame_") && name.hasSuffix(".png") {
            files[name] = try? Data(contentsOf: folder.appendingPathComponent(name))
        }
        return files
    }

    /// Frames a resume may skip: a journal line whose checksum matches the file on disk.
    static func verifiedFrames(in folder: URL) -> Set<Int> {
        let journal =
            (try? String(contentsOf: folder.appendingPathComponent("renderfarm.journal.jsonl"), encoding: .utf8)) ?? ""
        var verified: Set<Int> = []
        for line in journal.split(separator: "\n") {
            guard let entry = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let index = entry["index"] as? Int, let file = entry["file"] as? String,
                let checksum = entry["sha256"] as? String, entry["status"] as? String == "ok",
                let data = try? Data(contentsOf: folder.appendingPathComponent(file)), sha256(data) == checksum
            else { continue }
            verified.insert(index)
        }
        return verified
    }

    /// The "skipped" count of the JSON progress start event, if the run got that far.
    static func skipped(in stderr: String) -> Int? {
        progressEvents("start", in: stderr).first?["skipped"] as? Int
    }

    /// Every frame under its final name is complete: byte-identical to the uninterrupted render.
    static func expectNoCorruptFrames(in folder: URL, sourceLocation: SourceLocation = #_sourceLocation) {
        for (name, data) in frameFiles(in: folder) {
            #expect(data == reference[name], "\(name) differs from the clean render", sourceLocation: sourceLocation)
        }
    }

    @Test("20 SIGKILLs at random moments, each followed by a resume: the result equals a clean render")
    func sigkill() throws {
        try #require(Self.reference.count == 300)
        let out = try TemporaryFolder()
        var random = SystemRandomNumberGenerator()
        let arguments = [
            "render", Self.job, "--frames", Self.frames, "--out", out.path, "--progress", "json", "-j", "2",
        ]
        for _ in 0..<20 {
            let before = Self.verifiedFrames(in: out.url)
            let run = try Binary.Running(arguments)
            // At a random moment of the run: right after its Nth frame event, with frames in flight.
            try Self.waitForFrameEvents(Int.random(in: 1...12, using: &random), of: run)
            run.signal(SIGKILL)
            let result = run.wait()
            Self.expectNoCorruptFrames(in: out.url)
            if let skipped = Self.skipped(in: result.stderr) {
                #expect(skipped == before.count, "a resume must skip exactly the verified frames")
            }
        }
        let before = Self.verifiedFrames(in: out.url)
        let final = try Binary.Running(arguments).wait()
        #expect(final.status == 0, "\(final.stderr)")
        #expect(Self.skipped(in: final.stderr) == before.count)
        #expect(Self.frameFiles(in: out.url) == Self.reference)
        let manifest = try Manifest(folder: out.url)
        #expect(manifest.complete && manifest.frames.count == 300)
    }

    /// Returns once `run` has reported `count` finished frames (`--progress json` frame events on standard
    /// error), or has ended first (nothing was left to render).
    static func waitForFrameEvents(_ count: Int, of run: Binary.Running) throws {
        try Binary.waitUntil("\(count) frame events", running: run) {
            let events = (try? String(contentsOf: run.stderrURL, encoding: .utf8)) ?? ""
            return events.components(separatedBy: #"{"event":"frame""#).count - 1 >= count || !run.process.isRunning
        }
    }

    /// Returns once `run` has journaled a frame into `folder` (its signal handlers are installed
    /// before the first frame).
    static func waitForFirstFrame(of run: Binary.Running, in folder: URL) throws {
        try Binary.waitUntil("the first frame is journaled", running: run) {
            let journal = folder.appendingPathComponent("renderfarm.journal.jsonl")
            return ((try? Data(contentsOf: journal)) ?? Data()).contains(UInt8(ascii: "\n"))
        }
    }

    @Test("SIGINT finishes the frames in flight, writes an incomplete manifest, exits 130; a re-run completes")
    func sigint() throws {
        try #require(Self.reference.count == 300)
        let out = try TemporaryFolder()
        let arguments = [
            "render", Self.job, "--frames", Self.frames, "--out", out.path, "--progress", "none", "-j", "1",
        ]
        let run = try Binary.Running(arguments)
        try Self.waitForFirstFrame(of: run, in: out.url)
        run.signal(SIGINT)
        let result = run.wait()
        #expect(result.status == 130, "\(result.stderr)")
        #expect(result.stderr.contains("interrupted"))
        let manifest = try Manifest(folder: out.url)
        #expect(!manifest.complete)
        let done = Set(manifest.frames.filter { $0.status == "ok" }.map(\.index))
        #expect(done == Self.verifiedFrames(in: out.url), "the manifest and the journal agree")
        #expect(!done.isEmpty && done.count < 300)
        let missing = (0..<300).filter { !done.contains($0) }
        #expect(manifest.missing == compress(missing))
        Self.expectNoCorruptFrames(in: out.url)

        let resumed = CLI.run(arguments)
        #expect(resumed.status == 0)
        #expect(Self.frameFiles(in: out.url) == Self.reference)
    }

    @Test("a second signal exits at once, still without a half-written frame under a final name")
    func secondSignal() throws {
        try #require(Self.reference.count == 300)
        let out = try TemporaryFolder()
        let run = try Binary.Running([
            "render", Self.job, "--frames", Self.frames, "--out", out.path, "--progress", "none",
        ])
        try Self.waitForFirstFrame(of: run, in: out.url)
        run.signal(SIGTERM)
        try Binary.waitUntil("the first signal is taken", running: run) {
            ((try? String(contentsOf: run.stderrURL, encoding: .utf8)) ?? "").contains("stopping after the frames")
        }
        run.signal(SIGTERM)
        let result = run.wait()
        #expect(result.status == 130)
        #expect(result.signal == nil)
        Self.expectNoCorruptFrames(in: out.url)
    }

    @Test("a changed job, a truncated frame, an edited frame and a torn journal line are rendered again")
    func whatIsRenderedAgain() throws {
        let folder = try TemporaryFolder()
        let job = try folder.write(
            #"{"duration": 0.2, "seed": 1, "output": {"dir": "out"}, "layers": [{"effect": "floating-heart", "params": {"times": [0]}}]}"#,
            to: "job.json")
        let out = folder.url.appendingPathComponent("out")
        func render(_ extra: [String] = []) throws -> Int? {
            let result = CLI.run(["render", job, "--progress", "json"] + extra)
            #expect(result.status == 0, "\(result.stderr)")
            return Self.skipped(in: result.stderr)
        }
        #expect(try render() == 0)
        #expect(try render() == 12, "an unchanged re-run skips everything")

        let truncated = out.appendingPathComponent("frame_00003.png")
        let original = try Data(contentsOf: truncated)
        try original.prefix(original.count / 2).write(to: truncated)
        var edited = try Data(contentsOf: out.appendingPathComponent("frame_00004.png"))
        edited[edited.count - 20] ^= 0x01
        try edited.write(to: out.appendingPathComponent("frame_00004.png"))
        try Data().write(to: out.appendingPathComponent(".rf-tmp-1-2-frame_00005.png"))
        let journal = out.appendingPathComponent("renderfarm.journal.jsonl")
        var lines = try String(contentsOf: journal, encoding: .utf8)
        lines += #"{"index": 6, "file": "frame_0"#
        try lines.write(to: journal, atomically: true, encoding: .utf8)
        #expect(try render() == 10, "frames 3 and 4 are rendered again; the torn line is ignored")
        #expect(try Data(contentsOf: truncated) == original)

        try String(contentsOfFile: job, encoding: .utf8).replacingOccurrences(of: #""seed": 1"#, with: #""seed": 2"#)
            .write(toFile: job, atomically: true, encoding: .utf8)
        #expect(try render() == 0, "a changed job renders every frame again")
        #expect(try render(["--force"]) == 0, "--force renders everything")
    }
}

/// `[3, 7, 8, 9]` → `"3,7-9"`, written independently of the renderer's own code.
func compress(_ frames: [Int]) -> String {
    var runs: [(Int, Int)] = []
    for frame in frames {
        if let last = runs.last, last.1 + 1 == frame {
            runs[runs.count - 1].1 = frame
        } else {
            runs.append((frame, frame))
        }
    }
    return runs.map { $0.0 == $0.1 ? "\($0.0)" : "\($0.0)-\($0.1)" }.joined(separator: ",")
}
