import FileInput
import Foundation
import Testing

/// A folder holding a regular file, a named pipe, a socket, links and a subfolder.
private final class SpecialFolder {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("fileinput-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path + "/folder", withIntermediateDirectories: true)
        try Data("{\"a\": 1}".utf8).write(to: URL(fileURLWithPath: path + "/file.json"))
        try #require(mkfifo(path + "/pipe", 0o644) == 0)
        try #require(Self.bindSocket(at: path + "/socket"))
        try FileManager.default.createSymbolicLink(atPath: path + "/zero", withDestinationPath: "/dev/zero")
        try FileManager.default.createSymbolicLink(atPath: path + "/link.json", withDestinationPath: "file.json")
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// Creates a listening-capable Unix socket file at `path` (the descriptor is closed, the file stays).
    static func bindSocket(at path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
            }
        }
    }
}

@Suite("Reading input files")
struct InputFileTests {
    @Test("a regular file is read whole, also through a link")
    func readsFiles() throws {
        let folder = try SpecialFolder()
        #expect(try InputFile.read(folder.path + "/file.json", limit: 100) == Array("{\"a\": 1}".utf8))
        #expect(try InputFile.read(folder.path + "/link.json", limit: 100).count == 8)
    }

    @Test(
        "special files are refused at once with what they are",
        arguments: [
            ("pipe", FileKind.namedPipe), ("socket", .socket), ("zero", .characterDevice), ("folder", .directory),
        ])
    func refusesSpecialFiles(name: String, kind: FileKind) throws {
        let folder = try SpecialFolder()
        let path = folder.path + "/" + name
        let start = Date()
        #expect(throws: InputFileError.notAFile(path: path, kind: kind)) {
            try InputFile.read(path, limit: 100)
        }
        #expect(Date().timeIntervalSince(start) < 1)
        #expect(InputFileError.notAFile(path: "jobs/a.json", kind: .namedPipe).description
            == "jobs/a.json is a named pipe, not a file")
    }

    @Test("a final link is refused when links are not followed")
    func refusesLinks() throws {
        let folder = try SpecialFolder()
        let path = folder.path + "/link.json"
        #expect(throws: InputFileError.notAFile(path: path, kind: .symbolicLink)) {
            try InputFile.read(path, limit: 100, followLastLink: false)
        }
    }

    @Test("missing files and files over the limit are told apart")
    func missingAndLarge() throws {
        let folder = try SpecialFolder()
        #expect(throws: InputFileError.missing(path: folder.path + "/none")) {
            try InputFile.read(folder.path + "/none", limit: 100)
        }
        #expect(throws: InputFileError.tooLarge(path: folder.path + "/file.json", bytes: 8, limit: 4)) {
            try InputFile.read(folder.path + "/file.json", limit: 4)
        }
    }
}
