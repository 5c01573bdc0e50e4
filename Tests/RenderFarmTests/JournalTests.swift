import EffectKit
import FileOutput
import Foundation
import RenderFarmOutput
import StrictJSON
import Testing

/// `Journal`, the resume record (the RenderFarm article OutputFolder): each finished frame is one line
/// appended to `renderfarm.journal.jsonl` (one journal per shard); reading gives the newest complete line
/// of each frame and skips lines that are no complete entry, such as the torn last line of a killed run.
/// A journal is opened and read as a file of its folder only: never through a link.
@Suite("Journal: one line per finished frame, the newest line of a frame wins, torn lines skipped")
struct JournalTests {
    static let name = FolderLayout.journal(of: .whole)

    /// Three lines that between them set every field of an entry, optional ones included.
    static func sample() -> [JournalEntry] {
        var drawn = Lines.entry(0, fingerprint: "fp-0", holding: Array("frame zero".utf8))
        drawn.time = 1.0 / 30
        drawn.renderMilliseconds = 12.125
        drawn.opaque = true
        drawn.finishedAt = 1_900_000_000.25
        var failed = Lines.entry(1, fingerprint: "fp-1", status: .failed, error: "layer 0 (x): \"boom\"\nsecond line")
        failed.attempts = 2
        var reused = Lines.entry(2, fingerprint: "fp-0", holding: Array("frame zero".utf8), file: "frame_é 2.png")
        reused.attempts = 0
        reused.reusedFrom = 0
        return [drawn, failed, reused]
    }

