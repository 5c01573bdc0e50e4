import Foundation
import Testing

/// Frames that fail, output that cannot be written, and output that must not be written.
@Suite("Failures, retries and output safety")
struct FailureTests {
    /// A job of `frames` frames drawn by the fault-injecting test plugin.
    static func faultJob(in folder: TemporaryFolder, params: String, frames: Int = 20, retries: Int = 1) throws
        -> String
    {
        try folder.write(
            #"""
            {"duration": \#(frames), "fps": 1, "retries": \#(retries), "canvas": {"width": 40, "height": 40, "scale": 1},
             "output": {"dir": "out"}, "layers": [{"effect": "test-faults", "params": \#(params)}]}
            """#, to: "job.json")
    }

    static func render(_ job: String, _ extra: [String] = []) -> Binary.Result {
        CLI.run(["render", job, "--progress", "none", "--plugin-path", Binary.testPluginDirectory] + extra)
    }

    @Test("a frame that fails once is retried and succeeds; the manifest records its attempts")
    func retrySucceeds() throws {
        let folder = try TemporaryFolder()
        let job = try Self.faultJob(in: folder, params: #"{"failFrames": [3, 7], "failAttempts": 1}"#)
        let result = Self.render(job)
        #expect(result.status == 0, "\(result.stderr)")
        let manifest = try Manifest(folder: folder.url.appendingPathComponent("out"))
        #expect(manifest.complete)
        #expect(manifest.frames.filter { $0.attempts == 2 }.map(\.index) == [3, 7])
        #expect(manifest.frames.filter { $0.attempts == 1 }.count == 18)
    }

    @Test("frames that keep failing are recorded, the others go on, and the run exits 1 naming them")
    func failuresSummarised() throws {
        let folder = try TemporaryFolder()
        let job = try Self.faultJob(in: folder, params: #"{"failFrames": [3, 7, 8, 9]}"#, retries: 2)
        let result = Self.render(job)
        #expect(result.status == 1)
        #expect(result.stderr.contains("4 frames failed: 3,7-9"), "\(result.stderr)")
        #expect(result.stderr.contains("injected failure on frame 3 (attempt 3)"))
        let manifest = try Manifest(folder: folder.url.appendingPathComponent("out"))
        #expect(!manifest.complete && manifest.missing == "3,7-9")
        let failed = manifest.frames.filter { $0.status == "failed" }
        #expect(failed.map(\.index) == [3, 7, 8, 9] && failed.allSatisfy { $0.attempts == 3 })
        #expect(manifest.frames.filter { $0.status == "ok" }.count == 16)
    }

    @Test("--fail-fast stops taking frames after the first failure")
    func failFast() throws {
        let folder = try TemporaryFolder()
        let job = try Self.faultJob(in: folder, params: #"{"failFrames": [5]}"#, retries: 0)
        let result = Self.render(job, ["--fail-fast", "-j", "1"])
        #expect(result.status == 1)
        let manifest = try Manifest(folder: folder.url.appendingPathComponent("out"))
        #expect(manifest.frames.filter { $0.status == "ok" }.map(\.index) == Array(0..<5))
        #expect(manifest.missing == "5-19")
    }

    @Test("an output folder that cannot be created exits 73 and names the path")
    func cannotCreate() throws {
        let folder = try TemporaryFolder()
        let blocker = try folder.write("a file, not a folder", to: "blocker")
        let job = try Self.faultJob(in: folder, params: "{}")
        let result = Self.render(job, ["--out", blocker + "/frames"])
        #expect(result.status == 73)
        #expect(result.stderr.contains("cannot create output \(blocker)/frames"), "\(result.stderr)")
    }

    @Test("a full disk exits 74 and says so", .enabled(if: SmallDisk.available, SmallDisk.unavailable))
    func diskFull() throws {
        let disk = try SmallDisk(in: TemporaryFolder(), size: 64 * 1024)
        let mountPoint = disk.path
        let result = CLI.run([
            "render", "jobs/live-hearts.json", "--out", mountPoint + "/out", "--progress", "none",
        ])
        #expect(result.status == 74)
        #expect(result.stderr.contains("the disk is full"), "\(result.stderr)")
        withExtendedLifetime(disk) {}
    }

    @Test(
        "output.dir may not leave the job's folder unless --output-root allows it",
        arguments: [
            "../escape", "/tmp/renderfarm-escape", "sub/../../escape",
        ])
    func confinement(directory: String) throws {
        let folder = try TemporaryFolder()
        let jobs = folder.url.appendingPathComponent("jobs")
        let job = try folder.write(
            #"{"duration": 0.1, "output": {"dir": "\#(directory)"}, "layers": [{"effect": "floating-heart"}]}"#,
            to: "jobs/job.json")
        let refused = CLI.run(["render", job, "--progress", "none"])
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("job.json: output.dir: output folder"), "\(refused.stderr)")
        #expect(refused.stderr.contains("is outside \(jobs.path)"))
        if !directory.hasPrefix("/") {
            let allowed = CLI.run(["render", job, "--progress", "none", "--output-root", folder.path])
            #expect(allowed.status == 0, "\(allowed.stderr)")
        }
    }

    @Test("a symbolic link inside the job's folder cannot smuggle output out of it")
    func symlinkConfinement() throws {
        let folder = try TemporaryFolder()
        let outside = try TemporaryFolder()
        try FileManager.default.createDirectory(
            at: folder.url.appendingPathComponent("jobs"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: folder.url.appendingPathComponent("jobs/link").path,
            withDestinationPath: outside.path)
        let job = try folder.write(
            #"{"duration": 0.1, "output": {"dir": "link/out"}, "layers": [{"effect": "floating-heart"}]}"#,
            to: "jobs/job.json")
        let result = CLI.run(["render", job, "--progress", "none"])
        #expect(result.status == 65)
        #expect(!FileManager.default.fileExists(atPath: outside.url.appendingPathComponent("out").path))
    }
}
