import Foundation
import Synchronization
import Testing

@testable import RenderFarmStudio

/// Issue 31's bugs, each through the HTTP API: what a designer's edits and a hostile page can do.
@Suite("Studio: requests never trap, saves never lose edits", .serialized)
struct StudioTrustTests {
    @Test(
        "scale and variant are checked as render --scale checks scale: 1e17 and 9 get 400, and the server lives",
        arguments: ["1e17", "9", "8.0001", "0", "-0", "inf", "1e-400"])
    func scaleLimits(_ scale: String) throws {
        let studio = try StudioFixture()
        let response = try studio.client.send("GET", "/api/frames/0.png?scale=\(scale)")
        #expect(response.status == 400, "\(response.text)")
        #expect((response.json?["error"] as? String)?.contains("(0, 8]") == true, "\(response.text)")
        #expect(try studio.client.send("GET", "/api/frames/0.png?scale=0.25").status == 200)
        #expect(try studio.client.send("GET", "/api/frames/0.png?scale=0.25&variant=x").status == 400)
        #expect(try studio.client.send("GET", "/api/frames/0.png?scale=0.25&variant=3").status == 400)
    }

    @Test("a save carries the ETag it was made from: a stale one gets 409 with the current text, nothing written")
    func staleSave() throws {
        let studio = try StudioFixture()
        let first = try studio.client.send("GET", "/api/job")
        let etag = try #require(first.headers["etag"])
        #expect(first.json?["etag"] as? String == etag)
        // Another program saves the file; the page's edit was made from the version before.
        let theirs = studio.jobText.replacingOccurrences(of: #""rate": 4"#, with: #""rate": 6"#)
        try theirs.write(to: studio.jobFile, atomically: true, encoding: .utf8)
        let mine = theirs.replacingOccurrences(of: #""size": 36"#, with: #""size": 40"#)
            .replacingOccurrences(of: #""rate": 6"#, with: #""rate": 4"#)
        let stale = try studio.client.send("PUT", "/api/job", headers: ["If-Match": etag], body: Array(mine.utf8))
        #expect(stale.status == 409, "\(stale.text)")
        #expect(stale.json?["text"] as? String == theirs)
        #expect(studio.jobText == theirs)
        let current = try #require(stale.headers["etag"])
        #expect(current != etag)
        let fresh = try studio.client.send("PUT", "/api/job", headers: ["If-Match": current], body: Array(mine.utf8))
        #expect(fresh.status == 200, "\(fresh.text)")
        #expect(studio.jobText == mine)
        #expect(fresh.headers["etag"] != current)
    }

    @Test("the file watcher's reload racing saves never puts an older text back: each save from the last is written")
    func reloadRacingSaves() throws {
        let studio = try StudioFixture()
        let session = StudioSession(
            options: StudioOptions(jobFile: studio.jobFile.path, pluginSearchPath: StudioFixture.pluginSearchPath))
        // The watcher's part, as fast as it can go: each read of the file may land during a save.
        final class Flag: Sendable { let raised = Atomic(false) }
        let stop = Flag()
        let reloader = Thread { while !stop.raised.load(ordering: .relaxed) { session.reload(plugins: false) } }
        reloader.start()
        defer { stop.raised.store(true, ordering: .relaxed) }
        for rate in 5...24 {
            let etag = try #require(session.json().objectValue?["etag"]?.stringValue)
            let text = studio.jobText.replacing(#/"rate": \d+/#, with: "\"rate\": \(rate)")
            guard case .written = session.apply(text, ifMatch: etag) else {
                Issue.record("the save of rate \(rate), made from the current version \(etag), was refused as stale")
                return
            }
            #expect(studio.jobText == text)
        }
        #expect(session.json().objectValue?["text"]?.stringValue == studio.jobText)
    }

    @Test("an edit of a file a layer reads (a Lottie file) is seen by inotify and redraws the frame as render does")
    func inputEdited() throws {
        let studio = try StudioFixture(job: "lottie-gift.json", assets: ["gift-pop.json"])
        let before = try studio.client.send("GET", "/api/frames/30.png?scale=0.25")
        #expect(before.status == 200, "\(before.text)")
        let asset = studio.root.appendingPathComponent("assets/gift-pop.json")
        let edited = try String(contentsOf: asset, encoding: .utf8).replacingOccurrences(of: "0.302", with: "0.9")
        let events = try studio.client.stream(
            "/api/events", seconds: 20, after: { try edited.write(to: asset, atomically: false, encoding: .utf8) },
            until: { $0.contains("event: inputs") })
        #expect(events.contains("event: inputs"))
        let misses = studio.server.cacheCounts.misses
        let after = try studio.client.send("GET", "/api/frames/30.png?scale=0.25")
        #expect(studio.server.cacheCounts.misses == misses + 1)
        let out = studio.root.appendingPathComponent("rendered")
        let result = try StudioFixture.renderfarm([
            "render", studio.jobFile.path, "--frames", "30", "--scale", "0.25", "--out", out.path,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Data(after.body) == (try Data(contentsOf: out.appendingPathComponent("frame_00030.png"))))
    }

    @Test("a variants job: every variant listed, frames per variant, the template's placeholders kept")
    func variants() throws {
        let studio = try StudioFixture(job: "streamer-badges.json", assets: ["streamers.csv"])
        let job = try studio.client.send("GET", "/api/job?variant=2").json
        let variants = (job?["variants"] as? [[String: Any]]) ?? []
        #expect(variants.count == 8)
        #expect(job?["variant"] as? Int == 2)
        let layers = (job?["layers"] as? [[String: Any]]) ?? []
        let params = layers.first?["params"] as? [String: Any]
        let chosen = variants.count > 2 ? (variants[2]["values"] as? [String: Any]) : nil
        #expect(params?["from"] as? String == chosen?["accent"] as? String)
        // Variants 0 and 2 are two rows (0 and 1 are one row at the matrix's two scales).
        let a = try studio.client.send("GET", "/api/frames/10.png?scale=0.25&variant=0")
        let b = try studio.client.send("GET", "/api/frames/10.png?scale=0.25&variant=2")
        #expect(a.status == 200 && b.status == 200)
        let same = a.body == b.body
        #expect(!same, "two variants' frames are the same")
        #expect(studio.jobText.contains(#""from": "{{accent}}""#))
    }
}

@Suite("Studio: the render button")
struct StudioRenderTests {
    @Test("POST /api/render?frames= renders them as render does and says so in a render event")
    func renders() throws {
        let studio = try StudioFixture()
        #expect(try studio.client.send("POST", "/api/render?frames=abc").status == 400)
        let (started, stream) = try studio.client.render("?frames=0-3", seconds: 60)
        #expect(started.status == 202, "\(started.text)")
        #expect(stream.contains(#""state":"running""#))
        #expect(stream.contains(#""status":0"#))
        // The render's progress, relayed from its --progress json: the last frame's event is always sent.
        #expect(stream.contains(#""done":4"#) && stream.contains(#""total":4"#), "\(stream)")
        let inOrder = stream.range(of: #""done":4"#).flatMap { last in
            stream.range(of: #""state":"finished""#).map { last.lowerBound < $0.lowerBound }
        }
        #expect(inOrder == true, "finished before the last progress event")
        let folder = studio.root.appendingPathComponent("out/live-hearts")
        let frames = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".png") }
        #expect(frames.sorted() == (0...3).map { String(format: "frame_%05d.png", $0) })
        #expect(try studio.client.send("DELETE", "/api/render").status == 409)
    }

    @Test(
        "the studio's queue: renders run one at a time in order; one taken out never runs; Stop ends the running one with 130 and the next starts"
    )
    func queue() throws {
        let studio = try StudioFixture()
        var ids: [Int] = []
        let (first, events) = try studio.client.render("?preset=webm-alpha", seconds: 180) {
            for frames in ["0", "1"] {
                let queued = try studio.client.send("POST", "/api/render?frames=\(frames)")
                #expect(queued.status == 202, "\(queued.text)")
                ids.append(try #require(queued.json?["id"] as? Int))
            }
            // Everyone sees the same queue: the video running, frames 0 and 1 waiting.
            let listed = try #require(try studio.client.send("GET", "/api/render").json?["renders"] as? [[String: Any]])
            #expect(listed.map { $0["state"] as? String } == ["running", "queued", "queued"], "\(listed)")
            // Frames 0 are taken out before they start: they are never drawn.
            #expect(try studio.client.send("DELETE", "/api/render?id=\(ids[0])").status == 200)
            #expect(try studio.client.send("DELETE", "/api/render?id=\(ids[0])").status == 404)
            // Stop once the render has started drawing. Sent at once from this test process, the child's
            // SIGINT went unseen (it rendered on and exited 0); from `renderfarm studio` a Stop right after
            // the start ends the render (checked by hand), so this is about the test process, not the studio.
            Thread.sleep(forTimeInterval: 1)
            #expect(try studio.client.send("DELETE", "/api/render").status == 200)
        }
        #expect(first.status == 202, "\(first.text)")
        #expect(events.contains(#""status":130"#), "\(events)")
        #expect(events.contains(#""state":"removed""#), "\(events)")
        // Frames 1 start after the stopped video, and finish.
        let finished = try StudioFixture.eventually(within: 60) {
            let listed = try studio.client.send("GET", "/api/render").json?["renders"] as? [[String: Any]] ?? []
            return listed.contains { $0["id"] as? Int == ids[1] && $0["status"] as? Int == 0 }
        }
        #expect(finished, "the queued render did not run after the stopped one")
        let folder = studio.root.appendingPathComponent("out/live-hearts").path
        let pngs = (try? FileManager.default.contentsOfDirectory(atPath: folder))?.filter { $0.hasSuffix(".png") } ?? []
        #expect(pngs == ["frame_00001.png"], "\(pngs)")
        let listed = try #require(try studio.client.send("GET", "/api/render").json?["renders"] as? [[String: Any]])
        #expect(listed.map { $0["status"] as? Int } == [130, 0], "\(listed)")
        #expect(try studio.client.send("DELETE", "/api/render?id=x").status == 400)
    }

    @Test("POST /api/render?preset= renders straight into the video encode names, which /api/file then serves")
    func rendersVideo() throws {
        let studio = try StudioFixture()
        let refused = try studio.client.send("POST", "/api/render?preset=avi")
        #expect(refused.status == 400 && refused.text.contains("webm-alpha"), "\(refused.text)")
        let (started, stream) = try studio.client.render("?frames=0-5&preset=webm-alpha")
        #expect(started.status == 202, "\(started.text)")
        #expect(stream.contains(#""status":0"#) && stream.contains(#""preset":"webm-alpha""#), "\(stream)")
        let video = studio.root.appendingPathComponent("out/live-hearts/live-hearts.webm")
        #expect(started.text.contains("live-hearts.webm"), "\(started.text)")
        let served = try studio.client.send("GET", "/api/file?path=out/live-hearts/live-hearts.webm")
        #expect(served.status == 200 && served.headers["content-type"] == "video/webm")
        #expect(Data(served.body) == (try Data(contentsOf: video)))
        // Six frames, as ffprobe counts them, and no PNG frames: the render went straight to the video.
        #expect(try StudioFixture.frameCount(of: video.path) == "6")
        let pngs = try FileManager.default.contentsOfDirectory(atPath: video.deletingLastPathComponent().path)
            .filter { $0.hasSuffix(".png") }
        #expect(pngs.isEmpty)

        // `renderfarm studio` draws in sandboxed workers, which write PNGs: the frames go to a scratch
        // folder, are encoded with the same preset, and the folder is removed.
        try FileManager.default.removeItem(at: video)
        let (process, port) = try StudioIsolationTests.studio(studio.jobFile.path)
        defer { process.terminate() }
        let client = RawHTTP(port: port)
        let (restarted, sandboxed) = try client.render("?frames=2-5&preset=webm-alpha")
        #expect(restarted.status == 202, "\(restarted.text)")
        #expect(sandboxed.contains(#""status":0"#), "\(sandboxed)")
        #expect(try StudioFixture.frameCount(of: video.path) == "4")
        let scratch = try FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory())
            .filter { $0.hasPrefix("renderfarm-studio-\(process.processIdentifier)-") }
        #expect(scratch.isEmpty, "\(scratch)")
    }
}

/// Issue 31's security items: tokens, origins, framing, slow clients.
@Suite("Studio: no web page can knock it over", .serialized)
struct StudioSecurityTests {
    @Test("every response forbids framing (CSP frame-ancestors 'none') and the page has no inline script")
    func framing() throws {
        let studio = try StudioFixture()
        for path in ["/", "/api/job", "/nowhere"] {
            let response = try studio.client.send("GET", path)
            let policy = response.headers["content-security-policy"] ?? ""
            #expect(policy.contains("frame-ancestors 'none'"), "\(path)")
            #expect(policy.contains("script-src 'self'") && !policy.contains("unsafe-inline"), "\(path)")
            #expect(response.headers["x-frame-options"] == "DENY")
        }
        let page = try studio.client.send("GET", "/").text
        #expect(page.contains(#"<script src="/studio.js"></script>"#))
        #expect(page.contains(#"<script src="/studio-tools.js"></script>"#))
        #expect(page.contains(#"<script src="/studio-state.js"></script>"#))
        #expect(page.components(separatedBy: "<script").count == 4)
        #expect(page.range(of: #"\son[a-z]+="#, options: .regularExpression) == nil, "an inline event handler")
    }

    @Test("a page of another site or port (Sec-Fetch-Site) is refused before anything is drawn; CORP same-origin")
    func otherSites() throws {
        let studio = try StudioFixture()
        let requests: [(method: String, path: String)] = [
            ("GET", "/"), ("GET", "/index.html"), ("GET", "/docs/"), ("GET", "/api/job"), ("GET", "/api/status"),
            ("GET", "/api/frames/3.png?scale=0.25"), ("GET", "/api/frames/7.png?scale=0.3&debug=1"),
            ("POST", "/api/render?frames=0"), ("GET", "/api/file?path=x.png"), ("GET", "/studio.js"),
        ]
        let misses = studio.server.cacheCounts.misses
        // Every way a browser tells a request from elsewhere: an <img>, a fetch, a form, a navigation.
        for (method, path) in requests {
            for site in ["cross-site", "same-site", "Cross-Site"] {
                for (mode, destination) in [("no-cors", "image"), ("cors", "empty"), ("navigate", "document")] {
                    let response = try studio.client.send(
                        method, path,
                        headers: ["Sec-Fetch-Site": site, "Sec-Fetch-Mode": mode, "Sec-Fetch-Dest": destination])
                    let page = ["/", "/index.html", "/docs/"].contains(path) && method == "GET" && mode == "navigate"
                    #expect(
                        (response.status == 403) == !page,
                        "\(method) \(path) from \(site) (\(mode)): \(response.status)")
                    #expect(response.headers["cross-origin-resource-policy"] == "same-origin", "\(path)")
                }
            }
        }
        #expect(studio.server.cacheCounts.misses == misses, "a refused request drew a frame")
        #expect(try studio.client.send("DELETE", "/api/render").status == 409, "a refused request started a render")
        // The page's own requests, and an address typed into the browser, are answered.
        for site in ["same-origin", "none"] {
            let frame = try studio.client.send(
                "GET", "/api/frames/3.png?scale=0.25", headers: ["Sec-Fetch-Site": site, "Sec-Fetch-Mode": "no-cors"])
            #expect(frame.status == 200, "\(site)")
            #expect(frame.headers["cross-origin-resource-policy"] == "same-origin")
        }
    }

    @Test("writes need the exact origin, port included: http://localhost (port 80) is another origin")
    func exactOrigin() throws {
        let studio = try StudioFixture()
        let text = Array(studio.jobText.utf8)
        for origin in ["http://localhost", "http://127.0.0.1", "http://127.0.0.1:\(studio.port + 1)", "null"] {
            let response = try studio.client.send("PUT", "/api/job", headers: ["Origin": origin], body: text)
            #expect(response.status == 403, "\(origin)")
        }
        let own = try studio.client.send(
            "PUT", "/api/job", headers: ["Origin": "http://127.0.0.1:\(studio.port)"], body: text)
        #expect(own.status == 200)
    }

    @Test("--host 0.0.0.0 --token: the URL names a real address, and another machine's page can save")
    func remoteSaves() throws {
        let token = "remote-token-1234"
        let studio = try StudioFixture(host: "0.0.0.0", token: token)
        #expect(!studio.server.url.contains("0.0.0.0"))
        let host = "10.1.2.3:\(studio.port)"
        let cookie = "renderfarm_token_\(studio.port)=\(token)"
        let put = try studio.client.send(
            "PUT", "/api/job", headers: ["Origin": "http://\(host)", "Cookie": cookie],
            body: Array(studio.jobText.utf8), host: host)
        #expect(put.status == 200, "\(put.text)")
        let foreign = try studio.client.send(
            "PUT", "/api/job", headers: ["Origin": "http://evil.example", "Cookie": cookie],
            body: Array(studio.jobText.utf8), host: host)
        #expect(foreign.status == 403)
    }

    @Test("the token cookie is named after the studio's port: two studios in one browser keep their own")
    func cookiePerStudio() throws {
        let (a, b) = (try StudioFixture(token: "first-token-123"), try StudioFixture(token: "second-token-45"))
        let pageA = try a.client.send("GET", "/?token=first-token-123")
        let pageB = try b.client.send("GET", "/?token=second-token-45")
        #expect(pageA.headers["set-cookie"]?.hasPrefix("renderfarm_token_\(a.port)=first-token-123;") == true)
        #expect(pageB.headers["set-cookie"]?.hasPrefix("renderfarm_token_\(b.port)=second-token-45;") == true)
        // The browser sends both cookies to both (cookies ignore ports): each studio reads its own.
        let both = "renderfarm_token_\(a.port)=first-token-123; renderfarm_token_\(b.port)=second-token-45"
        #expect(try a.client.send("GET", "/api/job", headers: ["Cookie": both]).status == 200)
        #expect(try b.client.send("GET", "/api/job", headers: ["Cookie": both]).status == 200)
        #expect(
            try a.client.send("GET", "/api/job", headers: ["Cookie": "renderfarm_token=first-token-123"]).status == 401)
        #expect(
            try a.client.send("GET", "/api/job", headers: ["Authorization": "Bearer first-token-123"]).status == 200)
    }

    @Test("a local flood of slow and streaming connections never locks the page out, nor closes its event stream")
    func localFlood() throws {
        let studio = try StudioFixture()
        let page = try studio.client.send("GET", "/")
        let cookie = try #require(page.headers["set-cookie"]?.split(separator: ";").first.map(String.init))
        #expect(cookie.hasPrefix("renderfarm_page_\(studio.port)="))
        // The page's event stream, opened with its cookie before the flood.
        let stream = try studio.client.openConnection(from: "127.0.0.1")
        defer { close(stream) }
        try studio.client.write(
            Array("GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:\(studio.port)\r\nCookie: \(cookie)\r\n\r\n".utf8),
            on: stream)
        #expect(String(decoding: try studio.client.receive(on: stream, within: 5) ?? [], as: UTF8.self).contains("200"))
        // 200 connections from loopback addresses (one address to the server), each a slow request or an
        // event stream without the cookie; opened in turn, so each new one shuts the oldest down.
        var flood: [Int32] = []
        defer { for socket in flood { close(socket) } }
        for index in 0..<200 {
            guard let socket = try? studio.client.openConnection(from: "127.0.0.\(1 + index % 3)") else { continue }
            let request =
                index % 4 == 0
                ? "GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:\(studio.port)\r\n\r\n"
                : "GET /api/job HTTP/1.1\r\nHost: 1"
            try? studio.client.write(Array(request.utf8), on: socket)
            flood.append(socket)
        }
        // Open: what was sent to it read, nothing more waiting and no end of stream. The server shuts the
        // oldest down as it takes each new one in, on its own thread: under load (a sanitizer build beside other
        // suites) that can take longer than the flood, so the count is read until it settles, for 10 s at most.
        var open = flood
        let settled = Date(timeIntervalSinceNow: 10)
        repeat {
            usleep(100_000)
            open = open.filter { socket in
                while let bytes = try? studio.client.receive(on: socket, within: 0.001) {
                    if bytes.isEmpty { return true }
                }
                return false
            }
        } while open.count > 33 && Date() < settled
        #expect(open.count <= 33, "\(open.count) flood connections still open: more than one address's slots")
        for cookieSent in [true, false] {
            let started = Date()
            let answered = try studio.client.send(
                "GET", "/api/job", headers: cookieSent ? ["Cookie": cookie] : [:])
            #expect(answered.status == 200)
            #expect(Date().timeIntervalSince(started) < 1, "cookie \(cookieSent): answered late")
        }
        // The page's stream was never shut down to make room: it still hears of a save.
        let edited = studio.jobText.replacingOccurrences(of: #""rate": 4"#, with: #""rate": 5"#)
        #expect(try studio.client.send("PUT", "/api/job", body: Array(edited.utf8)).status == 200)
        var heard = ""
        let deadline = Date(timeIntervalSinceNow: 5)
        while !heard.contains(#""source":"api""#) && Date() < deadline {
            guard let bytes = try studio.client.receive(on: stream, within: 0.2) else { break }
            heard += String(decoding: bytes, as: UTF8.self)
        }
        #expect(heard.contains(#""source":"api""#), "the page's event stream was closed by the flood: \(heard)")
    }

    @Test("70 slow clients at one address hold no slot another address needs; trickled headers hit a deadline")
    func slowClients() throws {
        let studio = try StudioFixture()
        var sockets: [Int32] = []
        defer { for socket in sockets { close(socket) } }
        for _ in 0..<70 {
            guard let socket = try? studio.client.openConnection(from: "127.0.0.2") else { continue }
            try? studio.client.write(Array("GET /api/job HTTP/1.1\r\nHost: 127.0.0.1\r\n".utf8), on: socket)
            sockets.append(socket)
        }
        #expect(sockets.count > 40)
        let started = Date()
        let answered = try studio.client.send("GET", "/api/job")
        #expect(answered.status == 200)
        #expect(Date().timeIntervalSince(started) < 1)
    }
}
