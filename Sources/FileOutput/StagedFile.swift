import Foundation

/// A file written under a temporary name in the folder of its final name, then renamed into place:
/// the one way RenderFarm writes output, so that nothing half-written ever has a final name.
///
/// Writers (cairo, ffmpeg, the PNG encoder) write to `temporaryPath`; `commit()` renames it over
/// `path`. A staged file that is never committed — the writer failed, or it was scratch such as a
/// palette — is removed when the value goes away. A killed process leaves at most a temporary
/// file named `.rf-tmp-<pid>-…`, which `FolderDescriptor.removeStale` clears later.
package final class StagedFile {
    /// The temporary names this process uses start with this, so stray ones are recognisable.
    package static let temporaryMarker = ".rf-tmp-"

    /// The final name.
    package let path: String
    /// Where the content is written until `commit()`.
    package let temporaryPath: String
    private var isOpen = true

    package init(_ path: String) {
        self.path = path
        let url = URL(fileURLWithPath: path)
        temporaryPath =
            url.deletingLastPathComponent().appendingPathComponent(
                Self.temporaryName(for: url.lastPathComponent)
            ).path
    }

    /// A temporary name for `name`, in the same folder: `.rf-tmp-<pid>-<random>-<name>`.
    package static func temporaryName(for name: String) -> String {
        "\(temporaryMarker)\(getpid())-\(UInt64.random(in: 0...UInt64.max))-\(name)"
    }

    deinit { discard() }

    /// Renames the temporary file over the final name.
    package func commit() throws(OutputError) {
        guard isOpen else { return }
        guard rename(temporaryPath, path) == 0 else {
            let code = errno
            discard()
            throw AtomicFile.error(code, path)
        }
        isOpen = false
    }

    /// Removes the temporary file (nothing happens to the final name).
    package func discard() {
        guard isOpen else { return }
        isOpen = false
        unlink(temporaryPath)
    }

    /// Removes the temporary files that process `pid` (a worker that was killed) left behind.
    package static func removeLeftovers(of pid: pid_t, in directory: String) {
        let prefix = "\(temporaryMarker)\(pid)-"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for name in names where name.hasPrefix(prefix) {
            unlink((directory as NSString).appendingPathComponent(name))
        }
    }
}
