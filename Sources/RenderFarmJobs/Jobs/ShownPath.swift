import FileInput
import Foundation

/// How every message names a file: relative to the current folder when the file is inside it
/// (`jobs/bad.json`), else absolute (`/srv/jobs/bad.json`), whichever way it was given; a line break or
/// other control character in it written as an escape (`EscapedPath`), so it stays on its line.
package enum ShownPath {
    package static func of(_ path: String) -> String {
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        let current = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).standardizedFileURL.path
        let prefix = current.hasSuffix("/") ? current : current + "/"
        return EscapedPath.of(absolute.hasPrefix(prefix) ? String(absolute.dropFirst(prefix.count)) : absolute)
    }
}
