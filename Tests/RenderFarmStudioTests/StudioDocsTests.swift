import Foundation
import Testing

/// `/docs/`: the installed static documentation, served with its content types, confined to its
/// folder, under a policy that allows DocC's one inline script by its hash and nothing else inline.
@Suite("Studio: the installed documentation at /docs", .serialized)
struct StudioDocsTests {
    /// A folder laid out as `make install` lays out `<prefix>/share/doc/renderfarm`: `docs/EffectKit/…`
    /// (a DocC page with its base-path script), and beside `docs/` a file that must not be served.
    static func installedDocs() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rf-docs-\(UUID().uuidString)")
        let module = folder.appendingPathComponent("docs/EffectKit")
        let files = [
            "index.html": #"<html><script>var baseUrl = "/docs/EffectKit/"</script><script defer src="/docs/EffectKit/js/index.js"></script></html>"#,
            "documentation/effectkit/index.html": "<html>effectkit</html>",
            "js/index.js": "console.log(1)", "css/index.css": "body{}", "data/documentation/effectkit.json": "{}",
            "favicon.svg": "<svg/>",
        ]
        for (name, text) in files {
            let file = module.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: file)
        }
        try Data("secret".utf8).write(to: folder.appendingPathComponent("secret.txt"))
        try FileManager.default.createSymbolicLink(
            atPath: module.appendingPathComponent("escape.txt").path, withDestinationPath: "../../secret.txt")
        return folder
    }

    @Test("files with their content types; a folder's index.html; /docs/ lists the catalogs")
    func serves() throws {
        let docs = try Self.installedDocs()
        defer { try? FileManager.default.removeItem(at: docs) }
        let studio = try StudioFixture(docsFolder: docs.path)
        let types = [
            "/docs/EffectKit/js/index.js": "text/javascript; charset=utf-8",
            "/docs/EffectKit/css/index.css": "text/css; charset=utf-8",
            "/docs/EffectKit/data/documentation/effectkit.json": "application/json",
            "/docs/EffectKit/favicon.svg": "image/svg+xml",
            "/docs/EffectKit/documentation/effectkit/": "text/html; charset=utf-8",
        ]
        for (path, type) in types {
            let response = try studio.client.send("GET", path)
            #expect(response.status == 200, "\(path)")
            #expect(response.headers["content-type"] == type, "\(path)")
        }
        #expect(try studio.client.send("GET", "/docs/EffectKit/documentation/effectkit/").text == "<html>effectkit</html>")
        let bare = try studio.client.send("GET", "/docs/EffectKit/documentation/effectkit")
        #expect(bare.status == 301 && bare.headers["location"] == "/docs/EffectKit/documentation/effectkit/")
        #expect(try studio.client.send("GET", "/docs").headers["location"] == "/docs/")
        let index = try studio.client.send("GET", "/docs/")
        #expect(index.status == 200)
        #expect(index.text.contains(#"href="/docs/EffectKit/documentation/effectkit/""#))
        #expect(try studio.client.send("POST", "/docs/EffectKit/js/index.js").status == 405)
        #expect(try studio.client.send("GET", "/").text.contains(#"href="/docs/""#), "no link from the studio page")
    }

    @Test("a DocC page may run its base-path script (by hash), nothing else inline, and cannot be framed")
    func policy() throws {
        let docs = try Self.installedDocs()
        defer { try? FileManager.default.removeItem(at: docs) }
        let studio = try StudioFixture(docsFolder: docs.path)
        let response = try studio.client.send("GET", "/docs/EffectKit/")
        #expect(response.status == 200)
        let policy = response.headers["content-security-policy"] ?? ""
        // SHA-256 of `var baseUrl = "/docs/EffectKit/"`, base64 (python3 hashlib).
        #expect(policy.contains("script-src 'self' 'sha256-/pwQ+ss1yarQU5nbbZc9nTeXt7u8jO2rkrX11nfDzTc='; "), "\(policy)")
        #expect(!policy.contains("unsafe-inline"))
        #expect(policy.contains("frame-ancestors 'none'"))
        #expect(response.headers["x-frame-options"] == "DENY")
        // One policy header only: the studio's own is not added on top (browsers would apply both).
        let page = try studio.client.send("GET", "/")
        #expect(page.headers["content-security-policy"]?.contains("sha256") == false)
    }

    @Test("nothing outside docs/: .. segments, encoded ones and symbolic links out are refused")
    func confined() throws {
        let docs = try Self.installedDocs()
        defer { try? FileManager.default.removeItem(at: docs) }
        let studio = try StudioFixture(docsFolder: docs.path)
        for path in [
            "/docs/../secret.txt", "/docs/EffectKit/../../secret.txt", "/docs/%2e%2e/secret.txt",
            "/docs/EffectKit/%2E%2E/%2E%2E/secret.txt", "/docs/EffectKit/escape.txt", "/docs//etc/passwd",
        ] {
            let response = try studio.client.send("GET", path)
            #expect([400, 404].contains(response.status), "\(path): \(response.status)")
            #expect(!response.text.contains("secret") && !response.text.contains("root:"), "\(path)")
        }
    }

    @Test("without installed docs /docs/ is a 404 page that says how to build them")
    func notInstalled() throws {
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("rf-nodocs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: empty) }
        for folder in [empty.path, nil] {
            let studio = try StudioFixture(docsFolder: folder)
            let response = try studio.client.send("GET", "/docs/EffectKit/")
            #expect(response.status == 404)
            #expect(response.headers["content-type"] == "text/html; charset=utf-8")
            #expect(response.text.contains("make install") && response.text.contains("--docs"))
        }
    }
}