    @Test("entries appended through a session are one JSON line each on disk and read back equal, by frame")
    func appendedLinesReadBack() throws {
        let folder = try TemporaryFolder("journal")
        let entries = Self.sample()
        try Lines.journal(entries, in: folder)
        #expect(Journal.read(path: folder.file(Self.name)) == [0: entries[0], 1: entries[1], 2: entries[2]])

        let bytes = try #require(folder.bytes(Self.name))
        #expect(bytes.last == UInt8(ascii: "\n"))
        let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        #expect(lines.count == entries.count + 1 && lines.last?.isEmpty == true, "one line per entry, each ended")
        for (line, entry) in zip(lines, entries) {
            #expect(try JSONParser.parse(line) == entry.json)
        }
        // The names the format gives the optional fields, and none for fields left unset.
        let first = try #require(try JSONParser.parse(lines[0]).objectValue)
        #expect(first["at"] == .number(1_900_000_000.25) && first["renderMs"] == .number(12.125))
        #expect(first["error"] == nil && first["reusedFrom"] == nil)
        let third = try #require(try JSONParser.parse(lines[2]).objectValue)
        #expect(third["reusedFrom"] == .number(0) && third["attempts"] == .number(0) && third["at"] == nil)
        #expect(
            Set(third.keys) == [
                "index", "time", "file", "sha256", "bytes", "fingerprint", "attempts", "renderMs", "status", "opaque",
                "reusedFrom",
            ])
    }

    @Test("the newest line of a frame wins, whatever its status")
    func newestLineWins() throws {
        let folder = try TemporaryFolder("journal")
        let first = Lines.entry(3, fingerprint: "old", holding: [1, 2, 3])
        let failed = Lines.entry(3, fingerprint: "new", status: .failed, error: "boom")
        let redrawn = Lines.entry(3, fingerprint: "new", holding: [4, 5])
        let other = Lines.entry(4, fingerprint: "new", holding: [6])
        let refailed = Lines.entry(4, fingerprint: "new", status: .failed, error: "again")
        try Lines.journal([first, other, failed, redrawn, refailed], in: folder)
        #expect(Journal.read(path: folder.file(Self.name)) == [3: redrawn, 4: refailed])
    }

    @Test("a torn last line, cut at any byte, is skipped and every line before it kept")
    func tornLastLine() throws {
        let folder = try TemporaryFolder("journal")
        let entries = Self.sample()
        try Lines.journal(Array(entries.prefix(2)), in: folder)
        let whole = try #require(folder.bytes(Self.name))
        let line = Array(entries[2].json.serialized().utf8)
        for cut in 1..<line.count {
            try folder.write(whole + line.prefix(cut), to: Self.name)
            #expect(Journal.read(path: folder.file(Self.name)) == [0: entries[0], 1: entries[1]], "cut at \(cut)")
        }
        // A line written whole but for its newline is complete.
        try folder.write(whole + line, to: Self.name)
        #expect(Journal.read(path: folder.file(Self.name)).count == 3)
    }

    /// The fields of a complete entry of frame 0, as a line writes them.
    static let fields: KeyValuePairs<String, String> = [
        "index": "0", "time": "0", "file": #""f""#, "sha256": #""s""#, "bytes": "1", "fingerprint": #""f""#,
        "attempts": "1", "renderMs": "1", "status": #""ok""#,
    ]

    /// The line of `fields` with `changes` made: a field given a value is written with it, one given nil left out.
    static func line(_ changes: [String: String?] = [:]) -> String {
        let members = fields.compactMap { name, value -> String? in
            guard let changed = changes[name] else { return "\"\(name)\": \(value)" }
            return changed.map { "\"\(name)\": \($0)" }
        }
        return "{" + members.joined(separator: ", ") + "}"
    }

    /// Lines that are no complete entry: no JSON, other JSON, a field missing, of another type or out of range,
    /// something after the entry.
    static let garbled: [String] = [
        "", "not json", "[]", "{}", "null", #"{"index": 3}"#, line(["index": "-1"]), line(["index": "1e9"]),
        line(["index": #""0""#]), line(["bytes": "-1"]), line(["attempts": "1e6"]), line(["status": #""done""#]),
        line(["sha256": "5"]), line(["renderMs": nil]), line(["file": nil]), line() + " x", line() + "{}",
    ]

    @Test("a garbled line anywhere is skipped: it neither records a frame nor hides an earlier line of one")
    func garbledLines() throws {
        let folder = try TemporaryFolder("journal")
        let entries = Self.sample()
        try Lines.journal(entries, in: folder)
        // Each garbled line is a change away from a line that reads.
        #expect(JournalEntry(json: try JSONParser.parse(Self.line())) != nil)
        for line in Self.garbled { try folder.append(line + "\n", to: Self.name) }
        // A byte that is no UTF-8 (0xFF) in the file name of a line that is otherwise an entry of frame 0.
        var invalid = Array(Self.line(["file": #""f#""#]).utf8)
        invalid[try #require(invalid.firstIndex(of: UInt8(ascii: "#")))] = 0xFF
        let bytes = try #require(folder.bytes(Self.name)) + invalid + [UInt8(ascii: "\n")]
        try folder.write(bytes, to: Self.name)
        let after = Lines.entry(5, fingerprint: "fp-5", holding: [5])
        try Lines.journal([after], in: folder)
        #expect(Journal.read(path: folder.file(Self.name)) == [0: entries[0], 1: entries[1], 2: entries[2], 5: after])
    }

    /// A run killed in the middle of a `write(2)` leaves a torn last line; the next run of the folder
    /// appends to the same file. Were its first line glued to the torn one it would be lost with it (that
    /// frame, drawn and recorded, would read as never recorded, and `status` and `merge` count it missing).
    @Test("a line appended after a torn last line is read: the torn line is ended first")
    func appendAfterTornLine() throws {
        let folder = try TemporaryFolder("journal")
        let entries = Self.sample()
        try Lines.journal([entries[0]], in: folder)
        try folder.append(String(entries[1].json.serialized().prefix(40)), to: Self.name)
        try Lines.journal([entries[2]], in: folder)
        #expect(Journal.read(path: folder.file(Self.name)) == [0: entries[0], 2: entries[2]])
    }

    @Test("a journal that is a symbolic link or a named pipe is not read, nor appended to, nor emptied")
    func linkedJournalRefused() throws {
        let folder = try TemporaryFolder("journal")
        let elsewhere = try TemporaryFolder("journal-target")
        try Lines.journal(Self.sample(), in: elsewhere)
        let target = elsewhere.file(Self.name)
        let before = try #require(elsewhere.bytes(Self.name))
        #expect(Journal.read(path: target).count == 3, "the file itself reads")
        try FileManager.default.createSymbolicLink(atPath: folder.file(Self.name), withDestinationPath: target)

        #expect(Journal.read(path: folder.file(Self.name)).isEmpty)
        let session = try OutputFolder(folder.path).open(task: "test")
        for truncate in [false, true] {
            do {
                _ = try session.journal(of: .whole, truncate: truncate)
                Issue.record("a journal linked elsewhere was opened (truncate: \(truncate))")
            } catch {
                #expect(error.description.contains("is a symbolic link"), "\(error)")
            }
        }
        #expect(elsewhere.bytes(Self.name) == before, "the file the link leads to is untouched")

        folder.remove(Self.name)
        #expect(mkfifo(folder.file(Self.name), 0o644) == 0)
        #expect(Journal.read(path: folder.file(Self.name)).isEmpty)
        #expect(throws: OutputError.self) { _ = try session.journal(of: .whole, truncate: false) }
    }

    @Test("truncate empties the journal before the run's first line; without it every line is kept")
    func truncateStartsAfresh() throws {
        let folder = try TemporaryFolder("journal")
        let entries = Self.sample()
        try Lines.journal(entries, in: folder)
        let session = try OutputFolder(folder.path).open(task: "test")
        _ = try session.journal(of: .whole, truncate: false)
        #expect(Journal.read(path: folder.file(Self.name)).count == 3)
        let forced = try session.journal(of: .whole, truncate: true)
        #expect(folder.bytes(Self.name) == [])
        try forced.append(entries[1])
        #expect(Journal.read(path: folder.file(Self.name)) == [1: entries[1]])
    }

    @Test("files(in:) lists the journals of the whole run and of every shard, sorted, and no other file")
    func journalFiles() throws {
        let folder = try TemporaryFolder("journal")
        let journals = [
            FolderLayout.journal(of: .whole), FolderLayout.journal(of: .part(index: 0, count: 2, interleaved: false)),
            FolderLayout.journal(of: .part(index: 1, count: 2, interleaved: true)),
        ]
        let others = [
            FolderLayout.jobRecord, FolderLayout.fingerprints(of: .whole), FolderLayout.manifest, "frame_00000.png",
            "journal.jsonl", "renderfarm.journal.jsonl.bak", "renderfarm.journal.txt", ".rf-tmp-renderfarm.journal",
        ]
        for name in journals + others { try folder.write([], to: name) }
        #expect(Journal.files(in: folder.path) == journals.sorted().map(folder.file))
        #expect(journals.sorted() == journals, "the whole run's journal comes first")
        #expect(Journal.files(in: folder.file("no-such-folder")).isEmpty)
    }

    @Test("600 generated journals read back as a model says: the newest complete line per frame")
    func generatedJournals() throws {
        var lines = 0
        let folder = try TemporaryFolder("journal-gen")
        let session = try OutputFolder(folder.path).open(task: "test")
        for round in 0..<600 {
            // Each round from a seed of its own, which a failure names: one round replays alone.
            let seed = 0x4A6F_7572_6E61_6C00 + UInt64(round)
            var random = SeededRandom(seed: seed)
            // Each round starts from an empty journal (as `--force` does).
            let journal = try session.journal(of: .whole, truncate: true)
            var model: [Int: JournalEntry] = [:]
            for _ in 0..<random.below(12) {
                let entry = random.journalEntry()
                switch random.below(10) {
                case 0..<6:
                    try journal.append(entry)
                    model[entry.index] = entry
                case 6:
                    // Another writer's whole line (a shard of an older renderfarm, a copy).
                    try folder.append(entry.json.serialized() + "\n", to: Self.name)
                    model[entry.index] = entry
                case 7:
                    try folder.append(random.pick(Self.garbled) + "\n", to: Self.name)
                case 8:
                    // A line cut short, then ended: no entry either.
                    let text = entry.json.serialized()
                    try folder.append(String(text.prefix(random.below(text.count))) + "\n", to: Self.name)
                default:
                    try folder.append(random.noise() + "\n", to: Self.name)
                }
                lines += 1
            }
            if random.chance(0.5) {
                let text = random.journalEntry().json.serialized()
                try folder.append(String(text.prefix(random.below(text.count))), to: Self.name)
            }
            let read = Journal.read(path: folder.file(Self.name))
            #expect(read == model, "seed \(seed)")
            if read != model { break }
        }
        #expect(lines > 2_500)
    }
}

extension SeededRandom {
    /// An integer in `0..<count` (0 when `count` < 2).
    mutating func below(_ count: Int) -> Int { Int(uniform(UInt32(max(0, count)))) }

    /// True with probability `probability`.
    mutating func chance(_ probability: Double) -> Bool { unit() < probability }

    /// One of `items`, which must not be empty.
    mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }

    /// A journal entry of one of 12 frames with every field drawn, values a line holds exactly.
    mutating func journalEntry() -> JournalEntry {
        let hex = (0..<4).map { _ in String(next(), radix: 16) }.joined()
        var entry = JournalEntry(
            index: below(12), time: Double(below(10_000)) / 30, file: pick(["frame_00001.png", "f é\"\\.png", "a/b"]),
            sha256: hex, bytes: below(1_000_000), fingerprint: pick(["fp-a", "fp-b", "fp-c"]), attempts: below(4),
            renderMilliseconds: Double(below(100_000)) / 1000, status: chance(0.7) ? .ok : .failed,
            opaque: chance(0.5), error: chance(0.3) ? pick(["boom", "two\nlines", "quote \" and \\ and \u{1}"]) : nil,
            finishedAt: chance(0.5) ? Double(1_900_000_000_000 + below(1_000_000)) / 1000 : nil)
        if chance(0.3) { entry.reusedFrom = below(12) }
        return entry
    }

    /// A line of printable noise, no newline in it.
    mutating func noise() -> String {
        String((0..<below(60)).map { _ in Character(Unicode.Scalar(UInt8(32 + below(95)))) })
    }
}
