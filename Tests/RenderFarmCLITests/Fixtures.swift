import CCrypto
import Foundation
import Testing

/// Every PNG under `folder`, by path relative to it, sorted.
func pngFiles(in folder: URL) throws -> [(String, Data)] {
    let names = (FileManager.default.subpaths(atPath: folder.path) ?? []).filter { $0.hasSuffix(".png") }
    return try names.sorted().map { ($0, try Data(contentsOf: folder.appendingPathComponent($0))) }
}

/// A folder under the system's temporary directory, removed when the value goes away.
final class TemporaryFolder {
    let url: URL
    var path: String { url.path }

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("renderfarm-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// Writes `text` to `name` inside the folder and returns its path.
    @discardableResult
    func write(_ text: String, to name: String) throws -> String {
        let file = url.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: file, atomically: true, encoding: .utf8)
        return file.path
    }
}

extension TemporaryFolder {
    /// Writes `job` to `job.json` and expects `renderfarm validate` to refuse it as invalid (exit 65), saying
    /// `message` on standard error; `label` says which case failed.
    func expectRefused(
        _ job: String, saying message: String, label: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let validate = CLI.run(["validate", try write(job, to: "job.json")])
        #expect(validate.status == 65, "\(label): \(validate.stderr)", sourceLocation: sourceLocation)
        #expect(validate.stderr.contains(message), "\(label): \(validate.stderr)", sourceLocation: sourceLocation)
    }
}

/// The parts of `manifest.json` the tests look at, decoded with Foundation (independently of
/// the renderer's own JSON code).
struct Manifest: Decodable {
    struct Frame: Decodable {
        var index: Int
        var file: String
        var sha256: String
        var bytes: Int
        var status: String
        var attempts: Int
    }

    struct Sequence: Decodable {
        var name_prefix: String
        var name_suffix: String
        var start_frame: Int
        var frame_step: Int
        var rate: Double
        var frame_zero_padding: Int
    }

    var complete: Bool
    var missing: String
    var frameCount: Int
    var fps: Double
    var frames: [Frame]
    var sequence: Sequence
    var ffmpeg: String

    init(folder: URL) throws {
        let data = try Data(contentsOf: folder.appendingPathComponent("manifest.json"))
        self = try JSONDecoder().decode(Manifest.self, from: data)
    }
}

/// SHA-256 as lowercase hex, through OpenSSL.
func sha256(_ data: Data) -> String {
    var digest = [UInt8](repeating: 0, count: 32)
    var length: UInt32 = 0
    data.withUnsafeBytes { _ = EVP_Digest($0.baseAddress, $0.count, &digest, &length, EVP_sha256(), nil) }
    return digest.map { String(format: "%02x", $0) }.joined()
}
