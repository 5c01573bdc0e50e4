import FileInput
import FileOutput
import Foundation
import Locking
import StrictJSON

/// What happened to one frame.
package enum FrameStatus: String, Sendable {
    case ok, failed
}

/// One line of `renderfarm.journal.jsonl`: a finished (or finally failed) frame.
package struct JournalEntry: Sendable, Equatable {
    package var index: Int
    package var time: Double
    package var file: String
    package var sha256: String
    package var bytes: Int
    package var fingerprint: String
    package var attempts: Int
    package var renderMilliseconds: Double
    package var status: FrameStatus
    /// Whether every pixel was opaque (written as RGB).
    package var opaque: Bool
    package var error: String?
    /// When the frame was finished, in seconds since 1970 (nil in journals of older renderfarms):
    /// `renderfarm status` derives fps and ETA from it.
    package var finishedAt: Double?
    /// The frame whose file this one was written from because both draw the same (equal
    /// fingerprints): not drawn again. Nil for frames that were drawn.
    package var reusedFrom: Int?

    package var json: JSONValue {
        var object: JSONObject = [
            "index": .number(Double(index)), "time": .number(time), "file": .string(file),
            "sha256": .string(sha256), "bytes": .number(Double(bytes)), "fingerprint": .string(fingerprint),
            "attempts": .number(Double(attempts)), "renderMs": .number((renderMilliseconds * 1000).rounded() / 1000),
            "status": .string(status.rawValue), "opaque": .bool(opaque),
        ]
        if let error { object["error"] = .string(error) }
        if let finishedAt { object["at"] = .number((finishedAt * 1000).rounded() / 1000) }
        if let reusedFrom { object["reusedFrom"] = .number(Double(reusedFrom)) }
        return .object(object)
    }

    package init(
        index: Int, time: Double, file: String, sha256: String, bytes: Int, fingerprint: String, attempts: Int,
        renderMilliseconds: Double, status: FrameStatus, opaque: Bool, error: String? = nil, finishedAt: Double? = nil
    ) {
        self.finishedAt = finishedAt
        self.index = index
        self.time = time
        self.file = file
        self.sha256 = sha256
        self.bytes = bytes
        self.fingerprint = fingerprint
        self.attempts = attempts
        self.renderMilliseconds = renderMilliseconds
        self.status = status
        self.opaque = opaque
        self.error = error
    }

    package init?(json: JSONValue) {
        guard let object = json.objectValue,
            let index = object["index"]?.doubleValue, let time = object["time"]?.doubleValue,
            let file = object["file"]?.stringValue, let sha256 = object["sha256"]?.stringValue,
            let bytes = object["bytes"]?.doubleValue, let fingerprint = object["fingerprint"]?.stringValue,
            let attempts = object["attempts"]?.doubleValue, let milliseconds = object["renderMs"]?.doubleValue,
            let status = object["status"]?.stringValue.flatMap(FrameStatus.init(rawValue:)),
            index >= 0, index < 1e9, bytes >= 0, bytes < 1e15, attempts >= 0, attempts < 1e6
        else { return nil }
        self.init(
            index: Int(index), time: time, file: file, sha256: sha256, bytes: Int(bytes), fingerprint: fingerprint,
            attempts: Int(attempts), renderMilliseconds: milliseconds, status: status,
            opaque: object["opaque"]?.boolValue ?? false, error: object["error"]?.stringValue,
            finishedAt: object["at"]?.doubleValue)
        reusedFrom = object["reusedFrom"]?.doubleValue.flatMap { $0 >= 0 && $0 < 1e9 ? Int($0) : nil }
    }
}

/// The append-only record of finished frames: the resume record (<doc:OutputFolder>).
///
/// Each entry is one `write(2)` of one line to a file opened with O_APPEND, so a killed
/// process leaves at most a torn last line, which `read` skips.
package final class Journal: Sendable {
    package static let defaultName = FolderLayout.journal(of: .whole)
    /// The largest journal read (a line is about 300 bytes: millions of frames).
    package static let maxReadBytes = 1 << 30

    package let path: String
    private let descriptor: Locked<Int32>

    /// Opens (creating) the journal `name` of `folder`; `truncate` starts it afresh (`--force`). A link or
    /// anything else but a file in its place is refused, never followed or emptied.
    init(_ name: String, in folder: FolderDescriptor, truncate: Bool) throws(OutputError) {
        let fd = try folder.openForAppending(name, truncate: truncate)
        descriptor = Locked(fd)
        path = folder.file(name)
        // A run killed mid-line left a torn last line: end it, so this run's first entry starts a line of its own
        // (appended to the torn one, the whole line would be skipped when read).
        var status = stat()
        var last: UInt8 = 0
        if fstat(fd, &status) == 0, status.st_size > 0, pread(fd, &last, 1, status.st_size - 1) == 1,
            last != UInt8(ascii: "\n")
        {
            var newline = UInt8(ascii: "\n")
            guard write(fd, &newline, 1) == 1 else { throw AtomicFile.error(errno, path) }
        }
    }

    deinit { descriptor.withLock { _ = close($0) } }

    package func append(_ entry: JournalEntry) throws(OutputError) {
        var line = Array(entry.json.serialized().utf8)
        line.append(UInt8(ascii: "\n"))
        let result: Int = descriptor.withLock { fd in
            line.withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
        }
        guard result == line.count else { throw AtomicFile.error(result < 0 ? errno : ENOSPC, path) }
    }

    /// The entries of a journal file by frame index (the last line for a frame wins). Lines that
    /// are not complete entries, such as a torn last line, are skipped.
    package static func read(path: String) -> [Int: JournalEntry] {
        // No link followed: a journal replaced by a link to a file elsewhere is not read.
        guard let data = try? InputFile.read(path, limit: maxReadBytes, followLastLink: false) else { return [:] }
        var entries: [Int: JournalEntry] = [:]
        for line in data.split(separator: UInt8(ascii: "\n")) {
            guard let value = try? JSONParser.parse(line), let entry = JournalEntry(json: value) else { continue }
            entries[entry.index] = entry
        }
        return entries
    }

    /// Every journal in `directory` (one per shard, <doc:RunningOnACluster>).
    package static func files(in directory: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter(FolderLayout.isJournal).sorted()
            .map { (directory as NSString).appendingPathComponent($0) }
    }
}
