import EffectKit
import FileOutput
import Foundation
import RenderFarmOutput
import Testing

/// `RecordedFrames`, what a resume and `merge` consult (the RenderFarm article OutputFolder): of every
/// journal in a folder, the newest line of a frame is a candidate when it has the frame's current
/// fingerprint and file name, and the frame is done when one such finished line names the sha256 of
/// the bytes in the frame's file — a file of the folder, never a link.
@Suite("RecordedFrames: a recorded frame is done only when its file still holds what its line says")
struct RecordedFramesTests {
    static let now = "fp-now"
    static let bytes = LookJob.bytes(look: 7)

    /// A folder with frame 3's file holding `bytes` and a journal line saying so.
    static func doneFrame() throws -> (TemporaryFolder, JournalEntry) {
        let folder = try TemporaryFolder("recorded")
        try folder.write(bytes, to: Lines.frameFile(3))
        let line = Lines.entry(3, fingerprint: now, holding: bytes)
        try Lines.journal([line], in: folder)
        return (folder, line)
    }

    @Test("a frame whose file holds the bytes its line's sha256 names, at its fingerprint and file, is done")
    func doneWhenFileMatches() throws {
        let (folder, line) = try Self.doneFrame()
        let recorded = RecordedFrames(directory: folder.path)
        let candidates = recorded.candidates(3, fingerprint: Self.now, file: Lines.frameFile(3))
        #expect(candidates == [line])
        #expect(recorded.verified(among: candidates) == line)
        #expect(recorded.journals == [folder.file(FolderLayout.journal(of: .whole))])
        #expect(recorded.allEntries == [line])

        // A hard link is a file of the folder like any other: holding the same bytes, the frame is done.
        try folder.write(Self.bytes, to: "other.png")
        folder.remove(Lines.frameFile(3))
        try FileManager.default.linkItem(atPath: folder.file("other.png"), toPath: folder.file(Lines.frameFile(3)))
        #expect(recorded.verified(among: candidates) == line)
    }

    /// What may have happened to a done frame's file since its line was written.
    enum Damage: String, CaseIterable, Sendable {
        case removed, editedSameSize, truncated, grown, emptied, linkToSameBytes, folder

        /// Applies the damage to frame 3 of `folder`, whose bytes are `RecordedFramesTests.bytes`.
        func apply(to folder: TemporaryFolder, elsewhere: TemporaryFolder) throws {
            let name = Lines.frameFile(3)
            let bytes = RecordedFramesTests.bytes
            switch self {
            case .removed: folder.remove(name)
            case .editedSameSize: try folder.write(bytes.dropLast() + [bytes[bytes.count - 1] ^ 1], to: name)
            case .truncated: try folder.write(Array(bytes.dropLast()), to: name)
            case .grown: try folder.write(bytes + [0], to: name)
            case .emptied: try folder.write([], to: name)
            case .linkToSameBytes:
                try elsewhere.write(bytes, to: "copy.png")
                folder.remove(name)
                try FileManager.default.createSymbolicLink(
                    atPath: folder.file(name), withDestinationPath: elsewhere.file("copy.png"))
            case .folder:
                folder.remove(name)
                try FileManager.default.createDirectory(atPath: folder.file(name), withIntermediateDirectories: false)
            }
        }
    }

    @Test(
        "a frame whose file was removed, edited, cut, grown, emptied, or replaced by a link or folder is not done",
        arguments: Damage.allCases)
    func damagedFileNotDone(damage: Damage) throws {
        let (folder, line) = try Self.doneFrame()
        let elsewhere = try TemporaryFolder("recorded-elsewhere")
        try damage.apply(to: folder, elsewhere: elsewhere)
        let recorded = RecordedFrames(directory: folder.path)
        let candidates = recorded.candidates(3, fingerprint: Self.now, file: Lines.frameFile(3))
        #expect(candidates == [line], "the line is still a candidate; its file decides")
        #expect(recorded.verified(among: candidates) == nil)
    }

    @Test("a line with another fingerprint or for another file name is no candidate, though the file matches")
    func otherFingerprintOrFile() throws {
        let (folder, line) = try Self.doneFrame()
        let recorded = RecordedFrames(directory: folder.path)
        #expect(recorded.candidates(3, fingerprint: "fp-edited", file: Lines.frameFile(3)).isEmpty)
        #expect(recorded.candidates(3, fingerprint: Self.now, file: "f_3.png").isEmpty)
        #expect(recorded.candidates(4, fingerprint: Self.now, file: Lines.frameFile(3)).isEmpty)
        #expect(recorded.candidates(3, fingerprint: Self.now, file: Lines.frameFile(3)) == [line])
        #expect(recorded.verified(among: []) == nil)
    }

