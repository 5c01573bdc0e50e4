import FileInput
import Foundation

/// Writes whole files through `StagedWrite`, so that nothing half-written ever has a final name,
/// and manages the folders they go in.
package enum AtomicFile {
    package static func write(_ bytes: UnsafeRawBufferPointer, to path: String) throws(OutputError) {
        // Messages name the file asked for: the temporary name is the writer's own business.
        if let failure = StagedWrite.write(bytes, to: path) { throw error(failure.code, path) }
    }

    package static func write(_ bytes: [UInt8], to path: String) throws(OutputError) {
        // The closure of withUnsafeBytes cannot throw a typed error: it is carried out in a Result.
        let result = bytes.withUnsafeBytes { buffer in Result { () throws(OutputError) in try write(buffer, to: path) }
        }
        try result.get()
    }

    package static func write(_ text: String, to path: String) throws(OutputError) {
        try write(Array(text.utf8) + [UInt8(ascii: "\n")], to: path)
    }

    /// Maps an errno to the error users see: missing or read-only folders are "cannot create"
    /// (exit 73), everything else, disk full included, an I/O error (exit 74).
    package static func error(_ code: Int32, _ path: String) -> OutputError {
        let reason = String(cString: strerror(code))
        switch code {
        case EACCES, EPERM, EROFS, ENOENT, ENOTDIR: return .cannotCreate(path: path, reason: reason)
        case ENOSPC, EDQUOT: return .io(path: path, reason: "\(reason) (the disk is full)")
        default: return .io(path: path, reason: reason)
        }
    }

    /// Creates `path` and its parents.
    package static func createDirectory(_ path: String) throws(OutputError) {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            let code = (error as NSError).userInfo[NSUnderlyingErrorKey].flatMap { ($0 as? NSError)?.code }
            throw .cannotCreate(
                path: path, reason: code.map { String(cString: strerror(Int32($0))) } ?? "\(error.localizedDescription)"
            )
        }
        guard access(path, W_OK) == 0 else { throw .cannotCreate(path: path, reason: "folder is not writable") }
    }
}
