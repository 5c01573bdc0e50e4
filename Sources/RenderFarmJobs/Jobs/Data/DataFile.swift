import FileInput

/// Reads a data file a job names (variant rows, event logs) the way every input file is read: confined
/// to the job's folder (`ConfinedPath`, symbolic links resolved) and opened through `InputFile` (without
/// blocking, checked on the open descriptor to be a regular file, no larger than a limit).
package enum DataFile {
    /// The largest data file read.
    package static let maxBytes = 32 << 20

    /// The bytes of `path` (relative to `jobDirectory`, or absolute inside it), or why not.
    package static func read(_ path: String, jobDirectory: String) -> Result<[UInt8], DataProblem> {
        let resolved: String
        do {
            resolved = try ConfinedPath.resolve(path, in: jobDirectory)
        } catch {
            return .failure(DataProblem(error.description))
        }
        do {
            return .success(try InputFile.read(resolved, limit: maxBytes, followLastLink: false))
        } catch {
            return .failure(DataProblem(error.message(naming: path)))
        }
    }
}

/// Why a data file or its rows cannot be used, in one line naming the file.
package struct DataProblem: Error, Equatable {
    package var message: String
    package init(_ message: String) { self.message = message }
}
