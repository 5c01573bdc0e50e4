import EffectKit
import Foundation
import Testing

/// `EffectCache`, the folder a plugin keeps checkpoints in: whole files or none, plain names only.
@Suite("Effect cache")
struct EffectCacheTests {
    /// A fresh folder, removed by the caller.
    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("effect-cache-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test("a written file reads back whole, replaces an older one, and leaves no temporary file")
    func roundTrip() throws {
        let url = try Self.folder()
        defer { try? FileManager.default.removeItem(at: url) }
        let cache = EffectCache(folder: url.path)
        let bytes = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        #expect(cache.read("state-1.bin") == nil)
        #expect(cache.write("state-1.bin", [1, 2, 3]))
        #expect(cache.write("state-1.bin", bytes))
        #expect(cache.read("state-1.bin") == bytes)
        #expect(cache.write("empty", []))
        #expect(cache.read("empty") == [])
        #expect(try FileManager.default.contentsOfDirectory(atPath: url.path).sorted() == ["empty", "state-1.bin"])
        #expect(cache.read("state-1.bin", limit: 99_999) == nil, "larger than the limit")
    }

    @Test("names outside letters, digits, '-', '_' and '.' (or starting with a dot) are refused", arguments: [
        "", ".hidden", "../escape", "a/b", "space name", "naïve", String(repeating: "x", count: 201),
    ])
    func refusedNames(name: String) throws {
        let url = try Self.folder()
        defer { try? FileManager.default.removeItem(at: url) }
        let cache = EffectCache(folder: url.path)
        #expect(!EffectCache.isValidName(name))
        #expect(!cache.write(name, [1]))
        #expect(cache.read(name) == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: url.path).isEmpty)
    }

    @Test("a missing folder reads as absent and is made by the first write")
    func missingFolder() throws {
        let url = try Self.folder()
        defer { try? FileManager.default.removeItem(at: url) }
        let nested = url.appendingPathComponent("out/renderfarm.cache/physics-bounce")
        let missing = EffectCache(folder: nested.path)
        #expect(missing.read("a") == nil)
        #expect(!FileManager.default.fileExists(atPath: nested.path), "reading makes nothing")
        #expect(missing.write("a", [1]))
        #expect(missing.read("a") == [1])
        #expect(try FileManager.default.contentsOfDirectory(atPath: nested.path) == ["a"])
    }

    @Test("a folder in the file's place and a symbolic link read as absent")
    func absent() throws {
        let url = try Self.folder()
        defer { try? FileManager.default.removeItem(at: url) }
        let cache = EffectCache(folder: url.path)
        try FileManager.default.createDirectory(at: url.appendingPathComponent("dir"), withIntermediateDirectories: false)
        #expect(cache.read("dir") == nil)
        #expect(cache.write("target", [7]))
        try FileManager.default.createSymbolicLink(
            atPath: url.appendingPathComponent("link").path, withDestinationPath: url.appendingPathComponent("target").path)
        #expect(cache.read("link") == nil)
    }
}
