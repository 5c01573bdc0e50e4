import Foundation
import RenderFarm
import Testing

/// `renderfarm studio` (RenderFarm article UntrustedPlugins, "The studio"): by default the timeline's frames
/// are drawn by sandboxed worker processes, byte for byte the frames drawn in the studio's process, a plugin
/// the sandbox stops gets an error naming the denial in place of its frame, and the render button's render
/// is sandboxed too; `--sandbox off` opts out.
@Suite("renderfarm studio: previews and renders in sandboxed workers by default", .serialized)
struct StudioIsolationTests {
    /// The tests that show a denial run where the kernel offers seccomp, in a build without sanitizers (a sanitizer
    /// build's workers are not sandboxed: article UntrustedPlugins).
    static let needsSandbox = ConditionTrait.enabled(
        if: WorkerSandbox.available().contains(.seccomp) && !WorkerSandbox.underSanitizer,
        "needs seccomp, and a build without sanitizers (whose workers are not sandboxed)")

    /// `renderfarm studio JOB --port 0 EXTRA…`, running until the returned process is terminated, and its port.
    static func studio(_ job: String, _ extra: [String] = []) throws -> (Process, Int) {
        let process = Process()
        process.executableURL = StudioFixture.buildDirectory.appendingPathComponent("renderfarm")
        process.arguments = ["studio", job, "--port", "0"] + extra
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let line = try StudioCommandTests().firstLine(of: output.fileHandleForReading, within: 30)
        return (process, try #require(URLComponents(string: line)?.port, "first line: \(line)"))
    }

    /// A job of one 40 × 40 frame whose hostile-read layer reads `secret` (a file in the fixture's root), and
    /// the folder of the hostile plugins.
    static func hostileJob(_ fixture: StudioFixture) throws -> (job: String, secret: String, plugins: String) {
        let secret = fixture.root.appendingPathComponent("secret.txt").path
        try Data("not for plugins\n".utf8).write(to: URL(fileURLWithPath: secret))
        let job = fixture.root.appendingPathComponent("hostile.json")
        try Data(
            #"""
            {"duration": 1, "fps": 1, "seed": 1, "canvas": {"width": 40, "height": 40, "scale": 1},
             "layers": [{"effect": "hostile-read", "params": {"target": "\#(secret)"}}]}
            """#.utf8
        ).write(to: job)
        let folder =
            ProcessInfo.processInfo.environment["RENDERFARM_TEST_PLUGIN_DIR"]
            ?? StudioFixture.packageRoot.appendingPathComponent(".build/test-plugins").path
        let plugins = folder + "/hostile"
        return (job.path, secret, plugins)
    }

    @Test("frames drawn by a sandboxed worker are byte for byte the studio's in-process frames, --debug too")
    func sameBytes() throws {
        let fixture = try StudioFixture()
        let (process, port) = try Self.studio(fixture.jobFile.path)
        defer { process.terminate() }
        // Several frames of one scale: one worker draws them all, though each request (a connection of its
        // own) is answered on a thread that ends with it.
        for query in ["scale=0.5", "scale=0.25&debug=1"] {
            for frame in 120...123 {
                let isolated = try RawHTTP(port: port).send("GET", "/api/frames/\(frame).png?\(query)")
                let inProcess = try fixture.client.send("GET", "/api/frames/\(frame).png?\(query)")
                #expect(isolated.status == 200, "\(frame) \(query): \(String(decoding: isolated.body, as: UTF8.self))")
                #expect(inProcess.status == 200)
                #expect(isolated.body == inProcess.body, "\(frame) \(query)")
            }
        }
    }

    @Test("with layers hidden a worker draws the text without them (sent, not read from the file), as in process")
    func hiddenLayers() throws {
        let fixture = try StudioFixture(job: StudioHideTests.job)
        let (process, port) = try Self.studio(fixture.jobFile.path)
        defer { process.terminate() }
        for query in ["hide=10", "hide=2,6,7,8,9", "hide=0,1,3,4,5"] {
            let isolated = try RawHTTP(port: port).send("GET", "/api/frames/45.png?scale=0.5&\(query)")
            let inProcess = try fixture.client.send("GET", "/api/frames/45.png?scale=0.5&\(query)")
            #expect(isolated.status == 200, "\(query): \(String(decoding: isolated.body, as: UTF8.self).prefix(300))")
            #expect(Data(isolated.body) == Data(inProcess.body), "\(query)")
        }
    }

    @Test("a variant of a canvas.scale matrix is previewed at the page's scale by a worker, as in process")
    func scaledVariants() throws {
        let fixture = try StudioFixture(job: "streamer-badges.json", assets: ["streamers.csv"])
        let (process, port) = try Self.studio(fixture.jobFile.path)
        defer { process.terminate() }
        for query in ["scale=0.5&variant=0", "scale=0.5&variant=2"] {
            let isolated = try RawHTTP(port: port).send("GET", "/api/frames/0.png?\(query)")
            let inProcess = try fixture.client.send("GET", "/api/frames/0.png?\(query)")
            #expect(isolated.status == 200, "\(query): \(String(decoding: isolated.body, as: UTF8.self))")
            #expect(inProcess.status == 200)
            #expect(isolated.body == inProcess.body, "\(query)")
        }
    }

    @Test(
        "without a flag a plugin the sandbox stops gets the named denial in place of its frame; --sandbox off reads the file",
        needsSandbox)
    func denied() throws {
        let fixture = try StudioFixture()
        let (job, secret, plugins) = try Self.hostileJob(fixture)
        let denial = "plugin \\\"hostile-read\\\" tried to open \(secret): denied by the sandbox"
        for extra in [[], ["--isolate"], ["--sandbox", "require"]] {
            if extra == ["--sandbox", "require"] && WorkerSandbox.available() != .all { continue }
            let (process, port) = try Self.studio(job, ["--plugin-path", plugins] + extra)
            defer { process.terminate() }
            let frame = try RawHTTP(port: port).send("GET", "/api/frames/0.png")
            let text = String(decoding: frame.body, as: UTF8.self)
            #expect(frame.status == 422, "\(extra): \(text)")
            #expect(text.contains(denial), "\(extra): \(text)")
        }
        // Opted out, the plugin is trusted: it reads the file and the frame is drawn, in the studio's process or
        // in an unsandboxed worker.
        for extra in [["--sandbox", "off"], ["--sandbox", "off", "--isolate"]] {
            let (process, port) = try Self.studio(job, ["--plugin-path", plugins] + extra)
            defer { process.terminate() }
            let plain = try RawHTTP(port: port).send("GET", "/api/frames/0.png")
            #expect(plain.status == 200, "\(extra): \(String(decoding: plain.body, as: UTF8.self))")
        }
    }

    /// Issue 44, finding 5: the studio validates and plans with a sandboxed planning worker, which is sent the
    /// edited text (an edit is checked before it is saved): a plugin's `create` reading a file outside the job's
    /// folder is denied and named, and the edit refused with the file unchanged. With `--sandbox off` the plugin
    /// is trusted: it reads the file and the edit is saved.
    @Test(
        "validating and planning in the studio are sandboxed: create reading a file outside the job is denied and named",
        needsSandbox)
    func plannedInWorkers() throws {
        let fixture = try StudioFixture()
        let (_, _, plugins) = try Self.hostileJob(fixture)
        let elsewhere = FileManager.default.temporaryDirectory.appendingPathComponent("rf-studio-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: elsewhere) }
        let secret = elsewhere.appendingPathComponent("secret.txt").path
        try Data("not for plugins\n".utf8).write(to: URL(fileURLWithPath: secret))
        let job = fixture.root.appendingPathComponent("creating.json")
        let text = { (phase: String) in
            #"""
            {"duration": 1, "fps": 1, "seed": 1, "canvas": {"width": 40, "height": 40, "scale": 1},
             "layers": [{"effect": "hostile-read", "params": {"target": "\#(secret)", "phase": "\#(phase)"}}]}
            """#
        }
        let denial = "tried to open \(secret): denied by the sandbox"
        for (extra, sandboxed) in [([String](), true), (["--sandbox", "off"], false)] {
            try Data(text("render").utf8).write(to: job)
            let (process, port) = try Self.studio(job.path, ["--plugin-path", plugins] + extra)
            defer { process.terminate() }
            let state = try RawHTTP(port: port).send("GET", "/api/job").text
            #expect(state.contains(#""valid":true"#), "\(extra): \(state)")
            let edit = try RawHTTP(port: port).send("PUT", "/api/job", body: Array(text("create").utf8))
            let saved = try String(contentsOf: job, encoding: .utf8)
            if sandboxed {
                #expect(edit.status != 200 && edit.text.contains(denial), "\(edit.status) \(edit.text)")
                #expect(saved == text("render"))
            } else {
                #expect(edit.status == 200, "\(edit.status) \(edit.text)")
                #expect(saved == text("create"))
            }
        }
    }

    @Test(
        "the render button's render is sandboxed by default: the frame fails with the named denial; --sandbox off renders it",
        needsSandbox)
    func renderButton() throws {
        let fixture = try StudioFixture()
        let (job, _, plugins) = try Self.hostileJob(fixture)
        let frame = fixture.root.appendingPathComponent("out/hostile/frame_00000.png").path
        for (extra, sandboxed) in [([String](), true), (["--sandbox", "off"], false)] {
            let (process, port) = try Self.studio(job, ["--plugin-path", plugins] + extra)
            defer { process.terminate() }
            let client = RawHTTP(port: port)
            let (started, stream) = try client.render(seconds: 60)
            #expect(started.status == 202, "\(extra): \(started.text)")
            if sandboxed {
                #expect(!stream.contains(#""status":0"#), "\(stream)")
                // The event's JSON escapes the path's slashes.
                #expect(stream.contains("secret.txt: denied by the sandbox"), "\(stream)")
                #expect(!FileManager.default.fileExists(atPath: frame))
            } else {
                #expect(stream.contains(#""status":0"#), "\(stream)")
                #expect(FileManager.default.fileExists(atPath: frame))
            }
        }
    }

    @Test("--sandbox takes strict, require or off")
    func usage() throws {
        let fixture = try StudioFixture()
        let bad = try StudioFixture.renderfarm(["studio", fixture.jobFile.path, "--sandbox", "loose", "--port", "0"])
        #expect(bad.status == 64 && bad.stderr.contains("--sandbox expects strict, require or off"), "\(bad.stderr)")
    }
}
