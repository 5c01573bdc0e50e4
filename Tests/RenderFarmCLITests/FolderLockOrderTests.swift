import Foundation
import Testing

/// The output folder's lock is taken before anything is written into the folder, by every run that
/// writes it: `render` (whose planning may write the layers' cache) and `prepare`.
@Suite("Folder lock before the first write")
struct FolderLockOrderTests {
    /// Holds `folder`'s `renderfarm.lock` with flock(1) in another process, as another run would,
    /// until `release` is called.
    final class HeldLock {
        let process = Process()

        init(_ folder: URL) throws {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let lock = folder.appendingPathComponent("renderfarm.lock")
            process.executableURL = URL(fileURLWithPath: Tools.find("flock") ?? "/usr/bin/flock")
            // --no-fork: `sleep` itself holds the lock, so terminating it frees the lock at once (with a
            // fork, flock's child would keep the lock for its whole minute after flock is gone).
            process.arguments = ["--exclusive", "--no-fork", lock.path, "sleep", "60"]
            try process.run()
            // flock creates the file, then takes the lock: wait until a non-blocking try fails.
            for _ in 0..<400 {
                let probe = try Tools.run(Tools.find("flock") ?? "/usr/bin/flock", ["--nonblock", lock.path, "true"])
                if probe.status != 0 { return }
                usleep(5_000)
            }
            throw ToolError(message: "flock never took \(lock.path)")
        }

        /// SIGKILL: an in-process render of another test may have set SIGTERM to be ignored while
        /// this holder was spawned, and an ignored signal stays ignored across exec.
        func release() {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }

        deinit { if process.isRunning { release() } }
    }

    /// The names in `folder`, sorted (the lock file among them).
    static func names(_ folder: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
    }

    @Test("a render of a locked folder writes nothing there, not even the physics cache its planning would fill")
    func renderWritesNothingBeforeTheLock() throws {
        let folder = try TemporaryFolder()
        let job = try PhysicsCacheTests.job(in: folder)
        let out = folder.url.appendingPathComponent("out")
        let held = try HeldLock(out)
        let render = CLI.run(["render", job, "--out", out.path, "--frames", "3700", "--progress", "none"])
        #expect(render.status == 75, "\(render.stderr)")
        #expect(render.stderr.contains("is in use"), "\(render.stderr)")
        #expect(Self.names(out) == ["renderfarm.lock"], "written before the lock: \(Self.names(out))")
        held.release()
        // Once free, the same render writes the checkpoint and the frame.
        let again = CLI.run(["render", job, "--out", out.path, "--frames", "3700", "--progress", "none"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(Self.names(out).contains("renderfarm.cache"), "\(Self.names(out))")
    }

    @Test("prepare of a locked folder exits 75 and fills no cache; prepare's own lock keeps a render out")
    func prepareHoldsTheLock() throws {
        let folder = try TemporaryFolder()
        let job = try PhysicsCacheTests.job(in: folder)
        let out = folder.url.appendingPathComponent("out")
        let held = try HeldLock(out)
        let prepare = CLI.run(["prepare", job, "--out", out.path, "--frames", "0-3700"])
        #expect(prepare.status == 75, "\(prepare.stderr)")
        #expect(Self.names(out) == ["renderfarm.lock"], "\(Self.names(out))")
        held.release()

        // A render waiting at a gate holds the folder: prepare is refused, naming it.
        let gate = try folder.write("", to: "gate")
        let faults = try OutputTrustTests.job(
            in: folder, name: "faults.json", params: #"{"waitFrames": [0], "waitWhileFileExists": "\#(gate)"}"#,
            frames: 4, output: "held")
        let held2 = folder.url.appendingPathComponent("held")
        let running = try Binary.Running(
            ["render", faults, "--progress", "none", "-j", "1"] + OutputTrustTests.plugins)
        try Binary.waitUntil("the render holds its folder", running: running) {
            OutputTrustTests.manifest(held2)?["state"] as? String == "rendering"
        }
        let second = CLI.run(["prepare", faults] + OutputTrustTests.plugins)
        try FileManager.default.removeItem(atPath: gate)
        let first = running.wait(timeout: 60)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(second.status == 75, "\(second.stderr)")
        #expect(second.stderr.contains("is in use by render (pid \(running.process.processIdentifier)"), "\(second.stderr)")
    }
}
