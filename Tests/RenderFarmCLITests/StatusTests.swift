import Foundation
import Testing

/// `renderfarm status`: a render seen from another terminal, after an interrupt, and as shards.
@Suite("renderfarm status")
struct StatusTests {
    static func status(_ folder: URL, json: Bool = true) throws -> (Binary.Result, [String: Any]) {
        let result = CLI.run(["status", folder.path] + (json ? ["--json"] : []))
        let object = (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) as? [String: Any]
        return (result, object ?? [:])
    }

    /// Starts a render of the test plugin into `folder/out` whose `waitFrames` wait while the returned
    /// gate file exists, and returns once its journal satisfies `ready`.
    static func heldRender(
        in folder: TemporaryFolder, params: String, frames: Int, until ready: @escaping (String) -> Bool
    ) throws -> (Binary.Running, gate: String) {
        let out = folder.url.appendingPathComponent("out")
        let gate = try folder.write("", to: "gate")
        let job = try OutputTrustTests.job(
            in: folder, params: #"{\#(params), "waitWhileFileExists": "\#(gate)"}"#, frames: frames)
        let running = try OutputTrustTests.startSlowRender(job, out: out)
        try Binary.waitUntil("the journal is ready", running: running) {
            ready(
                (try? String(contentsOf: out.appendingPathComponent("renderfarm.journal.jsonl"), encoding: .utf8)) ?? ""
            )
        }
        return (running, gate)
    }

    @Test("during a render: rendering, by which pid, frames done, fps and ETA; complete afterwards")
    func duringRender() throws {
        let folder = try TemporaryFolder()
        let out = folder.url.appendingPathComponent("out")
        let (running, gate) = try Self.heldRender(in: folder, params: #""delayMs": 20, "waitFrames": [10]"#, frames: 40)
        {
            $0.split(separator: "\n").count >= 10
        }
        let (during, object) = try Self.status(out)
        let text = CLI.run(["status", out.path])
        try FileManager.default.removeItem(atPath: gate)
        let finished = running.wait()
        #expect(finished.status == 0, "\(finished.stderr)")
        #expect(during.status == 1, "\(during.stderr)")
        #expect(object["state"] as? String == "rendering")
        let holder = (object["holders"] as? [[String: Any]])?.first
        #expect(holder?["pid"] as? Int == Int(running.process.processIdentifier))
        #expect(holder?["task"] as? String == "render")
        let done = object["done"] as? Int ?? -1
        #expect(done == 10 && object["total"] as? Int == 40)
        #expect((object["fps"] as? Double ?? 0) > 0 && object["etaSeconds"] != nil)
        #expect(text.stdout.contains("rendering by render (pid \(running.process.processIdentifier)"), "\(text.stdout)")
        let (after, final) = try Self.status(out)
        #expect(after.status == 0 && final["state"] as? String == "complete" && final["done"] as? Int == 40)
    }

    @Test("after an interrupt: incomplete, with the missing frames; failed frames are listed with their errors")
    func interruptedAndFailed() throws {
        let folder = try TemporaryFolder()
        let out = folder.url.appendingPathComponent("out")
        let (running, gate) = try Self.heldRender(
            in: folder, params: #""failFrames": [1], "waitFrames": [5]"#, frames: 30
        ) {
            $0.contains("\"failed\"")
        }
        // Interrupted while frame 5 waits; it finishes once the gate goes, then the render stops.
        running.signal(SIGINT)
        try Binary.waitUntil("the interrupt is taken", running: running) {
            ((try? String(contentsOf: running.stderrURL, encoding: .utf8)) ?? "").contains("stopping after the frames")
        }
        try FileManager.default.removeItem(atPath: gate)
        #expect(running.wait().status == 130)
        let (result, object) = try Self.status(out)
        #expect(result.status == 1)
        #expect(object["state"] as? String == "failed")
        let failed = try #require((object["failed"] as? [[String: Any]])?.first)
        #expect(failed["frame"] as? Int == 1)
        #expect((failed["error"] as? String ?? "").contains("injected failure on frame 1"))
        let text = CLI.run(["status", out.path])
        #expect(text.stdout.contains("frame 1 failed: layer 0 (test-faults): injected failure"), "\(text.stdout)")
        #expect(text.stdout.contains("missing: 1,"), "\(text.stdout)")
    }

    @Test("shards: frames of every started shard count; complete when the last shard is done")
    func shards() throws {
        let folder = try TemporaryFolder()
        let out = folder.url.appendingPathComponent("out")
        let job = try OutputTrustTests.job(in: folder, params: "{}", frames: 9)
        for shard in ["0/3", "2/3"] {
            let result = CLI.run(
                ["render", job, "--shard", shard, "--progress", "none"] + OutputTrustTests.plugins)
            #expect(result.status == 0, "\(result.stderr)")
        }
        let (partial, object) = try Self.status(out)
        #expect(partial.status == 1 && object["state"] as? String == "incomplete")
        #expect(object["done"] as? Int == 6 && object["journals"] as? Int == 2 && object["missing"] as? String == "3-5")
        let last = CLI.run(["render", job, "--shard", "1/3", "--progress", "none"] + OutputTrustTests.plugins)
        #expect(last.status == 0)
        let (complete, final) = try Self.status(out)
        #expect(complete.status == 0 && final["state"] as? String == "complete" && final["done"] as? Int == 9)
    }

    @Test("a folder that is not a render folder exits 66")
    func notARenderFolder() throws {
        let folder = try TemporaryFolder()
        let result = CLI.run(["status", folder.path])
        #expect(result.status == 66 && result.stderr.contains("is not a render folder"), "\(result.stderr)")
        let missing = CLI.run(["status", folder.path + "/nope"])
        #expect(missing.status == 66)
    }
}