    @Test("a failed line is never done, and as the newest line of its journal it hides an earlier finished one")
    func failedNewestLine() throws {
        let (folder, _) = try Self.doneFrame()
        let failed = Lines.entry(
            3, fingerprint: Self.now, sha256: Lines.hex(Self.bytes), status: .failed, error: "boom")
        try Lines.journal([failed], in: folder)
        let recorded = RecordedFrames(directory: folder.path)
        let candidates = recorded.candidates(3, fingerprint: Self.now, file: Lines.frameFile(3))
        #expect(candidates == [failed])
        #expect(recorded.verified(among: candidates) == nil)
    }

    @Test("the newest line of each journal is a candidate, in journal order; the last the file matches is done")
    func everyJournalCounts() throws {
        let folder = try TemporaryFolder("recorded")
        let first = LookJob.bytes(look: 1)
        let second = LookJob.bytes(look: 2)
        let whole = Lines.entry(3, fingerprint: Self.now, holding: first)
        let shard = Lines.entry(3, fingerprint: Self.now, holding: second)
        let shardPart = Shard.part(index: 1, count: 2, interleaved: false)
        try Lines.journal([shard], in: folder, shard: shardPart)
        try Lines.journal([whole], in: folder)
        let recorded = RecordedFrames(directory: folder.path)
        #expect(
            recorded.journals
                == [FolderLayout.journal(of: .whole), FolderLayout.journal(of: shardPart)].map(folder.file))
        let candidates = recorded.candidates(3, fingerprint: Self.now, file: Lines.frameFile(3))
        #expect(candidates == [whole, shard])
        try folder.write(first, to: Lines.frameFile(3))
        #expect(recorded.verified(among: candidates) == whole)
        try folder.write(second, to: Lines.frameFile(3))
        #expect(recorded.verified(among: candidates) == shard)
        #expect(Set(recorded.allEntries.map(\.sha256)) == [whole.sha256, shard.sha256])

        // Both journals name the file's bytes: the later journal's line is the one done.
        var again = shard
        again.attempts = 3
        try Lines.journal([again], in: folder)
        let alike = RecordedFrames(directory: folder.path)
        let both = alike.candidates(3, fingerprint: Self.now, file: Lines.frameFile(3))
        #expect(both.map(\.attempts) == [3, 1])
        #expect(alike.verified(among: both) == shard)

