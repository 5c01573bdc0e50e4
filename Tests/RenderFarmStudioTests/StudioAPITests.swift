import Foundation
import Testing

@testable import RenderFarmStudio

@Suite("Studio HTTP API on loopback", .serialized)
struct StudioAPITests {
    @Test("a frame from the API is byte for byte the PNG render --scale writes, and a replay hits the cache")
    func frameEqualsRender() throws {
        let studio = try StudioFixture()
        let response = try studio.client.send("GET", "/api/frames/120.png?scale=0.5")
        #expect(response.status == 200)
        #expect(response.headers["content-type"] == "image/png")
        let out = studio.root.appendingPathComponent("rendered")
        let result = try StudioFixture.renderfarm([
            "render", studio.jobFile.path, "--frames", "120", "--scale", "0.5", "--out", out.path,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let rendered = try Data(contentsOf: out.appendingPathComponent("frame_00120.png"))
        #expect(Data(response.body) == rendered)
        let hitsBefore = studio.server.cacheCounts.hits
        let again = try studio.client.send("GET", "/api/frames/120.png?scale=0.5")
        #expect(again.body == response.body)
        #expect(studio.server.cacheCounts.hits == hitsBefore + 1)
    }

    @Test("every file of Sources/StudioPage/page is served byte for byte, with its type; nothing else is")
    func pageFiles() throws {
        let studio = try StudioFixture()
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Sources/StudioPage/page").standardizedFileURL
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(names.count >= 5 && names.contains("studio-state.js"), "\(names)")
        let types = ["html": "text/html", "css": "text/css", "js": "text/javascript"]
        for name in names {
            let response = try studio.client.send("GET", "/" + name)
            #expect(response.status == 200, "\(name)")
            let type = types[URL(fileURLWithPath: name).pathExtension] ?? "?"
            #expect(response.headers["content-type"] == type + "; charset=utf-8", "\(name)")
            #expect(Data(response.body) == (try Data(contentsOf: folder.appendingPathComponent(name))), "\(name)")
        }
        #expect(StudioAssets.files.count == names.count, "a file in page/ that is not compiled in, or the reverse")
        #expect(try studio.client.send("GET", "/").body == studio.client.send("GET", "/index.html").body)
    }

    @Test("/api/history keeps the page's undo history of the job, owner-only, and refuses what is not one")
    func history() throws {
        let studio = try StudioFixture()
        #expect(try studio.client.send("GET", "/api/history").text == #"{"undo":[],"redo":[]}"#)
        // Generated histories: each kept byte for byte.
        var random = SystemRandomNumberGenerator()
        for _ in 0..<10 {
            let step = { () -> String in
                let texts = (0..<2).map { _ in #"{\"rate\": \#(Int.random(in: 0...99, using: &random))}"# }
                return #"{"from":"\#(texts[0])","to":"\#(texts[1])","gesture":null}"#
            }
            let undo = (0..<Int.random(in: 0...5, using: &random)).map { _ in step() }
            let redo = (0..<Int.random(in: 0...3, using: &random)).map { _ in step() }
            let body = #"{"undo":[\#(undo.joined(separator: ","))],"redo":[\#(redo.joined(separator: ","))]}"#
            #expect(try studio.client.send("PUT", "/api/history", body: Array(body.utf8)).status == 200)
            #expect(try studio.client.send("GET", "/api/history").text == body)
        }
        let folder = studio.root.appendingPathComponent("state/history")
        let kept = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(kept.count == 1 && kept[0].count == 64 + 5, "\(kept)")
        let mode = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(kept[0]).path)[
            .posixPermissions]
        #expect((mode as? Int) == 0o600)
        let before = try studio.client.send("GET", "/api/history").body
        for (body, status) in [
            ("[]", 400), (#"{"undo": []}"#, 400), (#"{"undo": [{"from": 1}], "redo": []}"#, 400), ("not json", 400),
            (#"{"undo": [], "redo": [], "pad": "\#(String(repeating: "x", count: 9 << 20))"}"#, 413),
        ] {
            let refused = try studio.client.send("PUT", "/api/history", body: Array(body.utf8))
            #expect(refused.status == status && refused.json?["error"] is String, "\(body.prefix(40)): \(refused.text)")
        }
        #expect(try studio.client.send("GET", "/api/history").body == before, "a refused history replaced the kept one")
    }

    @Test(
        "/api/placements: each layer's map at a frame is position + R(rotation) · S(scale) · (p − anchor), groups outside"
    )
    func placements() throws {
        let studio = try StudioFixture()
        var random = SystemRandomNumberGenerator()
        typealias Transform = (anchor: (Double, Double), position: (Double, Double), scale: Double, rotation: Double)
        func transform() -> Transform {
            let n = { (range: ClosedRange<Int>) in Double(Int.random(in: range, using: &random)) }
            return ((n(0...375), n(0...667)), (n(-50...400), n(-50...700)), n(1...30) / 10, n(-180...180))
        }
        func json(_ t: Transform) -> String {
            #"{"anchor": [\#(t.anchor.0), \#(t.anchor.1)], "position": [\#(t.position.0), \#(t.position.1)], "#
                + #""scale": \#(t.scale), "rotation": \#(t.rotation)}"#
        }
        func apply(_ t: Transform, _ p: (Double, Double)) -> (Double, Double) {
            let (dx, dy) = ((p.0 - t.anchor.0) * t.scale, (p.1 - t.anchor.1) * t.scale)
            let r = t.rotation * .pi / 180
            return (t.position.0 + cos(r) * dx - sin(r) * dy, t.position.1 + sin(r) * dx + cos(r) * dy)
        }
        for round in 0..<8 {
            let (outer, inner) = (transform(), transform())
            let text = #"""
                {"version": 1, "name": "placed", "seed": 1, "fps": 10, "duration": 2,
                 "canvas": {"width": 375, "height": 667, "scale": 0.5},
                 "layers": [
                   {"effect": "floating-heart", "params": {"rate": 1}},
                   {"start": 0.5, "transform": \#(json(outer)), "group": [
                     {"effect": "floating-heart", "end": 1, "transform": \#(json(inner)), "params": {"rate": 1}}]}]}
                """#
            let put = try studio.client.send("PUT", "/api/job", body: Array(text.utf8))
            #expect(put.status == 200, "\(put.text)")
            let layers = (try studio.client.send("GET", "/api/job").json?["layers"] as? [[String: Any]]) ?? []
            #expect(layers.map { $0["placed"] as? Bool } == [false, true], "round \(round)")
            // Frame 10 is 1 s: the group has run 0.5 s, inside the nested layer's span (its end is 1 s of the group's).
            let answer = try studio.client.send("GET", "/api/placements?frame=10").json
            let maps = answer?["layers"] as? [Any] ?? []
            #expect((maps.first as? [Double]) == [1, 0, 0, 1, 0, 0])
            let map = try #require(maps.last as? [Double], "round \(round): \(String(describing: answer))")
            for _ in 0..<5 {
                let p = (Double.random(in: -100...500, using: &random), Double.random(in: -100...800, using: &random))
                let expected = apply(outer, apply(inner, p))
                let got = (map[0] * p.0 + map[2] * p.1 + map[4], map[1] * p.0 + map[3] * p.1 + map[5])
                #expect(
                    abs(got.0 - expected.0) < 1e-6 && abs(got.1 - expected.1) < 1e-6,
                    "round \(round): \(got) ≠ \(expected)")
            }
            // Before the group starts and after the nested layer ends, it is not drawn: null.
            for frame in [2, 17] {
                let later = try studio.client.send("GET", "/api/placements?frame=\(frame)").json?["layers"] as? [Any]
                #expect(later?.last is NSNull, "frame \(frame): \(String(describing: later))")
            }
        }
        #expect(try studio.client.send("GET", "/api/placements?frame=20").status == 422)
        #expect(try studio.client.send("GET", "/api/placements?frame=x").status == 400)
    }

    @Test("PUT /api/job validates, writes the file atomically as sent, and changes the next frame")
    func putChangesFrame() throws {
        let studio = try StudioFixture()
        let before = try studio.client.send("GET", "/api/frames/90.png?scale=0.4")
        #expect(before.status == 200)
        let edited = studio.jobText.replacingOccurrences(of: #""rate": 4"#, with: #""rate": 11"#)
        #expect(edited != studio.jobText)
        let put = try studio.client.send("PUT", "/api/job", body: Array(edited.utf8))
        #expect(put.status == 200, "\(put.text)")
        #expect(put.json?["valid"] as? Bool == true)
        #expect(studio.jobText == edited)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: studio.root.path).filter {
            $0.hasPrefix(".rf-tmp-")
        }
        #expect(leftovers.isEmpty)
        let after = try studio.client.send("GET", "/api/frames/90.png?scale=0.4")
        #expect(after.status == 200)
        #expect(after.body != before.body)
        let job = try studio.client.send("GET", "/api/job").json
        #expect(job?["text"] as? String == edited)
    }

    @Test(
        "an invalid edit is refused with 422, every problem located exactly as validate prints it, the file untouched")
    func invalidEdit() throws {
        let studio = try StudioFixture()
        let original = studio.jobText
        // A music file that is not there too: `render --video` would refuse it, so the edit is refused now.
        let invalid = original.replacingOccurrences(of: #""rate": 4"#, with: #""rate": 9999"#)
            .replacingOccurrences(of: #""size": 36"#, with: #""size": "big""#)
            .replacingOccurrences(of: #""layers": ["#, with: #""audio": {"music": {"file": "gone.ogg"}}, "layers": ["#)
        let put = try studio.client.send("PUT", "/api/job", body: Array(invalid.utf8))
        #expect(put.status == 422)
        #expect(studio.jobText == original)
        let issues = (put.json?["issues"] as? [[String: Any]]) ?? []
        let paths = issues.compactMap { $0["path"] as? String }
        #expect(paths.contains("layers[0].params.rate"))
        #expect(paths.contains("layers[0].params.size"))
        #expect(paths.contains("audio.music.file"), "\(paths)")
        // The same text where `validate` can read it, under the same name: the same lines.
        let elsewhere = studio.root.appendingPathComponent("check")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        let copy = elsewhere.appendingPathComponent("live-hearts.json")
        try invalid.write(to: copy, atomically: true, encoding: .utf8)
        let validate = try StudioFixture.renderfarm([
            "validate", copy.path, "--plugin-path", StudioFixture.buildDirectory.path,
        ])
        #expect(validate.status == 65)
        let printed = validate.stderr.split(separator: "\n").map(String.init).filter {
            $0.hasPrefix("renderfarm: error:")
        }
        let served = ((put.json?["errors"] as? [String]) ?? []).map {
            $0.replacingOccurrences(of: studio.jobFile.path, with: copy.path)
                .replacingOccurrences(of: "job's folder \(studio.root.path)", with: "job's folder \(elsewhere.path)")
        }
        #expect(served == printed)
        let syntax = try studio.client.send("PUT", "/api/job", body: Array("{\"version\": 1,".utf8))
        #expect(syntax.status == 422)
        #expect((syntax.json?["errors"] as? [String])?.first?.hasPrefix("renderfarm: error: ") == true)
    }

    @Test("traversal, oversized and malformed requests get a 4xx, with a JSON error from the studio")
    func badRequests() throws {
        let studio = try StudioFixture()
        let outside = studio.root.appendingPathComponent("escape.png")
        try FileManager.default.createSymbolicLink(atPath: outside.path, withDestinationPath: "/etc/passwd")
        let refused: [(String, String, Int)] = [
            ("GET", "/api/file?path=../../../../etc/passwd", 403),
            ("GET", "/api/file?path=%2Fetc%2Fpasswd", 403),
            ("GET", "/api/file?path=escape.png", 403),
            ("GET", "/api/file?path=live-hearts.json", 403),
            ("GET", "/api/file", 400),
            ("GET", "/api/frames/../../etc/passwd", 400),
            ("GET", "/api/file/../../etc/passwd", 400),
            ("GET", "/api/frames/abc.png", 400),
            ("GET", "/api/frames/-1.png", 400),
            ("GET", "/api/frames/480.png", 422),
            ("GET", "/api/frames/1.png?scale=-2", 400),
            ("GET", "/api/frames/1.png?scale=nan", 400),
            ("GET", "/api/frames/1.png?scale=40", 400),
            ("POST", "/api/job", 405),
            ("DELETE", "/api/frames/1.png", 405),
            ("GET", "/nowhere", 404),
        ]
        // A method no route of a known path takes: 405 on every one of them, and 404 on an unknown one.
        let unknownMethod = StudioRoutes.fixedPaths.map { ("PATCH", $0, 405) } + [("PATCH", "/api/nowhere", 404)]
        for (method, path, status) in refused + unknownMethod {
            let response = try studio.client.send(method, path)
            #expect(response.status == status, "\(method) \(path): \(response.text)")
            #expect(response.json?["error"] is String, "\(method) \(path): \(response.text)")
        }
        let huge = try studio.client.exchange(
            Array("PUT /api/job HTTP/1.1\r\nHost: 127.0.0.1:\(studio.port)\r\nContent-Length: 50000000\r\n\r\n".utf8))
        #expect(huge.status == 413)
        #expect(huge.json?["error"] is String)
        let binary = try studio.client.send("PUT", "/api/job", body: [0xff, 0xfe, 0x00])
        #expect(binary.status == 400)
        let garbage = try studio.client.exchange(Array("NOT A REQUEST\r\n\r\n".utf8))
        #expect((400..<500).contains(garbage.status))
        let longHeader = try studio.client.send(
            "GET", "/api/job", headers: ["X-Long": String(repeating: "a", count: 100_000)])
        #expect((400..<500).contains(longHeader.status))
        // The server still answers after all that.
        #expect(try studio.client.send("GET", "/api/job").status == 200)
    }

    @Test(
        "a token is required on every request when set; off loopback one must be set; foreign Host headers are refused")
    func tokens() throws {
        #expect(throws: StudioError.self) {
            _ = try StudioServer(
                StudioOptions(
                    jobFile: StudioFixture.packageRoot.appendingPathComponent("jobs/live-hearts.json").path,
                    host: "0.0.0.0", pluginSearchPath: []))
        }
        let token = "s3cret-token-for-tests"
        let studio = try StudioFixture(token: token)
        #expect(studio.server.url.hasSuffix("?token=\(token)"))
        #expect(try studio.client.send("GET", "/api/job").status == 401)
        #expect(
            try studio.client.send("GET", "/api/job", headers: ["X-RenderFarm-Token": "wrong-token-xx"]).status == 401)
        #expect(try studio.client.send("GET", "/api/job", headers: ["X-RenderFarm-Token": token]).status == 200)
        #expect(
            try studio.client.send("GET", "/api/job", headers: ["Cookie": "renderfarm_token_\(studio.port)=\(token)"])
                .status == 200)
        #expect(try studio.client.send("GET", "/api/job?token=\(token)").status == 401)
        let page = try studio.client.send("GET", "/?token=\(token)")
        #expect(page.status == 200)
        #expect(page.headers["set-cookie"]?.hasPrefix("renderfarm_token_\(studio.port)=\(token)") == true)

        let open = try StudioFixture()
        #expect(try open.client.send("GET", "/api/job", host: "attacker.example:\(open.port)").status == 403)
        #expect(try open.client.send("GET", "/api/job", host: "localhost:\(open.port)").status == 200)
        let foreign = try open.client.send(
            "PUT", "/api/job", headers: ["Origin": "http://attacker.example"], body: Array(open.jobText.utf8))
        #expect(foreign.status == 403)
        let own = try open.client.send(
            "PUT", "/api/job", headers: ["Origin": "http://127.0.0.1:\(open.port)"], body: Array(open.jobText.utf8))
        #expect(own.status == 200)
    }

    @Test("GET /api/events streams job changes: a PUT, and an edit of the file by another program (inotify)")
    func events() throws {
        let studio = try StudioFixture()
        let edited = studio.jobText.replacingOccurrences(of: #""rate": 4"#, with: #""rate": 5"#)
        let afterPut = try studio.client.stream(
            "/api/events", seconds: 20,
            after: {
                _ = try studio.client.send("PUT", "/api/job", body: Array(edited.utf8))
            }, until: { $0.contains(#""source":"api""#) }
        )
        #expect(afterPut.contains("event: job"))
        // The event names the version and its ETag, as GET /api/job does: a page showing it reads nothing again.
        let tag = try #require(try studio.client.send("GET", "/api/job").json?["etag"] as? String)
        let escaped = tag.replacingOccurrences(of: "\"", with: "\\\"")
        #expect(afterPut.contains(#""version":2,"etag":"\#(escaped)","source":"api""#), "\(afterPut)")

        let external = edited.replacingOccurrences(of: #""rate": 5"#, with: #""rate": 7000"#)
        let started = Date()
        let afterEdit = try studio.client.stream(
            "/api/events", seconds: 20,
            after: {
                try external.write(to: studio.jobFile, atomically: true, encoding: .utf8)
            }, until: { $0.contains(#""source":"file""#) }
        )
        #expect(afterEdit.contains(#""source":"file""#))
        #expect(Date().timeIntervalSince(started) < 3)
        let job = try studio.client.send("GET", "/api/job").json
        #expect(job?["valid"] as? Bool == false)
        #expect((job?["issues"] as? [[String: Any]])?.first?["path"] as? String == "layers[0].params.rate")
    }

    @Test("GET /api/audio.wav is the WAV renderfarm mix writes for the job; a job without sound gets 404")
    func audio() throws {
        let studio = try StudioFixture(
            job: "stream-replay.json", assets: ["bed.ogg", "ding.mp3", "stream-gifts.jsonl", "stream-likes.csv"])
        let response = try studio.client.send("GET", "/api/audio.wav")
        #expect(response.status == 200, "\(response.text.prefix(300))")
        #expect(response.headers["content-type"] == "audio/wav")
        let mixed = studio.root.appendingPathComponent("mixed.wav")
        let result = try StudioFixture.renderfarm(["mix", studio.jobFile.path, "-o", mixed.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(response.body == Array(try Data(contentsOf: mixed)), "the studio's mix is not renderfarm mix's")
        // The mix follows an edit of the job: 3 dB less music is other samples.
        let quieter = studio.jobText.replacingOccurrences(of: #""gain": -6"#, with: #""gain": -9"#)
        #expect(try studio.client.send("PUT", "/api/job", body: Array(quieter.utf8)).status == 200)
        let edited = try studio.client.send("GET", "/api/audio.wav").body
        #expect(edited != response.body)
        // Another program replaces the music file: the studio hears of it and mixes again.
        let music = studio.root.appendingPathComponent("assets/bed.ogg")
        try FileManager.default.removeItem(at: music)
        try FileManager.default.copyItem(
            at: StudioFixture.packageRoot.appendingPathComponent("jobs/assets/ding.mp3"), to: music)
        let remixed = try StudioFixture.eventually(within: 10) {
            try studio.client.send("GET", "/api/audio.wav").body != edited
        }
        #expect(remixed, "the mix was not made again after its music file changed")

        let silent = try StudioFixture()
        let none = try silent.client.send("GET", "/api/audio.wav")
        #expect(none.status == 404)
        #expect((none.json?["error"] as? String)?.contains("no sound") == true, "\(none.text)")
    }

    @Test("GET /api/status is status --json of every render folder under the root")
    func status() throws {
        let studio = try StudioFixture()
        let out = studio.root.appendingPathComponent("out/a")
        let rendered = try StudioFixture.renderfarm([
            "render", studio.jobFile.path, "--frames", "0-3", "--scale", "0.25", "--out", out.path,
        ])
        #expect(rendered.status == 0, "\(rendered.stderr)")
        let served = try studio.client.send("GET", "/api/status").json
        let folders = (served?["folders"] as? [[String: Any]]) ?? []
        #expect(folders.count == 1)
        #expect(folders.first?["state"] as? String == "complete")
        #expect(folders.first?["done"] as? Int == 4)
        let last = (folders.first?["lastFrame"] as? [String: Any])?["file"] as? String ?? ""
        let thumbnail = try studio.client.send("GET", "/api/file?path=out/a/\(last)")
        #expect(thumbnail.status == 200)
        #expect(thumbnail.headers["content-type"] == "image/png")
    }

    @Test("stop() returns promptly with an event stream open")
    func stopsCleanly() throws {
        let studio = try StudioFixture()
        let port = studio.port
        let reader = Thread {
            _ = try? RawHTTP(port: port).stream("/api/events", seconds: 30, until: { _ in false })
        }
        reader.start()
        #expect(StudioFixture.eventually(within: 5) { (try? studio.client.send("GET", "/api/job").status) == 200 })
        let started = Date()
        studio.server.stop()
        #expect(Date().timeIntervalSince(started) < 5)
    }
}
