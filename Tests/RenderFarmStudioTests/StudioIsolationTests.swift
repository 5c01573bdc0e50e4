import Foundation
import RenderFarm
import Testing

/// `renderfarm studio --isolate` (RenderFarm article UntrustedPlugins, "The studio"): the timeline's frames
/// are drawn by sandboxed worker processes, byte for byte the frames drawn in the studio's process, and a
/// plugin the sandbox stops gets an error naming the denial in place of its frame.
@Suite("renderfarm studio --isolate: previews in sandboxed workers", .serialized)
struct StudioIsolationTests {
    /// `renderfarm studio JOB --port 0 --isolate EXTRA…`, running until the returned process is terminated,
    /// and its port.
    static func studio(_ job: String, _ extra: [String] = []) throws -> (Process, Int) {
        let process = Process()
        process.executableURL = StudioFixture.buildDirectory.appendingPathComponent("renderfarm")
        process.arguments = ["studio", job, "--port", "0", "--isolate"] + extra
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let line = try StudioCommandTests().firstLine(of: output.fileHandleForReading, within: 30)
        return (process, try #require(URLComponents(string: line)?.port, "first line: \(line)"))
    }

    @Test("a frame drawn by a sandboxed worker is byte for byte the studio's in-process frame, --debug too")
    func sameBytes() throws {
        let fixture = try StudioFixture()
        let (process, port) = try Self.studio(fixture.jobFile.path)
        defer { process.terminate() }
        for query in ["scale=0.5", "scale=0.25&debug=1"] {
            let isolated = try RawHTTP(port: port).send("GET", "/api/frames/120.png?\(query)")
            let inProcess = try fixture.client.send("GET", "/api/frames/120.png?\(query)")
            #expect(isolated.status == 200, "\(String(decoding: isolated.body, as: UTF8.self))")
            #expect(inProcess.status == 200)
            #expect(isolated.body == inProcess.body, "\(query)")
        }
    }

    @Test(
        "a plugin the sandbox stops gets the named denial in place of its frame; without --isolate it reads the file",
        // A sanitizer build's workers are not sandboxed (article UntrustedPlugins).
        .enabled(if: WorkerSandbox.available().contains(.seccomp) && !WorkerSandbox.underSanitizer))
    func denied() throws {
        let fixture = try StudioFixture()
        let secret = fixture.root.appendingPathComponent("secret.txt").path
        try Data("not for plugins\n".utf8).write(to: URL(fileURLWithPath: secret))
        let job = fixture.root.appendingPathComponent("hostile.json")
        try Data(
            #"""
            {"duration": 1, "fps": 1, "seed": 1, "canvas": {"width": 40, "height": 40, "scale": 1},
             "layers": [{"effect": "hostile-read", "params": {"target": "\#(secret)"}}]}
            """#.utf8
        ).write(to: job)
        let plugins = (ProcessInfo.processInfo.environment["RENDERFARM_TEST_PLUGIN_DIR"]
            ?? StudioFixture.packageRoot.appendingPathComponent(".build/test-plugins").path) + "/hostile"
        let (process, port) = try Self.studio(job.path, ["--plugin-path", plugins])
        defer { process.terminate() }
        let frame = try RawHTTP(port: port).send("GET", "/api/frames/0.png")
        let text = String(decoding: frame.body, as: UTF8.self)
        #expect(frame.status == 422, "\(text)")
        #expect(text.contains("plugin \\\"hostile-read\\\" tried to open \(secret): denied by the sandbox"), "\(text)")
        process.terminate()
        process.waitUntilExit()

        // In the studio's own process the plugin is trusted: it reads the file and the frame is drawn.
        let trusted = Process()
        trusted.executableURL = StudioFixture.buildDirectory.appendingPathComponent("renderfarm")
        trusted.arguments = ["studio", job.path, "--port", "0", "--plugin-path", plugins]
        let output = Pipe()
        trusted.standardOutput = output
        trusted.standardError = FileHandle.nullDevice
        try trusted.run()
        defer { trusted.terminate() }
        let line = try StudioCommandTests().firstLine(of: output.fileHandleForReading, within: 30)
        let plain = try RawHTTP(port: try #require(URLComponents(string: line)?.port)).send("GET", "/api/frames/0.png")
        #expect(plain.status == 200, "\(String(decoding: plain.body, as: UTF8.self))")
    }

    @Test("--sandbox needs --isolate")
    func usage() throws {
        let fixture = try StudioFixture()
        let alone = try StudioFixture.renderfarm(["studio", fixture.jobFile.path, "--sandbox", "off", "--port", "0"])
        #expect(alone.status == 64 && alone.stderr.contains("--sandbox needs --isolate"), "\(alone.stderr)")
    }
}
