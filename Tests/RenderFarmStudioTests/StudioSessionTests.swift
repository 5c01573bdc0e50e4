import Foundation
import Testing

@testable import RenderFarmStudio

@Suite("Studio frames, farm and hot reload", .serialized)
struct StudioSessionTests {
    @Test("the farm view's status covers a folder rendered as two shards, as status --json reads it")
    func shardedFolder() throws {
        let studio = try StudioFixture()
        let out = studio.root.appendingPathComponent("out/sharded")
        for shard in ["0/2", "1/2"] {
            let result = try StudioFixture.renderfarm([
                "render", studio.jobFile.path, "--frames", "0-9", "--scale", "0.25", "--shard", shard, "--out",
                out.path,
            ])
            #expect(result.status == 0, "\(result.stderr)")
        }
        let folders = (try studio.client.send("GET", "/api/status").json?["folders"] as? [[String: Any]]) ?? []
        let folder = try #require(folders.first)
        #expect(folder["journals"] as? Int == 2)
        #expect(folder["done"] as? Int == 10)
        #expect(folder["state"] as? String == "complete")
    }

    @Test("debug=1 draws the motion overlay over the frame; an edit that decides no pixels keeps the cache")
    func overlayAndCache() throws {
        let studio = try StudioFixture()
        let plain = try studio.client.send("GET", "/api/frames/100.png?scale=0.5")
        let overlay = try studio.client.send("GET", "/api/frames/100.png?scale=0.5&debug=1")
        #expect(plain.status == 200 && overlay.status == 200)
        #expect(plain.body != overlay.body)
        let renamed = studio.jobText.replacingOccurrences(
            of: #""dir": "out/live-hearts""#, with: #""dir": "out/elsewhere""#)
        #expect(try studio.client.send("PUT", "/api/job", body: Array(renamed.utf8)).status == 200)
        let misses = studio.server.cacheCounts.misses
        let again = try studio.client.send("GET", "/api/frames/100.png?scale=0.5")
        #expect(again.body == plain.body)
        #expect(studio.server.cacheCounts.misses == misses)
    }

    /// `value` with the colour of every Lottie fill ("ty": "fl") replaced by `color`.
    static func refilled(_ value: Any, _ color: [Double]) -> Any {
        if var object = value as? [String: Any] {
            for (key, child) in object { object[key] = refilled(child, color) }
            if object["ty"] as? String == "fl" { object["c"] = ["a": 0, "k": color] }
            return object
        }
        if let array = value as? [Any] { return array.map { refilled($0, color) } }
        return value
    }

    @Test("an edited Lottie file gives new frames, without a change to the job file")
    func inputFileEdit() throws {
        let studio = try StudioFixture()
        let assets = studio.root.appendingPathComponent("assets")
        try FileManager.default.createDirectory(at: assets, withIntermediateDirectories: true)
        let lottie = assets.appendingPathComponent("gift-pop.json")
        let original = try Data(contentsOf: StudioFixture.packageRoot.appendingPathComponent("jobs/assets/gift-pop.json"))
        try original.write(to: lottie)
        let job = studio.jobText.replacingOccurrences(
            of: #""effect": "floating-heart""#,
            with: #""effect": "lottie", "params": {"file": "assets/gift-pop.json", "loop": true}}, {"effect": "floating-heart""#)
        #expect(try studio.client.send("PUT", "/api/job", body: Array(job.utf8)).status == 200)
        let before = try studio.client.send("GET", "/api/frames/30.png?scale=0.5")
        #expect(before.status == 200)
        #expect(try studio.client.send("GET", "/api/frames/30.png?scale=0.5").body == before.body)

        let document = try JSONSerialization.jsonObject(with: original)
        let green = Self.refilled(document, [0, 1, 0, 1])
        try JSONSerialization.data(withJSONObject: green).write(to: lottie, options: .atomic)
        let after = try studio.client.send("GET", "/api/frames/30.png?scale=0.5")
        #expect(after.status == 200)
        #expect(after.body != before.body, "the frame still shows the Lottie file as it was")
        // Put back, the first frame again (same fingerprint, so the cache may serve it).
        try original.write(to: lottie, options: .atomic)
        #expect(try studio.client.send("GET", "/api/frames/30.png?scale=0.5").body == before.body)
    }

    @Test("a plugin library appearing or rebuilt in a plugin folder reloads the plugins and revalidates")
    func pluginReload() throws {
        let plugins = FileManager.default.temporaryDirectory.appendingPathComponent("rf-plugins-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: plugins, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: plugins) }
        let gradient = StudioFixture.buildDirectory.appendingPathComponent("librenderfarm-gradient.so")
        try FileManager.default.copyItem(at: gradient, to: plugins.appendingPathComponent("librenderfarm-gradient.so"))
        let studio = try StudioFixture(pluginSearchPath: [plugins.path])
        let before = try studio.client.send("GET", "/api/job").json
        #expect(before?["valid"] as? Bool == false)
        #expect((before?["errors"] as? [String])?.first?.contains("unknown effect \"floating-heart\"") == true)

        let library = plugins.appendingPathComponent("librenderfarm-floating-heart.so")
        let appeared = try studio.client.stream(
            "/api/events", seconds: 20,
            after: {
                try FileManager.default.copyItem(
                    at: StudioFixture.buildDirectory.appendingPathComponent("librenderfarm-floating-heart.so"),
                    to: library)
            }, until: { $0.contains(#""source":"plugins""#) }
        )
        #expect(appeared.contains(#""source":"plugins""#))
        let after = try studio.client.send("GET", "/api/job").json
        #expect(after?["valid"] as? Bool == true)
        let loaded = ((after?["layers"] as? [[String: Any]])?.first?["library"] as? String) ?? ""
        #expect(loaded == library.path)
        #expect(try studio.client.send("GET", "/api/frames/10.png?scale=0.25").status == 200)

        // A rebuild: a new file at the same path is loaded from a fresh copy (dlopen keeps the old one).
        let rebuilt = try studio.client.stream(
            "/api/events", seconds: 20,
            after: {
                let data = try Data(contentsOf: library)
                try FileManager.default.removeItem(at: library)
                try data.write(to: library)
            }, until: { $0.contains(#""source":"plugins""#) }
        )
        #expect(rebuilt.contains(#""source":"plugins""#))
        let reloaded = try studio.client.send("GET", "/api/job").json
        let copy = ((reloaded?["layers"] as? [[String: Any]])?.first?["library"] as? String) ?? ""
        #expect(copy != library.path && copy.hasSuffix("/librenderfarm-floating-heart.so"))
        #expect(reloaded?["valid"] as? Bool == true)
    }
}