        // A failed line in one journal does not undo a finished line in another.
        let failed = Lines.entry(3, fingerprint: Self.now, status: .failed, error: "boom")
        try Lines.journal([failed], in: folder, shard: shardPart)
        try Lines.journal([whole], in: folder)
        let mixedFolder = RecordedFrames(directory: folder.path)
        let mixed = mixedFolder.candidates(3, fingerprint: Self.now, file: Lines.frameFile(3))
        #expect(mixed == [whole, failed])
        try folder.write(first, to: Lines.frameFile(3))
        #expect(mixedFolder.verified(among: mixed) == whole)
    }

    @Test("a journal that is a link records nothing, though the file it leads to holds lines of this folder")
    func linkedJournalRecordsNothing() throws {
        let (elsewhere, line) = try Self.doneFrame()
        let folder = try TemporaryFolder("recorded")
        try folder.write(Self.bytes, to: Lines.frameFile(3))
        try FileManager.default.createSymbolicLink(
            atPath: folder.file(FolderLayout.journal(of: .whole)),
            withDestinationPath: elsewhere.file(FolderLayout.journal(of: .whole)))
        let recorded = RecordedFrames(directory: folder.path)
        #expect(recorded.allEntries.isEmpty)
        #expect(recorded.candidates(3, fingerprint: Self.now, file: Lines.frameFile(3)).isEmpty)
        #expect(RecordedFrames(directory: elsewhere.path).allEntries == [line])
    }

    /// What a generated folder holds in a frame's place.
    enum FileState: CaseIterable {
        case absent, content0, content1, content2, link, folder
    }

    @Test("400 generated folders of journals and files: candidates and done frames as a model says")
    func generatedFolders() throws {
        let names = [
            Shard.whole, .part(index: 0, count: 3, interleaved: false), .part(index: 2, count: 3, interleaved: true),
        ]
        .map(FolderLayout.journal(of:))
        /// The bytes of variant `variant` of frame `index`.
        func content(_ index: Int, _ variant: Int) -> [UInt8] { Array("frame \(index) variant \(variant)".utf8) }
        var done = 0
        var notDone = 0
        // Done frames whose newest candidate is not the one done (another journal's line, or a failed one).
        var doneByAnEarlierCandidate = 0
        // One folder for every round: its files are rewritten, not made anew.
        let folder = try TemporaryFolder("recorded-gen")
        for round in 0..<400 {
            // Each round from a seed of its own, which a failure names: one round replays alone.
            let seed = 0x5265_636F_7264_6564 + UInt64(round)
            var random = SeededRandom(seed: seed)
            let frames = 1 + random.below(8)
            let journals = Array(names.prefix(1 + random.below(names.count)))
            // Per journal, the lines in the order written (a journal may have none).
            var written: [[JournalEntry]] = Array(repeating: [], count: journals.count)
            var texts = Array(repeating: "", count: journals.count)
            for _ in 0..<random.below(4 * frames * journals.count + 1) {
                let index = random.below(frames)
                let journal = random.below(journals.count)
                let fingerprint = random.chance(0.7) ? Self.now : "fp-old"
                let file = random.chance(0.85) ? Lines.frameFile(index) : "old_\(index).png"
                var entry = Lines.entry(
                    index, fingerprint: fingerprint, holding: content(index, random.below(3)), file: file)
                // Lines alike but for this tell which one a check picked.
                entry.renderMilliseconds = Double(written.joined().count)
                if random.chance(0.2) {
                    entry.status = .failed
                    entry.error = "boom"
                }
                written[journal].append(entry)
                texts[journal] += entry.json.serialized() + "\n"
            }
            for (name, text) in zip(journals, texts) { try folder.place(Array(text.utf8), at: name) }
            for name in names where !journals.contains(name) { folder.remove(name) }
            var disk: [Int: [UInt8]] = [:]
            for index in 0..<frames {
                let name = Lines.frameFile(index)
                switch random.pick(FileState.allCases) {
                case .absent: folder.remove(name)
                case .content0, .content1, .content2:
                    let bytes = content(index, random.below(3))
                    try folder.place(bytes, at: name)
                    disk[index] = bytes
                case .link:
                    try folder.place(content(index, 0), at: "target-\(index)")
                    folder.remove(name)
                    try FileManager.default.createSymbolicLink(
                        atPath: folder.file(name), withDestinationPath: folder.file("target-\(index)"))
                case .folder:
                    folder.remove(name)
                    try FileManager.default.createDirectory(
                        atPath: folder.file(name), withIntermediateDirectories: false)
                }
            }

            // The model: the newest line of each journal (journals in name order) that has the fingerprint and
            // file; done is the last finished one whose sha256 is that of the regular file's bytes.
            let order = journals.indices.sorted { journals[$0] < journals[$1] }
            let recorded = RecordedFrames(directory: folder.path)
            #expect(recorded.journals == order.map { folder.file(journals[$0]) }, "seed \(seed)")
            var newestCount = 0
            for index in 0..<frames {
                let newest = order.compactMap { written[$0].last { $0.index == index } }
                newestCount += newest.count
                let expected = newest.filter { $0.fingerprint == Self.now && $0.file == Lines.frameFile(index) }
                let candidates = recorded.candidates(index, fingerprint: Self.now, file: Lines.frameFile(index))
                #expect(candidates == expected, "seed \(seed), frame \(index)")
                let checksum = disk[index].map(Lines.hex)
                let expectedDone = expected.last { $0.status == .ok && $0.sha256 == checksum }
                #expect(recorded.verified(among: candidates) == expectedDone, "seed \(seed), frame \(index)")
                if expectedDone == nil { notDone += 1 } else { done += 1 }
                if expectedDone != nil && expectedDone != expected.last { doneByAnEarlierCandidate += 1 }
            }
            #expect(recorded.allEntries.count == newestCount, "seed \(seed)")
        }
        let reached = "\(done) done (\(doneByAnEarlierCandidate) not by the newest line), \(notDone) not"
        #expect(
            done > 120 && notDone > 800 && doneByAnEarlierCandidate > 10,
            "the generator reaches every outcome: \(reached)")
    }
}
