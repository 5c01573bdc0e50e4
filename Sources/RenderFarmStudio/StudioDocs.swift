import FileInput
import FileOutput
import Foundation
import MicroHTTP

/// `GET /docs/…`: the DocC documentation as static web pages, as `make install` puts it under
/// `<prefix>/share/doc/renderfarm/docs/<Module>/` (built with the hosting base path `docs/<Module>`,
/// so the same files work under `/docs/` of any web server). Only files inside that folder are
/// served; without it, `/docs/` answers a page saying how to build and install it.
struct StudioDocs: Sendable {
    /// The folder holding `docs/<Module>/`: `<prefix>/share/doc/renderfarm`; nil when not known.
    let folder: String?

    /// The content types of the files DocC writes; anything else is sent as bytes to download.
    static let contentTypes: [String: String] = [
        "html": "text/html; charset=utf-8", "js": "text/javascript; charset=utf-8", "css": "text/css; charset=utf-8",
        "json": "application/json", "svg": "image/svg+xml", "png": "image/png", "jpg": "image/jpeg",
        "jpeg": "image/jpeg", "gif": "image/gif", "ico": "image/x-icon", "woff": "font/woff", "woff2": "font/woff2",
        "ttf": "font/ttf", "txt": "text/plain; charset=utf-8", "xml": "application/xml",
    ]

    /// The policy for documentation pages: DocC's pages run their own script files and one inline
    /// script that sets the base path, allowed by its hash (no other inline script runs); they
    /// still cannot be framed, post forms or reach other origins.
    static func policy(inlineScripts: [String]) -> String {
        let hashes = inlineScripts.map { " 'sha256-\(base64(hex: SHA256.hex($0)))'" }.joined()
        return "default-src 'self'; img-src 'self' data:; script-src 'self'\(hashes); style-src 'self'; "
            + "font-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
    }

    func respond(_ path: String) -> HTTPResponse {
        guard let root = folder.map({ $0 + "/docs" }), let modules = Self.modules(in: root), !modules.isEmpty else {
            return Self.page(404, title: "The documentation is not installed", body: notInstalled())
        }
        if path == "/docs" { return HTTPResponse(status: 301, headers: [("Location", "/docs/")], body: .bytes([])) }
        let relative = String(path.dropFirst("/docs/".count))
        if relative.isEmpty { return Self.page(200, title: "RenderFarm documentation", body: Self.index(modules)) }
        // The same confinement as a job's files: symbolic links resolved, nothing outside the folder.
        guard var file = try? ConfinedPath.resolve(relative, in: root) else {
            return Self.page(404, title: "Not found", body: "<p>No page <code>\(Self.escape(path))</code>.</p>")
        }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory), isDirectory.boolValue {
            guard path.hasSuffix("/") else {
                return HTTPResponse(status: 301, headers: [("Location", path + "/")], body: .bytes([]))
            }
            file += "/index.html"
        }
        guard let bytes = try? InputFile.read(file, limit: StudioLimits.maxFileBytes) else {
            return Self.page(404, title: "Not found", body: "<p>No page <code>\(Self.escape(path))</code>.</p>")
        }
        let ext = URL(fileURLWithPath: file).pathExtension.lowercased()
        var headers = [("Content-Type", Self.contentTypes[ext] ?? "application/octet-stream")]
        if ext == "html" {
            headers.append(
                ("Content-Security-Policy", Self.policy(inlineScripts: Self.inlineScripts(String(decoding: bytes, as: UTF8.self)))))
        }
        return HTTPResponse(status: 200, headers: headers, body: .bytes(bytes))
    }

    /// The catalogs installed: the folders under `root` that hold an `index.html`.
    static func modules(in root: String) -> [String]? {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: root) else { return nil }
        return names.filter { FileManager.default.fileExists(atPath: root + "/" + $0 + "/index.html") }.sorted()
    }

    /// The text of each `<script>` element without a `src` in `html`.
    static func inlineScripts(_ html: String) -> [String] {
        var scripts: [String] = []
        var rest = html[...]
        while let open = rest.range(of: "<script"), let close = rest[open.upperBound...].range(of: ">"),
            let end = rest[close.upperBound...].range(of: "</script>")
        {
            if !rest[open.upperBound..<close.lowerBound].contains("src=") {
                scripts.append(String(rest[close.upperBound..<end.lowerBound]))
            }
            rest = rest[end.upperBound...]
        }
        return scripts
    }

    private func notInstalled() -> String {
        let looked = folder.map { "<code>\(Self.escape($0))/docs</code>" } ?? "no folder"
        return """
            <p>This studio looked for the documentation in \(looked) and found none.</p>
            <p>Build and install it with the rest of RenderFarm: <code>make install PREFIX=/opt/renderfarm</code> puts
            the pages in <code>&lt;prefix&gt;/share/doc/renderfarm/docs/</code>, where that prefix's
            <code>renderfarm studio</code> finds them. For another folder (one holding <code>docs/&lt;Module&gt;/</code>),
            start the studio with <code>--docs FOLDER</code>.</p>
            <p>Without installing: <code>make docs</code> builds the catalogs for a DocC preview server.</p>
            """
    }

    private static func index(_ modules: [String]) -> String {
        let items = modules.map {
            "<li><a href=\"/docs/\(escape($0))/documentation/\(escape($0.lowercased()))/\">\(escape($0))</a></li>"
        }
        return "<ul>\(items.joined())</ul>"
    }

    private static func page(_ status: Int, title: String, body: String) -> HTTPResponse {
        let html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>\(escape(title))</title>
            <link rel="stylesheet" href="/studio.css"></head>
            <body><main class="view"><h1>\(escape(title))</h1>\(body)<p><a href="/">Back to the studio</a></p></main></body></html>
            """
        return .text(html, status: status, contentType: "text/html; charset=utf-8")
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    private static func base64(hex: String) -> String {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex, let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) {
            bytes.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        return Data(bytes).base64EncodedString()
    }
}
