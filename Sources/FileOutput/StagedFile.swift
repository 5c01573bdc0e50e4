import FileInput
import Foundation

/// A file written under a temporary name in the folder of its final name, then renamed into place, for
/// writers that need a path of their own rather than bytes (`StagedWrite` writes bytes the same way).
///
/// Writers (cairo, ffmpeg) write to `temporaryPath`; `commit()` renames it over `path`. A staged file that
/// is never committed — the writer failed, or it was scratch such as a palette — is removed when the value
/// goes away. A killed process leaves at most a temporary file named `.rf-tmp-<pid>-…`, which
/// `FolderDescriptor.removeStale` clears later.
package final class StagedFile {
    /// The final name.
    package let path: String
    /// Where the content is written until `commit()`.
    package let temporaryPath: String
    private var isOpen = true

    package init(_ path: String) {
        self.path = path
        temporaryPath = StagedWrite.temporaryPath(for: path)
    }

    deinit { discard() }

    /// Renames the temporary file over the final name.
    package func commit() throws(OutputError) {
        guard isOpen else { return }
        isOpen = false
        if let failure = StagedWrite.commit(temporaryPath, as: path) { throw AtomicFile.error(failure.code, path) }
    }

    /// Removes the temporary file (nothing happens to the final name).
    package func discard() {
        guard isOpen else { return }
        isOpen = false
        unlink(temporaryPath)
    }

    /// Removes the temporary files that process `pid` (a worker that was killed) left behind.
    package static func removeLeftovers(of pid: pid_t, in directory: String) {
        let prefix = "\(StagedWrite.temporaryMarker)\(pid)-"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for name in names where name.hasPrefix(prefix) {
            unlink((directory as NSString).appendingPathComponent(name))
        }
    }
}
