import FileInput
import Foundation
import Testing

/// A folder holding a regular file, a named pipe, links and a subfolder (sockets: the CLI tests).
private final class SpecialFolder {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("fileinput-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path + "/folder", withIntermediateDirectories: true)
        try Data("{\"a\": 1}".utf8).write(to: URL(fileURLWithPath: path + "/file.json"))
        try #require(mkfifo(path + "/pipe", 0o644) == 0)
        try FileManager.default.createSymbolicLink(atPath: path + "/zero", withDestinationPath: "/dev/zero")
        try FileManager.default.createSymbolicLink(atPath: path + "/link.json", withDestinationPath: "file.json")
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
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
            ("pipe", FileKind.namedPipe), ("zero", .characterDevice), ("folder", .directory),
        ])
    func refusesSpecialFiles(name: String, kind: FileKind) throws {
        let folder = try SpecialFolder()
        let path = folder.path + "/" + name
        let start = Date()
        #expect(throws: InputFileError.notAFile(path: path, kind: kind)) {
            try InputFile.read(path, limit: 100)
        }
        #expect(Date().timeIntervalSince(start) < 1)
        #expect(
            InputFileError.notAFile(path: "jobs/a.json", kind: .namedPipe).description
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
