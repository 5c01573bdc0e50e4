import FileInput
import FileOutput
import Foundation
import StrictJSON

/// The page's undo history of one job file, kept by the studio so that it survives a reload, another
/// port and a restart: `<folder>/<SHA-256 of the job file's path>.json`, written whole (staged and
/// renamed), readable by its owner only. The page sends it after each step; the studio checks its
/// shape and size, never its texts.
package struct StudioHistory: Sendable {
    /// `$XDG_STATE_HOME/renderfarm/studio-history`, or `~/.local/state/renderfarm/studio-history` when
    /// XDG_STATE_HOME is unset or not absolute (the XDG Base Directory rule); nil without a home folder.
    package static func defaultFolder(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            return URL(fileURLWithPath: state).appendingPathComponent("renderfarm/studio-history").path
        }
        guard let home = environment["HOME"], home.hasPrefix("/") else { return nil }
        return URL(fileURLWithPath: home).appendingPathComponent(".local/state/renderfarm/studio-history").path
    }

    /// The largest history kept: the page drops its oldest steps to stay under it.
    static let maxBytes = 8 << 20
    static let empty = #"{"undo":[],"redo":[]}"#

    let folder: String?
    let name: String

    init(folder: String?, jobFile: String) {
        self.folder = folder
        name = SHA256.hex(jobFile) + ".json"
    }

    /// The kept history, or an empty one (none kept yet, or no folder).
    func read() -> [UInt8] {
        guard let folder, let bytes = try? InputFile.read(folder + "/" + name, limit: Self.maxBytes),
            Self.isHistory(bytes)
        else { return Array(Self.empty.utf8) }
        return bytes
    }

    func write(_ bytes: [UInt8]) throws(StudioFailure) {
        guard let folder else { throw StudioFailure(status: 501, "this studio keeps no history (no home folder)") }
        guard bytes.count <= Self.maxBytes else {
            throw StudioFailure(status: 413, "a history is at most \(Self.maxBytes) bytes; drop its oldest steps")
        }
        guard Self.isHistory(bytes) else {
            throw StudioFailure(status: 400, #"a history is {"undo": [steps], "redo": [steps]}"#)
        }
        do {
            try FileManager.default.createDirectory(
                atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            // Owner-only from its first byte, even in a folder another program made readable.
            try FolderDescriptor(opening: folder).write(bytes, to: name, mode: 0o600)
        } catch {
            throw StudioFailure(status: 500, "cannot keep the history in \(folder): \(error)")
        }
    }

    /// Whether `bytes` is a JSON object with `undo` and `redo` lists of steps: objects with the texts
    /// `from` and `to`.
    private static func isHistory(_ bytes: [UInt8]) -> Bool {
        guard let value = try? JSONParser.parse(bytes), let object = value.objectValue else { return false }
        return ["undo", "redo"].allSatisfy { key in
            guard let steps = object[key]?.arrayValue else { return false }
            return steps.allSatisfy {
                $0.objectValue?["from"]?.stringValue != nil && $0.objectValue?["to"]?.stringValue != nil
            }
        }
    }
}
