import CairoKit
import Foundation
import Testing

/// What keeps an output folder trustworthy: its state while rendering, locks, plugin identity,
/// and crashing plugins contained (RenderFarm article OutputFolder).
@Suite("Output you can trust: folder state, locks, plugin identity, crash containment")
struct OutputTrustTests {
    static let plugins = ["--plugin-path", Binary.testPluginDirectory]

    /// A job of the fault-injecting test plugin: `frames` frames at 1 fps, 40×40 px; `duplicates`
    /// sets `output.duplicates`.
    static func job(
        in folder: TemporaryFolder, name: String = "job.json", params: String, frames: Int = 20,
        seed: Int = 1, output: String = "out", duplicates: String? = nil
    ) throws -> String {
        let mode = duplicates.map { #", "duplicates": "\#($0)""# } ?? ""
        return try folder.write(
            #"""
            {"duration": \#(frames), "fps": 1, "seed": \#(seed), "retries": 1,
             "canvas": {"width": 40, "height": 40, "scale": 1}, "output": {"dir": "\#(output)"\#(mode)},
             "layers": [{"effect": "test-faults", "params": \#(params)}]}
            """#, to: name)
    }

    /// Reads `manifest.json` of `folder` as JSON (nil while there is none).
    static func manifest(_ folder: URL) -> [String: Any]? {
        guard let data = try? Data(contentsOf: folder.appendingPathComponent("manifest.json")) else { return nil }
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
    }

    /// Starts a slow render and returns once its folder says it is being rendered.
    static func startSlowRender(_ job: String, out: URL, extra: [String] = []) throws -> Binary.Running {
        let running = try Binary.Running(["render", job, "--progress", "none", "-j", "1"] + plugins + extra)
        try Binary.waitUntil("the folder's manifest says rendering", running: running) {
            manifest(out)?["state"] as? String == "rendering"
        }
        return running
    }

    @Test(
        "encode and export-otio refuse a folder during the re-render of a changed job; merge and a second render get 75"
    )
    func stateDuringRerender() throws {
        let folder = try TemporaryFolder()
        let out = folder.url.appendingPathComponent("out")
        let first = try Self.job(in: folder, params: "{}", frames: 12)
        let done = CLI.run(["render", first, "--progress", "none"] + Self.plugins)
        #expect(done.status == 0, "\(done.stderr)")
        #expect(Self.manifest(out)?["state"] as? String == "complete")

        // The same job with another seed: every frame is rendered again; frame 6 waits for the gate.
        let gate = try folder.write("", to: "gate")
        let changed = try Self.job(
            in: folder, params: #"{"waitFrames": [6], "waitWhileFileExists": "\#(gate)"}"#, frames: 12, seed: 2)
        let rerender = try Self.startSlowRender(changed, out: out)
        #expect(Self.manifest(out)?["complete"] as? Bool == false)
        let encode = CLI.run(["encode", out.path, "-o", folder.path + "/x.mp4"])
        let otio = CLI.run(["export-otio", out.path])
        let second = CLI.run(["render", changed, "--progress", "none"] + Self.plugins)
        let merge = CLI.run(["merge", out.path])
        try FileManager.default.removeItem(atPath: gate)
        let finished = rerender.wait()

        #expect(encode.status == 65 && encode.stderr.contains("state \"rendering\""), "\(encode.stderr)")
        #expect(encode.stderr.contains("pid \(rerender.process.processIdentifier)"), "\(encode.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/x.mp4"))
        #expect(otio.status == 65 && otio.stderr.contains("being rendered"), "\(otio.stderr)")
        #expect(second.status == 75, "\(second.stderr)")
        #expect(second.stderr.contains("is in use by render (pid \(rerender.process.processIdentifier)"))
        #expect(merge.status == 65 && merge.stderr.contains("state \"rendering\""), "\(merge.stderr)")
        // The first render was not disturbed: complete, every frame matching its checksum.
        #expect(finished.status == 0, "\(finished.stderr)")
        let manifest = try Manifest(folder: out)
        #expect(manifest.complete && manifest.frames.count == 12)
        for frame in manifest.frames {
            let bytes = try Data(contentsOf: out.appendingPathComponent(frame.file))
            #expect(sha256(bytes) == frame.sha256)
        }
        #expect(Self.manifest(out)?["state"] as? String == "complete")
    }

    @Test("a killed render leaves no lock: the next render resumes, and encode explains the killed state")
    func killedHolder() throws {
        let folder = try TemporaryFolder()
        let out = folder.url.appendingPathComponent("out")
        let job = try Self.job(in: folder, params: #"{"delayMs": 100}"#, frames: 30)
        let running = try Self.startSlowRender(job, out: out)
        running.signal(SIGKILL)
        _ = running.wait()
        let encode = CLI.run(["encode", out.path])
        #expect(encode.status == 65 && encode.stderr.contains("a render was killed"), "\(encode.stderr)")
        let resumed = CLI.run(["render", job, "--progress", "none", "-j", "2"] + Self.plugins)
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(try Manifest(folder: out).complete)
    }

    @Test("two jobs of one run with the same or nested output folders exit 65 naming both, writing nothing")
    func sharedFolders() throws {
        let folder = try TemporaryFolder()
        let a = try Self.job(in: folder, name: "a.json", params: "{}", output: "out/same")
        let b = try Self.job(in: folder, name: "b.json", params: "{}", output: "out/same")
        let c = try Self.job(in: folder, name: "c.json", params: "{}", output: "out/same/inner")
        for pair in [[a, b], [a, c]] {
            let result = CLI.run(["render"] + pair + ["--progress", "none"] + Self.plugins)
            #expect(result.status == 65, "\(result.stderr)")
            #expect(result.stderr.contains(pair[0]) && result.stderr.contains(pair[1]), "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: folder.path + "/out"))
        }
        // Jobs that share a name share the folder under --out too.
        let same = CLI.run(["render", a, a, "--out", folder.path + "/o", "--progress", "none"] + Self.plugins)
        #expect(same.status == 65 && !FileManager.default.fileExists(atPath: folder.path + "/o"))
    }

    @Test("a shard holds only its own lock: other shards run beside it, the same shard gets 75, merge 65")
    func shardLocks() throws {
        let folder = try TemporaryFolder()
        let out = folder.url.appendingPathComponent("out")
        let gate = try folder.write("", to: "gate")
        let job = try Self.job(
            in: folder, params: #"{"waitFrames": [0], "waitWhileFileExists": "\#(gate)"}"#, frames: 12)
        // Shard 0/2 (frames 0-5) holds its lock, waiting at frame 0 until the gate goes.
        let shard = try Binary.Running(
            ["render", job, "--shard", "0/2", "--progress", "none", "-j", "1"] + Self.plugins)
        let lock = out.appendingPathComponent("renderfarm.shard-0-of-2.lock")
        try Binary.waitUntil("shard 0 has its lock", running: shard) {
            ((try? String(contentsOf: lock, encoding: .utf8)) ?? "").contains("render --shard 0/2")
        }
        let same = CLI.run(["render", job, "--shard", "0/2", "--progress", "none"] + Self.plugins)
        let merge = CLI.run(["merge", out.path])
        let whole = CLI.run(["render", job, "--progress", "none"] + Self.plugins)
        let other = CLI.run(["render", job, "--shard", "1/2", "--progress", "none"] + Self.plugins)
        try FileManager.default.removeItem(atPath: gate)
        #expect(shard.wait().status == 0)
        #expect(same.status == 75 && same.stderr.contains("render --shard 0/2"), "\(same.stderr)")
        #expect(merge.status == 65 && merge.stderr.contains("state \"rendering\""), "\(merge.stderr)")
        #expect(whole.status == 75, "\(whole.stderr)")
        #expect(other.status == 0, "\(other.stderr)")
        let merged = CLI.run(["merge", out.path])
        #expect(merged.status == 0, "\(merged.stderr)")
    }

    @Test("a plugin rebuilt with other drawing and the same version re-renders every frame")
    func rebuiltPlugin() throws {
        let folder = try TemporaryFolder()
        let plugins = folder.url.appendingPathComponent("plugins")
        let library = plugins.appendingPathComponent("libsolid.so").path
        try CPlugin.build(CPlugin.source(id: "solid", red: 1), to: library)
        let job = try folder.write(
            #"""
            {"duration": 5, "fps": 1, "canvas": {"width": 8, "height": 8, "scale": 1}, "output": {"dir": "out"},
             "layers": [{"effect": "solid"}]}
            """#, to: "job.json")
        let arguments = ["render", job, "--progress", "none", "--plugin-path", plugins.path]
        // Launched: a process loads a library once, so the rebuilt one needs a process of its own.
        let first = try Binary.run(arguments)
        #expect(first.status == 0, "\(first.stderr)")
        let out = folder.url.appendingPathComponent("out")
        let red = try ImageSurface(contentsOfPNG: out.appendingPathComponent("frame_00000.png").path).pixel(x: 4, y: 4)
        #expect(red.r == 255 && red.g == 0 && red.b == 0 && red.a == 255)
        let listed = try #require((Self.manifest(out)?["plugins"] as? [[String: Any]])?.first)
        let before = try #require(listed["sha256"] as? String)
        #expect(listed["path"] as? String == library && before.count == 64)

        try CPlugin.build(CPlugin.source(id: "solid", red: 0), to: library)
        let second = try Binary.run(arguments)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout.contains("5 frames rendered (complete)"), "\(second.stdout)")
        let black = try ImageSurface(contentsOfPNG: out.appendingPathComponent("frame_00004.png").path).pixel(
            x: 4, y: 4)
        #expect(black.r == 0 && black.g == 0 && black.b == 0 && black.a == 255)
        let after = (Self.manifest(out)?["plugins"] as? [[String: Any]])?.first?["sha256"] as? String
        #expect(after != nil && after != before)
    }

    @Test("render warns about skipped libraries and about an id that shadows a built-in")
    func loadDiagnostics() throws {
        let folder = try TemporaryFolder()
        let plugins = folder.url.appendingPathComponent("plugins")
        try CPlugin.build(CPlugin.source(id: "gradient", red: 1), to: plugins.appendingPathComponent("liba.so").path)
        try CPlugin.build(CPlugin.source(id: "Bad Id!", red: 1), to: plugins.appendingPathComponent("libb.so").path)
        try CPlugin.build(
            CPlugin.source(id: "tiny", red: 1, structSize: "16"), to: plugins.appendingPathComponent("libc.so").path)
        let job = try folder.write(
            #"""
            {"duration": 1, "fps": 1, "canvas": {"width": 8, "height": 8, "scale": 1}, "output": {"dir": "out"},
             "layers": [{"effect": "gradient"}]}
            """#, to: "job.json")
        let result = CLI.run(["render", job, "--progress", "none", "--plugin-path", plugins.path])
        #expect(result.status == 0, "\(result.stderr)")
        let shadow = "plugin id \"gradient\" is provided by \(plugins.path)/liba.so and by "
        #expect(
            result.stderr.contains(shadow) && result.stderr.contains("librenderfarm-gradient.so"), "\(result.stderr)")
        #expect(result.stderr.contains("libb.so: invalid plugin descriptor: id \"Bad Id!\" breaks the id rule"))
        #expect(result.stderr.contains("libc.so: invalid plugin descriptor: struct_size is 16, smaller than ABI v1's"))
        let validate = CLI.run(["validate", job, "--plugin-path", plugins.path])
        #expect(validate.status == 0 && validate.stderr.contains(shadow), "\(validate.stderr)")
    }

    @Test("without --isolate a crashing plugin ends the process with one line naming the library and frame")
    func crashReport() throws {
        let folder = try TemporaryFolder()
        for (params, signal, name) in [
            (#"{"crashFrames": [3]}"#, SIGSEGV, "SIGSEGV"), (#"{"abortFrames": [3]}"#, SIGABRT, "SIGABRT"),
        ] {
            let job = try Self.job(in: folder, params: params, frames: 6)
            let result = try Binary.run(["render", job, "--progress", "none", "-j", "1", "--force"] + Self.plugins)
            #expect(result.signal == signal, "\(result.status) \(result.stderr)")
            #expect(
                result.stderr.contains(
                    "renderfarm: fatal: plugin test-faults (\(Binary.testPluginDirectory)/librenderfarm-test-faults.so) "
                        + "crashed with \(name) while rendering frame 3"), "\(result.stderr)")
        }
    }

    @Test("--isolate: frames that segfault, abort or hang fail after their retries, the others match a clean render")
    func isolate() throws {
        let folder = try TemporaryFolder()
        let faulty = try Self.job(
            in: folder, name: "faulty.json",
            params: #"{"crashFrames": [2], "abortFrames": [5], "hangFrames": [9]}"#, frames: 14, output: "faulty")
        let clean = try Self.job(in: folder, name: "clean.json", params: "{}", frames: 14, output: "clean")
        // Launched: a worker's crash report goes to the standard error it shares with its parent.
        let result = try Binary.run(
            ["render", faulty, "--isolate", "--frame-timeout", "2", "-j", "2", "--progress", "none"] + Self.plugins)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("3 frames failed: 2,5,9"), "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "frame 2 of faulty failed after 2 attempts: the worker process was killed by SIGSEGV"))
        #expect(
            result.stderr.contains(
                "frame 5 of faulty failed after 2 attempts: the worker process was killed by SIGABRT"))
        #expect(
            result.stderr.contains("frame 9 of faulty failed after 2 attempts: took longer than --frame-timeout 2 s"))
        // A crash a worker contains ends one attempt, not the run: its line is not "fatal:".
        #expect(
            result.stderr.contains(
                "renderfarm: plugin test-faults (\(Binary.testPluginDirectory)/librenderfarm-test-faults.so) crashed "
                    + "with SIGSEGV while rendering frame 2 (in a worker process of render --isolate: that attempt at "
                    + "the frame fails, the render goes on)"), "\(result.stderr)")
        #expect(!result.stderr.contains("fatal:"), "\(result.stderr)")
        let reference = CLI.run(["render", clean, "--progress", "none"] + Self.plugins)
        #expect(reference.status == 0, "\(reference.stderr)")
        let manifest = try Manifest(folder: folder.url.appendingPathComponent("faulty"))
        #expect(manifest.missing == "2,5,9")
        #expect(manifest.frames.filter { $0.status == "failed" }.allSatisfy { $0.attempts == 2 })
        for index in (0..<14).filter({ ![2, 5, 9].contains($0) }) {
            let name = String(format: "frame_%05d.png", index)
            let isolated = try Data(contentsOf: folder.url.appendingPathComponent("faulty/\(name)"))
            let inProcess = try Data(contentsOf: folder.url.appendingPathComponent("clean/\(name)"))
            #expect(isolated == inProcess, "frame \(index)")
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path + "/faulty")
        #expect(!leftovers.contains { $0.hasPrefix(".rf-tmp-") })
    }

    @Test("--isolate renders hearts byte-identical to an in-process render")
    func isolateIdentical() throws {
        let folder = try TemporaryFolder()
        let job = try folder.write(
            #"""
            {"duration": 1, "fps": 20, "seed": 7, "canvas": {"width": 120, "height": 200, "scale": 1},
             "layers": [{"effect": "floating-heart", "params": {"emitter": [60, 190], "rate": 20, "size": 30}}]}
            """#, to: "hearts.json")
        let isolated = CLI.run(["render", job, "--isolate", "--out", folder.path + "/a", "--progress", "none"])
        let inProcess = CLI.run(["render", job, "--out", folder.path + "/b", "--progress", "none", "-j", "1"])
        #expect(isolated.status == 0 && inProcess.status == 0, "\(isolated.stderr) \(inProcess.stderr)")
        for index in 0..<20 {
            let name = String(format: "frame_%05d.png", index)
            #expect(
                try Data(contentsOf: URL(fileURLWithPath: folder.path + "/a/" + name))
                    == Data(contentsOf: URL(fileURLWithPath: folder.path + "/b/" + name)), "frame \(index)")
        }
    }

    @Test("--frame-timeout without --isolate is a usage error; submit passes both to its tasks")
    func isolateOptions() throws {
        let folder = try TemporaryFolder()
        let job = try Self.job(in: folder, params: "{}", frames: 4)
        let usage = CLI.run(["render", job, "--frame-timeout", "3"] + Self.plugins)
        #expect(usage.status == 64 && usage.stderr.contains("--frame-timeout needs --isolate"))
        let submit = CLI.run(
            ["submit", job, "--slurm", "--dry-run", "--isolate", "--frame-timeout", "30"] + Self.plugins)
        #expect(submit.status == 0, "\(submit.stderr)")
        #expect(submit.stdout.contains("--isolate --frame-timeout 30 --progress plain"), "\(submit.stdout)")
    }
}

/// Small C plugins compiled inside a test with the system's C compiler.
enum CPlugin {
    /// A plugin that paints the whole canvas red (`red` 1) or black (0).
    static func source(id: String, red: Int, structSize: String = "sizeof(rf_plugin)") -> String {
        """
        #include <cairo.h>
        #include "renderfarm_plugin.h"
        static int create(const rf_create_args *a, const rf_context *c, void **out, char *e, size_t n) {
            (void)a; (void)c; (void)e; (void)n; *out = (void *)1; return RF_OK;
        }
        static int render(void *i, cairo_t *cr, const rf_frame *f, char *e, size_t n) {
            (void)i; (void)f; (void)e; (void)n;
            cairo_set_source_rgb(cr, \(red), 0, 0); cairo_paint(cr); return RF_OK;
        }
        static void destroy(void *i) { (void)i; }
        static const rf_plugin descriptor = {
            .abi_version = RF_ABI_VERSION, .struct_size = \(structSize), .id = "\(id)",
            .identifier = "org.example.solid", .version = "1.0.0", .summary = "a solid colour",
            .thread_safety = RF_THREADS_FULL, .create = create, .render = render, .destroy = destroy,
        };
        const rf_plugin *rf_plugin_main(uint32_t host) { return host == RF_ABI_VERSION ? &descriptor : 0; }
        """
    }

    /// Compiles `source` into the shared library `library` (its folder is created).
    static func build(_ source: String, to library: String) throws {
        let folder = URL(fileURLWithPath: library).deletingLastPathComponent()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("source-\(UUID().uuidString).c")
        try source.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let include = Binary.packageRoot.appendingPathComponent("Sources/RenderFarmPluginABI/include").path
        // Written beside the library and renamed over it, as a build tool would install it.
        let temporary = library + ".new"
        let result = try Tools.run(
            "/bin/sh",
            [
                "-c", "cc -shared -fPIC -o \"$1\" \"$2\" -I\"$3\" $(pkg-config --cflags --libs cairo)", "cc", temporary,
                file.path, include,
            ])
        guard result.status == 0 else { throw ToolError(message: result.stderr) }
        guard rename(temporary, library) == 0 else { throw ToolError(message: "cannot rename \(temporary)") }
    }
}
