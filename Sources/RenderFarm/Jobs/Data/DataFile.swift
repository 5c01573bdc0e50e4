import Foundation

/// Reads a data file a job names (variant rows, event logs) the way every input file should be
/// read: inside the job's folder (symbolic links resolved), opened without blocking, checked on
/// the open descriptor to be a regular file, and no larger than a limit.
enum DataFile {
    /// The largest data file read.
    static let maxBytes = 32 << 20

    /// The bytes of `path` (relative to `jobDirectory`, or absolute inside it), or why not.
    static func read(_ path: String, jobDirectory: String) -> Result<[UInt8], DataProblem> {
        guard !path.isEmpty, !path.utf8.contains(0) else {
            return .failure(DataProblem("\"\(path)\" is not a file name"))
        }
        guard let folder = realPath(jobDirectory) else {
            return .failure(DataProblem("the job's folder cannot be resolved"))
        }
        let joined = path.hasPrefix("/") ? path : (folder as NSString).appendingPathComponent(path)
        let lexical = (joined as NSString).standardizingPath
        guard lexical.hasPrefix(folder + "/") else {
            return .failure(DataProblem("\(path) is outside the job's folder"))
        }
        guard let resolved = realPath(joined) else {
            return .failure(DataProblem("\(path) not found in the job's folder"))
        }
        guard resolved.hasPrefix(folder + "/") else {
            return .failure(DataProblem("\(path) resolves outside the job's folder"))
        }
        let descriptor = open(resolved, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        guard descriptor >= 0 else {
            return .failure(DataProblem("\(path) cannot be opened: \(String(cString: strerror(errno)))"))
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return .failure(DataProblem("\(path) cannot be read")) }
        guard status.st_mode & S_IFMT == S_IFREG else { return .failure(DataProblem("\(path) is not a regular file")) }
        guard status.st_size <= maxBytes else {
            return .failure(DataProblem("\(path) is \(status.st_size) bytes; at most \(maxBytes)"))
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while bytes.count <= maxBytes {
            let count = chunk.withUnsafeMutableBytes { Foundation.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        guard bytes.count <= maxBytes else { return .failure(DataProblem("\(path) is larger than \(maxBytes) bytes")) }
        return .success(bytes)
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}

/// Why a data file or its rows cannot be used, in one line naming the file.
struct DataProblem: Error, Equatable {
    var message: String
    init(_ message: String) { self.message = message }
}
