import FileInput
import Foundation
import MicroHTTP
import RenderFarm
import RenderFarmJobs
import StrictJSON

/// Answers the studio's requests: the page's files and the HTTP API (Studio.md in the docs).
/// Every refused request gets a JSON `{"error": …}` and a 4xx status.
struct StudioRoutes: Sendable {
    let session: StudioSession
    let events: EventHub
    let farm: FarmWatch
    let renders: RenderRunner
    let options: StudioOptions
    /// The `host:port` values a browser may send in `Host` without a token (DNS rebinding is refused).
    let allowedHosts: Set<String>
    /// The port listened on: it names the token cookie, so studios on other ports keep their own.
    let port: Int
    /// The value of the page's session cookie (`pageCookieName`), set when the page loads.
    let pageCookie: String
    let isStopping: @Sendable () -> Bool
    /// The page's undo history of this job.
    var history: StudioHistory { StudioHistory(folder: options.historyFolder, jobFile: options.jobFile) }

    /// Sent with every response: no page of another origin may frame the studio (clickjacking), run
    /// script in it, use its frames or files as its own images, or learn its address with a token from
    /// `Referer`.
    static let securityHeaders: [(name: String, value: String)] = [
        (
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' blob: data:; media-src 'self' blob:; script-src 'self'; style-src 'self'; "
                + "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
        ),
        ("X-Frame-Options", "DENY"), ("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "no-referrer"),
        ("Cross-Origin-Resource-Policy", "same-origin"),
    ]

    /// The paths `route` answers for the methods it names: any other method on them gets 405.
    static let fixedPaths: Set<String> = Set(StudioAssets.files.keys).union([
        "/", "/api/job", "/api/status", "/api/events", "/api/file", "/api/render", "/api/audio.wav", "/api/history",
        "/api/placements",
    ])

    /// The cookie the page's address with `?token=` sets: one name per port, since browsers send a
    /// host's cookies to all its ports.
    var cookieName: String { "renderfarm_token_\(port)" }

    /// The session cookie the page gets when it loads (named per port, as the token's): the server keeps a
    /// connection that carries it however many connections other clients at its address hold.
    static func pageCookieName(port: Int) -> String { "renderfarm_page_\(port)" }

    func respond(_ request: HTTPRequest) -> HTTPResponse {
        var response = route(request)
        // The documentation's pages bring their own policy (DocC's base-path script, by its hash).
        let own = Set(response.headers.map { $0.name })
        response.headers += Self.securityHeaders.filter { !own.contains($0.name) }
        return response
    }

    private func route(_ request: HTTPRequest) -> HTTPResponse {
        if let refusal = refuse(request) { return refusal }
        let path = request.path
        if path.split(separator: "/", omittingEmptySubsequences: false).contains("..") {
            return error(400, "paths with .. segments are refused")
        }
        // The page's scripts and style sheet; its HTML sets cookies, below.
        if request.method == "GET", path != "/index.html", let file = StudioAssets.response(path) { return file }
        switch (request.method, path) {
        case ("GET", "/"), ("GET", "/index.html"):
            guard var response = StudioAssets.response("/index.html") else { return error(500, "the page is missing") }
            response.headers.append(
                ("Set-Cookie", "\(Self.pageCookieName(port: port))=\(pageCookie); Path=/; HttpOnly; SameSite=Strict"))
            if let token = options.token, request.query["token"] == token {
                response.headers.append(("Set-Cookie", "\(cookieName)=\(token); Path=/; HttpOnly; SameSite=Strict"))
            }
            return response
        case ("GET", "/api/job"): return job(session.json(variant: Int(request.query["variant"] ?? "") ?? 0))
        case ("PUT", "/api/job"): return put(request)
        case ("GET", "/api/status"): return json(FarmStatus.json(root: options.root))
        case ("GET", "/api/placements"): return placements(request)
        case ("GET", "/api/history"):
            return HTTPResponse(
                status: 200, headers: [("Content-Type", "application/json")], body: .bytes(history.read()))
        case ("PUT", "/api/history"):
            do {
                try history.write(request.body)
                return json(.object(["kept": .bool(true)]))
            } catch {
                return self.error(error.status, error.message)
            }
        case ("GET", "/api/events"): return stream()
        case ("GET", "/api/audio.wav"): return audio(request)
        case ("GET", "/api/file"): return file(request)
        case ("POST", "/api/render"): return render(request)
        case ("GET", "/api/render"): return json(.object(["renders": renders.json]))
        case ("DELETE", "/api/render"):
            guard let id = request.query["id"] else {
                return renders.stop() ? json(.object(["stopping": .bool(true)])) : error(409, "no render is running")
            }
            guard let number = Int(id) else { return error(400, "id=\(id): not a render's id") }
            return renders.stop(number) ? json(.object(["stopping": .bool(true)])) : error(404, "no render \(id)")
        case _ where Self.fixedPaths.contains(path):
            return error(405, "\(request.method) is not allowed on \(path)")
        default:
            if path == "/docs" || path.hasPrefix("/docs/") {
                guard request.method == "GET" else { return error(405, "\(request.method) is not allowed on \(path)") }
                return StudioDocs(folder: options.docsFolder).respond(path)
            }
            if path.hasPrefix("/api/frames/") {
                guard request.method == "GET" else { return error(405, "\(request.method) is not allowed on \(path)") }
                return frame(request)
            }
            return error(404, "no such resource: \(path)")
        }
    }

    /// Token, host, origin, fetch-site and peer checks; nil when the request may go on.
    private func refuse(_ request: HTTPRequest) -> HTTPResponse? {
        let host = request.headers["host"]?.lowercased()
        // A browser names where a request comes from (Fetch Metadata): a page of another site or another port
        // (`<img src>` of a frame, a script's fetch) gets nothing, so it cannot make the studio draw or render
        // at its will. Opening the studio's page or docs from a link elsewhere is a navigation, and allowed.
        if let site = request.headers["sec-fetch-site"]?.lowercased(), !["same-origin", "none"].contains(site) {
            let isPage = request.path == "/" || request.path == "/index.html" || request.path.hasPrefix("/docs")
            guard isPage && request.method == "GET" && request.headers["sec-fetch-mode"]?.lowercased() == "navigate"
            else { return error(403, "requests from pages of other sites or ports (\(site)) are refused") }
        }
        // A change sent by a page names its origin: only the studio's own page (the origin of the
        // address it was opened at, port included) may change anything.
        if !["GET", "HEAD"].contains(request.method), let origin = request.headers["origin"],
            origin.lowercased() != host.map({ "http://\($0)" })
        {
            return error(403, "changes from pages of other origins (\(origin)) are refused")
        }
        if let token = options.token {
            let bearer = request.headers["authorization"].flatMap {
                $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil
            }
            let given = [request.headers["x-renderfarm-token"], bearer, request.cookies[cookieName]]
            let pageLoad = request.method == "GET" && (request.path == "/" || request.path == "/index.html")
            let queryToken = pageLoad ? request.query["token"] : nil
            guard (given + [queryToken]).contains(where: { $0 != nil && constantTimeEqual($0 ?? "", token) }) else {
                return error(
                    401,
                    "a token is required: send it as Authorization: Bearer, in the X-RenderFarm-Token header "
                        + "or the \(cookieName) cookie")
            }
            return nil
        }
        // Without a token only this machine may ask, under a loopback host name.
        guard request.peerIsLoopback else { return error(403, "requests from other hosts need a --token") }
        guard let host, allowedHosts.contains(host) else {
            return error(403, "the Host header names no loopback address of this server")
        }
        return nil
    }

    private func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let (x, y) = (Array(a.utf8), Array(b.utf8))
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// `PUT /api/job` with the whole text; `If-Match` with the `ETag` it was made from.
    private func put(_ request: HTTPRequest) -> HTTPResponse {
        guard let text = String(validating: request.body, as: UTF8.self) else {
            return error(400, "the body is not UTF-8 text; send the whole job file")
        }
        switch session.apply(text, ifMatch: request.headers["if-match"]) {
        case .stale:
            // The current text goes back with the refusal, so the author can see what changed.
            guard case .object(var object) = session.json() else { return error(409, "the job file changed") }
            object["error"] = .string(
                "the job file changed since this edit's version (another program or page saved it); "
                    + "reload it and make the edit again")
            return job(.object(object), status: 409)
        case .refused(let validation):
            var object = validation.json
            object["error"] = .string(validation.lines.first ?? "the job file was not written")
            return json(.object(object), status: 422)
        case .written:
            events.publish("job", session.jobEvent(source: "api"))
            return job(session.json(variant: Int(request.query["variant"] ?? "") ?? 0))
        }
    }

    /// `GET /api/job`'s object as a response, its `etag` also as the `ETag` header.
    private func job(_ value: JSONValue, status: Int = 200) -> HTTPResponse {
        var response = json(value, status: status)
        if let tag = value.objectValue?["etag"]?.stringValue { response.headers.append(("ETag", tag)) }
        return response
    }

    /// `GET /api/frames/<n>.png?scale=S&variant=V&hide=I,J&debug=1`.
    private func frame(_ request: HTTPRequest) -> HTTPResponse {
        let name = request.path.dropFirst("/api/frames/".count)
        guard name.hasSuffix(".png"), let index = Int(name.dropLast(4)), index >= 0 else {
            return error(400, "ask for /api/frames/<frame number>.png")
        }
        var scale: Double?
        if let text = request.query["scale"] {
            // The range `render --scale` accepts, checked before any pixel size is computed.
            guard let value = Double(text), PlanOptions.acceptsScale(value) else {
                return error(
                    400, "scale=\(text) is not a number in (0, \(Int(JobDecoder.Limits.maxScale))] (as render --scale)")
            }
            scale = value
        }
        let debug = ["1", "true"].contains(request.query["debug"] ?? "")
        do {
            let bytes = try session.frame(
                index, variant: try Self.variant(of: request), scale: scale,
                hiding: try HiddenLayers.parse(request.query["hide"]), debug: debug)
            return HTTPResponse(
                status: 200, headers: [("Content-Type", "image/png"), ("Cache-Control", "no-cache")],
                body: .bytes(bytes))
        } catch {
            return self.error(error.status, error.message)
        }
    }

    /// `GET /api/placements?frame=N&variant=V`: where each layer's points are drawn at frame `N`.
    private func placements(_ request: HTTPRequest) -> HTTPResponse {
        guard let frame = Int(request.query["frame"] ?? ""), frame >= 0 else {
            return error(400, "ask for /api/placements?frame=<frame number>&variant=<variant number>")
        }
        do {
            return json(try session.placements(frame: frame, variant: try Self.variant(of: request)))
        } catch {
            return self.error(error.status, error.message)
        }
    }

    /// The variant a request names with `?variant=V` (0 without one).
    private static func variant(of request: HTTPRequest) throws(StudioFailure) -> Int {
        guard let text = request.query["variant"] else { return 0 }
        guard let value = Int(text), value >= 0 else {
            throw StudioFailure(status: 400, "variant=\(text): not a variant number")
        }
        return value
    }

    /// `GET /api/audio.wav?variant=V&hide=I,J`: the job's sound mix under its whole timeline; 404 when it has none.
    private func audio(_ request: HTTPRequest) -> HTTPResponse {
        do {
            let hidden = try HiddenLayers.parse(request.query["hide"])
            guard let wav = try session.audio(variant: try Self.variant(of: request), hiding: hidden) else {
                return error(404, "the job has no sound: no audio section and no layer that plays any")
            }
            return HTTPResponse(
                status: 200, headers: [("Content-Type", "audio/wav"), ("Cache-Control", "no-cache")], body: .bytes(wav))
        } catch {
            return self.error(error.status, error.message)
        }
    }

    /// `POST /api/render?frames=F&preset=P`: renders the job (frames `F`, default its own) as `render`
    /// does; with a preset, straight into a video named as `encode` names it (`OUTDIR/<job>.<ext>`).
    private func render(_ request: HTTPRequest) -> HTTPResponse {
        do {
            let job = try session.prepared(scale: nil)
            let folder = job.outputDirectory
            var video: RenderCommandLine.Video?
            if let name = request.query["preset"] {
                guard let preset = EncodePreset(rawValue: name) else {
                    let known = EncodePreset.allCases.map(\.rawValue).joined(separator: ", ")
                    return error(400, "preset=\(name): not a preset (\(known))")
                }
                let file = "\(job.job.spec.name)\(preset.nameSuffix).\(preset.fileExtension)"
                video = RenderCommandLine.Video(
                    file: URL(fileURLWithPath: folder).appendingPathComponent(file).path, preset: preset.rawValue)
                do {
                    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                } catch {
                    return self.error(500, "cannot make \(folder): \(error.localizedDescription)")
                }
            }
            let item = try renders.enqueue(frames: request.query["frames"], video: video, folder: folder)
            var answer: JSONObject = ["id": .number(Double(item.id)), "folder": .string(folder)]
            if let video { answer["video"] = .string(video.file) }
            return json(.object(answer), status: 202)
        } catch {
            return self.error(error.status, error.message)
        }
    }

    /// What `/api/file` serves, by extension: frames, and the videos the render queue makes.
    static let servedFiles = [
        "png": "image/png", "mp4": "video/mp4", "webm": "video/webm", "mov": "video/quicktime", "gif": "image/gif",
        "apng": "image/apng",
    ]

    /// `GET /api/file?path=P`: a PNG frame (the farm view's thumbnails) or a rendered video under the root.
    private func file(_ request: HTTPRequest) -> HTTPResponse {
        guard let asked = request.query["path"], !asked.isEmpty, !asked.contains("\0") else {
            return error(400, "give the file as ?path=")
        }
        // The same rule as a job's assets: symbolic links resolved, nothing outside the root.
        guard let real = try? ConfinedPath.resolve(asked, in: options.root) else {
            return error(403, "\(asked) is not a file under \(options.root)")
        }
        guard let type = Self.servedFiles[URL(fileURLWithPath: real).pathExtension.lowercased()] else {
            return error(
                403, "only frames and videos are served (\(Self.servedFiles.keys.sorted().joined(separator: ", ")))")
        }
        if type.hasPrefix("video/"), let handle = FileHandle(forReadingAtPath: real) {
            // A video may be larger than any frame: sent as it is read.
            return HTTPResponse(
                status: 200, headers: [("Content-Type", type)],
                body: .stream {
                    // nil at the end or on a read error ends the response; the handle closes with it.
                    guard let chunk = try? handle.read(upToCount: 1 << 20), !chunk.isEmpty else { return nil }
                    return Array(chunk)
                })
        }
        do {
            let bytes = try InputFile.read(real, limit: StudioLimits.maxFileBytes)
            return HTTPResponse(status: 200, headers: [("Content-Type", type)], body: .bytes(bytes))
        } catch {
            if case .tooLarge = error { return self.error(413, "\(asked) is too large to serve") }
            return self.error(404, "cannot read \(asked): \(error)")
        }
    }

    /// `GET /api/events`: `job` when the job or its validation changes, `inputs` when a file its
    /// layers read does, `status` when the farm does.
    private func stream() -> HTTPResponse {
        let events = self.events
        let session = self.session
        let isStopping = self.isStopping
        let cursor = StreamCursor(first: events.latest)
        let opening =
            EventHub.encode("job", session.jobEvent(source: "open"))
            + EventHub.encode("status", farm.json.serialized())
        cursor.queue(opening)
        return HTTPResponse(
            status: 200,
            headers: [
                ("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache"), ("X-Accel-Buffering", "no"),
            ],
            body: .stream {
                if isStopping() { return nil }
                if let queued = cursor.takeQueued() { return queued }
                let next = events.events(after: cursor.sequence, timeout: 1)
                guard let last = next.last else { return Array(": keep-alive\n\n".utf8) }
                cursor.sequence = last.sequence
                return next.flatMap { EventHub.encode($0.name, $0.data) }
            })
    }

    func json(_ value: JSONValue, status: Int = 200) -> HTTPResponse {
        .text(value.serialized(), status: status, contentType: "application/json")
    }

    func error(_ status: Int, _ message: String) -> HTTPResponse {
        .text(StudioJSON.error(message), status: status, contentType: "application/json")
    }
}

/// Where one event stream is; used only from its connection's thread.
final class StreamCursor: @unchecked Sendable {
    // `@unchecked Sendable`: libmicrohttpd calls a response's reader from one thread only.
    var sequence: Int
    private var queued: [UInt8]?

    init(first: Int) { sequence = first }

    func queue(_ bytes: [UInt8]) { queued = bytes }

    func takeQueued() -> [UInt8]? {
        defer { queued = nil }
        return queued
    }
}
