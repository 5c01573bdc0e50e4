import MicroHTTP
import StudioPage

/// The page's files (HTML, CSS, JavaScript), compiled into the binary from `Sources/StudioPage/page`:
/// no build step, no files beside the executable, no network.
enum StudioAssets {
    struct File: Sendable {
        let contentType: String
        let bytes: [UInt8]
    }

    /// Each file by the path it is served at ("/index.html", "/studio.js", …).
    static let files: [String: File] = {
        var files: [String: File] = [:]
        for index in 0..<studio_page_file_count() {
            let file = studio_page_file_at(index).pointee
            files[String(cString: file.path)] = File(
                contentType: String(cString: file.content_type),
                bytes: Array(UnsafeBufferPointer(start: file.bytes, count: file.size)))
        }
        return files
    }()

    /// The file at `path` as a response, or nil when the page has none there.
    static func response(_ path: String) -> HTTPResponse? {
        files[path].map {
            HTTPResponse(status: 200, headers: [("Content-Type", $0.contentType)], body: .bytes($0.bytes))
        }
    }
}
