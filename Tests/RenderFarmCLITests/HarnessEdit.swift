import Foundation

/// The kinds of edit the incremental harness makes, one after another, to the same job.
enum HarnessEditKind: String, CaseIterable, Sendable, Comparable {
    case parameter
    case hostField = "host field"
    case structure = "layers added, removed or moved"
    case variantsCell = "variants CSV"
    case eventLine = "event-log line"
    case assetBytes = "asset bytes"
    case assetSameSizeAndTime = "asset rewritten, same size and mtime"
    case noOp = "no-op"
    case sound
    case pluginRebuilt = "plugin rebuilt"

    /// How often each kind is drawn (kinds that do not apply to a job are drawn again).
    var weight: Int {
        switch self {
        case .parameter: 30
        case .hostField: 30
        case .structure: 5
        case .variantsCell: 10
        case .eventLine: 7
        case .assetBytes: 7
        case .assetSameSizeAndTime: 5
        case .noOp: 6
        case .sound: 4
        case .pluginRebuilt: 4
        }
    }

    static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs) ?? 0 < allCases.firstIndex(of: rhs) ?? 0
    }
}

/// A file change an edit makes besides writing the job and the assets whose content it changed.
enum HarnessFileOperation: Sendable, Equatable {
    /// Rewrites the job file with one member per line (the same job).
    case reformatJob
    /// Rewrites an asset in place and gives it back its modification time.
    case rewriteKeepingTime(String)
    /// Sets a file's modification time to now without changing its bytes.
    case touch(String)
    /// Appends bytes to a plugin library of the private binary.
    case rebuildPlugin(String, [UInt8])
}

/// One edit: the job folder after it, what it changed, and the reason a re-render should give.
struct HarnessEdit: Sendable {
    var kind: HarnessEditKind
    /// What was edited, for the summary: `shape.fill`, `group.transform.anchor`, `touch job file`.
    var label: String
    /// One line: `layers[1].params.fill: "#FF0000" → "#00FF00"`.
    var description: String
    var expected: HarnessExpectedReason
    var folder: HarnessJobFolder
    var operations: [HarnessFileOperation] = []

    /// A value shortened for a one-line description.
    static func show(_ value: HarnessJSON?) -> String {
        guard let value else { return "(none)" }
        let text = value.text
        return text.count > 60 ? String(text.prefix(57)) + "…" : text
    }
}

/// Writes edits into a job's folder, and takes them back when `validate` refuses them.
struct HarnessEditWriter {
    let directory: URL
    let binary: HarnessBinary

    /// What a file was before an edit: its bytes (nil when it did not exist) and times.
    struct Saved {
        var path: String
        var data: Data?
        var times: [timespec]
    }

    /// Writes `edit` (the job when it changed, assets whose bytes changed, then its operations) and
    /// returns what it overwrote.
    func apply(_ edit: HarnessEdit, over before: HarnessJobFolder) throws -> [Saved] {
        var saved: [Saved] = []
        if edit.folder.job != before.job || edit.operations.contains(.reformatJob) {
            saved.append(save(HarnessJobFolder.jobFile))
            try edit.folder.writeJob(into: directory, pretty: edit.operations.contains(.reformatJob))
        }
        for path in edit.folder.assets.keys.sorted() where edit.folder.assets[path]?.data != before.assets[path]?.data {
            saved.append(save(path))
            if !edit.operations.contains(.rewriteKeepingTime(path)) {
                try edit.folder.writeAsset(path, into: directory)
            }
        }
        for operation in edit.operations {
            switch operation {
            case .reformatJob: break
            case .rewriteKeepingTime(let path):
                let times = Self.times(of: directory.appendingPathComponent(path).path)
                try edit.folder.writeAsset(path, into: directory)
                Self.setTimes(times, of: directory.appendingPathComponent(path).path)
            case .touch(let path):
                saved.append(save(path))
                var now = timespec()
                clock_gettime(CLOCK_REALTIME, &now)
                now.tv_sec += 2
                Self.setTimes([now, now], of: directory.appendingPathComponent(path).path)
            case .rebuildPlugin(let plugin, let bytes):
                try binary.rebuild(plugin, appending: bytes)
            }
        }
        return saved
    }

    /// Puts back what `apply` overwrote, times included.
    func revert(_ saved: [Saved]) throws {
        for file in saved.reversed() {
            let url = directory.appendingPathComponent(file.path)
            guard let data = file.data else {
                try? FileManager.default.removeItem(at: url)
                continue
            }
            try data.write(to: url)
            Self.setTimes(file.times, of: url.path)
        }
    }

    private func save(_ path: String) -> Saved {
        let url = directory.appendingPathComponent(path)
        return Saved(path: path, data: try? Data(contentsOf: url), times: Self.times(of: url.path))
    }

    /// The access and modification times of `path`.
    static func times(of path: String) -> [timespec] {
        var status = stat()
        guard stat(path, &status) == 0 else { return [] }
        return [status.st_atim, status.st_mtim]
    }

    static func setTimes(_ times: [timespec], of path: String) {
        guard times.count == 2 else { return }
        _ = utimensat(AT_FDCWD, path, times, 0)
    }
}
