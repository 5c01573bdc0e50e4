import FileInput
import Foundation
import Testing

/// `StagedWrite` promises that a file appears under its final name whole or not at all, that it never writes
/// through what it finds there, and that it leaves no temporary file behind, whether it lands or fails. The
/// cases are generated: random names, sizes and prior contents, with a path or a folder descriptor.
@Suite("staged writes")
struct StagedWriteTests {
    /// A fresh folder, removed when the test ends.
    final class Folder {
        let path: String
        init() throws {
            path = NSTemporaryDirectory() + "staged-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        }
        deinit { try? FileManager.default.removeItem(atPath: path) }
        func names() -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }
        func bytes(_ name: String) -> [UInt8]? {
            FileManager.default.contents(atPath: path + "/" + name).map(Array.init)
        }
    }

    /// A small deterministic generator, so a failing case can be replayed from its seed.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func bytes(upTo limit: Int) -> [UInt8] {
            (0..<Int.random(in: 0...limit, using: &self)).map { _ in UInt8.random(in: 0...255, using: &self) }
        }
        mutating func name() -> String {
            let letters = Array("abcdefghijklmnopqrstuvwxyz0123456789._-")
            return "f"
                + String((0..<Int.random(in: 1...40, using: &self)).map { _ in letters.randomElement(using: &self)! })
        }
    }

    @Test("random files land whole, over whatever file was there, with nothing else left", arguments: 1...4)
    func lands(seed: UInt64) throws {
        var random = Generator(state: seed)
        let folder = try Folder()
        let descriptor = open(folder.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        defer { close(descriptor) }
        var expected: [String: [UInt8]] = [:]
        for _ in 0..<60 {
            let name =
                expected.keys.sorted().randomElement(using: &random).flatMap { Bool.random(using: &random) ? $0 : nil }
                ?? random.name()
            let bytes = random.bytes(upTo: Bool.random(using: &random) ? 300 : 200_000)
            // A reader holding the previous file keeps reading the previous bytes: the new file is a new inode.
            let held = open(folder.path + "/" + name, O_RDONLY | O_CLOEXEC)
            let failure = bytes.withUnsafeBytes { buffer in
                Bool.random(using: &random)
                    ? StagedWrite.write(buffer, to: folder.path + "/" + name)
                    : StagedWrite.write(buffer, to: name, in: descriptor)
            }
            #expect(failure == nil, "seed \(seed), \(name): \(failure?.reason ?? "")")
            if held >= 0, let previous = expected[name] {
                var old = [UInt8](repeating: 0, count: previous.count + 1)
                let count = old.withUnsafeMutableBytes { DescriptorIO.readFully(held, into: $0) }
                #expect((try? count.get()) == previous.count && old.prefix(previous.count).elementsEqual(previous))
                close(held)
            }
            expected[name] = bytes
            #expect(folder.bytes(name) == bytes, "seed \(seed), \(name)")
        }
        #expect(folder.names() == expected.keys.sorted(), "seed \(seed): a temporary file stayed")
    }

    @Test("a symbolic link at the final name is replaced, and what it points to is never written")
    func neverThroughALink() throws {
        let folder = try Folder()
        let target = folder.path + "/target"
        try Data("kept".utf8).write(to: URL(fileURLWithPath: target))
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/link", withDestinationPath: target)
        let failure = Array("new".utf8).withUnsafeBytes { StagedWrite.write($0, to: folder.path + "/link") }
        #expect(failure == nil)
        #expect(folder.bytes("target") == Array("kept".utf8))
        let kind = try FileManager.default.attributesOfItem(atPath: folder.path + "/link")[.type] as? FileAttributeType
        #expect(kind == .typeRegular)
        #expect(folder.bytes("link") == Array("new".utf8))
    }

    @Test("failures name their errno and leave nothing: a missing folder, a folder at the final name")
    func failures() throws {
        let folder = try Folder()
        let missing = Array("x".utf8).withUnsafeBytes { StagedWrite.write($0, to: folder.path + "/no/such/file") }
        #expect(missing?.code == ENOENT)
        try FileManager.default.createDirectory(atPath: folder.path + "/taken", withIntermediateDirectories: false)
        let taken = Array("x".utf8).withUnsafeBytes { StagedWrite.write($0, to: folder.path + "/taken") }
        #expect(taken?.code == EISDIR)
        #expect(folder.names() == ["taken"], "a temporary file stayed: \(folder.names())")
    }

    @Test("two threads writing one name: every read sees one writer's bytes whole")
    func racingWriters() throws {
        let folder = try Folder()
        let path = folder.path + "/shared"
        let contents = [[UInt8](repeating: 0xA1, count: 150_000), [UInt8](repeating: 0x5C, count: 90_000)]
        _ = contents[0].withUnsafeBytes { StagedWrite.write($0, to: path) }
        let group = DispatchGroup()
        for content in contents {
            DispatchQueue.global().async(group: group) {
                for _ in 0..<40 { _ = content.withUnsafeBytes { StagedWrite.write($0, to: path) } }
            }
        }
        var reads = 0
        while group.wait(timeout: .now()) == .timedOut || reads == 0 {
            let bytes = folder.bytes("shared")
            #expect(bytes.map { contents.contains($0) } == true, "a read saw a mixed or partial file")
            reads += 1
        }
        #expect(folder.names() == ["shared"])
    }
}
