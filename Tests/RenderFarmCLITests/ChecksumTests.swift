import FileInput
import FileOutput
import Foundation
import Testing

/// The checksums in manifests, journals and fingerprints (Nettle's SHA-256, `SHA256`) against OpenSSL's
/// (`sha256`, the tests' own), and the reads they hash, on generated contents: random bytes of random sizes
/// and the sizes where a block, a read buffer or a chunk ends.
@Suite("Checksums and file reads")
struct ChecksumTests {
    /// Sizes where SHA-256's 64-byte blocks, the file hash's 256 KiB buffer and the 1 MiB reads end.
    static let edges = [0, 1, 55, 56, 63, 64, 65, 256 << 10 - 1, 256 << 10, 256 << 10 + 1, 1 << 20, 1 << 20 + 1]

    /// `count` random bytes: 8 from each of SplitMix64's words, seeded from `random`.
    static func bytes(_ count: Int, _ random: inout FuzzRandom) -> [UInt8] {
        var words = FuzzRandom(seed: UInt64(random.next(Int.max)))
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 8)
        while bytes.count < count {
            words.state &+= 0x9E37_79B9_7F4A_7C15
            withUnsafeBytes(of: words.state &* 0xBF58_476D_1CE4_E5B9) { bytes += $0 }
        }
        return Array(bytes.prefix(count))
    }

    @Test("the checksum of bytes, whole and fed in random pieces, is OpenSSL's", arguments: [1, 2, 3])
    func bytesMatchOpenSSL(seed: UInt64) {
        var random = FuzzRandom(seed: seed)
        let sizes = Self.edges + (0..<20).map { _ in random.next(300_000) }
        for size in sizes {
            let bytes = Self.bytes(size, &random)
            let expected = sha256(Data(bytes))
            #expect(bytes.withUnsafeBytes { SHA256.hex($0) } == expected, "\(size) bytes, seed \(seed)")
            var hasher = SHA256.Hasher()
            var start = 0
            while start < size {
                let end = min(size, start + 1 + random.next(100_000))
                bytes[start..<end].withUnsafeBytes { hasher.update($0) }
                start = end
            }
            #expect(hasher.hex() == expected, "\(size) bytes in pieces, seed \(seed)")
            // A hasher starts over after its digest.
            #expect(hasher.hex() == sha256(Data()))
        }
    }

    @Test("a file reads back whole, in chunks and as its checksum", arguments: [4, 5])
    func filesReadBack(seed: UInt64) throws {
        var random = FuzzRandom(seed: seed)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("checksum-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let sizes = Self.edges + [3 << 20 + 17] + (0..<8).map { _ in random.next(2_500_000) }
        for (index, size) in sizes.enumerated() {
            let bytes = Self.bytes(size, &random)
            let path = folder.appendingPathComponent("file-\(index)").path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            #expect(try InputFile.read(path, limit: size) == bytes, "\(size) bytes read whole")
            #expect(throws: InputFileError.self) { try InputFile.read(path, limit: size - 1) }
            let file = try InputFile(path)
            var chunks: [UInt8] = []
            while true {
                let chunk = try file.read(upTo: 1 + random.next(700_000))
                if chunk.isEmpty { break }
                chunks += chunk
            }
            #expect(chunks == bytes, "\(size) bytes read in chunks")
            #expect(SHA256.hex(ofFile: path) == sha256(Data(bytes)), "\(size) bytes hashed from the file")
        }
    }

    @Test("a file that grows after it is opened is read to its new end, within the limit")
    func growingFile() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("growing-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(repeating: 1, count: 1000).write(to: URL(fileURLWithPath: path))
        let file = try InputFile(path)
        let handle = try #require(FileHandle(forWritingAtPath: path))
        handle.seekToEndOfFile()
        handle.write(Data(repeating: 2, count: 1_500_000))
        try handle.close()
        let bytes = try file.readAll(limit: 2_000_000)
        #expect(bytes.count == 1_501_000)
        #expect(bytes.prefix(1000).allSatisfy { $0 == 1 } && bytes.dropFirst(1000).allSatisfy { $0 == 2 })
        let again = try InputFile(path)
        try FileHandle(forWritingAtPath: path).map {
            $0.seekToEndOfFile()
            $0.write(Data(repeating: 3, count: 600_000))
            try $0.close()
        }
        #expect(throws: InputFileError.self) { try again.readAll(limit: 2_000_000) }
    }
}
