import Foundation

/// Runs Slurm's client commands (`sbatch`, `squeue`) found on PATH.
struct SlurmClient {
    /// A Slurm command failed; the message says which and why.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let sbatch: String
    let squeue: String?

    /// Finds the client commands on `PATH`; nil when `sbatch` is not installed.
    init?(environment: [String: String] = ProcessInfo.processInfo.environment) {
        guard let sbatch = Self.find("sbatch", environment: environment) else { return nil }
        self.sbatch = sbatch
        squeue = Self.find("squeue", environment: environment)
    }

    static let missingMessage = "sbatch not found: install Slurm (Debian: slurm-client) or run on a cluster login node"

    /// The absolute path of executable `name` in `PATH`.
    static func find(_ name: String, environment: [String: String]) -> String? {
        let path = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for folder in path.split(separator: ":") where !folder.isEmpty {
            let candidate = (String(folder) as NSString).appendingPathComponent(name)
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    /// Submits `script` with `sbatch --parsable` (plus `extra` options) and returns the job id.
    func submit(_ script: String, extra: [String] = [], in folder: String) throws(Failure) -> String {
        let result = try Self.run(sbatch, ["--parsable"] + extra + [script], in: folder)
        // --parsable prints "jobid" or "jobid;cluster".
        let id = result.out.split(separator: "\n").last.map { String($0.split(separator: ";").first ?? "") } ?? ""
        guard result.status == 0, !id.isEmpty, id.allSatisfy(\.isNumber) else {
            let reason = result.err.trimmingCharacters(in: .whitespacesAndNewlines)
            throw Failure(
                description: "sbatch \(script) failed (exit \(result.status))"
                    + (reason.isEmpty ? "" : ": \(reason)"))
        }
        return id
    }

    /// The state and reason of job `id` (`COMPLETED None`, `PENDING Dependency`, ...), one line per
    /// array task; empty once Slurm has forgotten the job.
    func states(of id: String) throws(Failure) -> [(job: String, state: SlurmJobState, reason: String)] {
        guard let squeue else { throw Failure(description: "squeue not found next to sbatch; cannot wait") }
        let result = try Self.run(squeue, ["-h", "-j", id, "--states=all", "-o", "%i %T %r"], in: nil)
        if result.status != 0 {
            // Slurm forgets finished jobs after MinJobAge; squeue then calls the id invalid.
            if result.err.contains("Invalid job id") { return [] }
            throw Failure(
                description: "squeue -j \(id) failed (exit \(result.status)): "
                    + result.err.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return result.out.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", maxSplits: 2).map(String.init)
            guard fields.count >= 2 else { return nil }
            return (fields[0], SlurmJobState(fields[1]), fields.count > 2 ? fields[2] : "")
        }
    }

    /// Runs `executable` and captures its output (small: ids and state lines). Standard error goes
    /// to a temporary file, so neither stream can fill a pipe and block the command.
    private static func run(_ executable: String, _ arguments: [String], in folder: String?)
        throws(Failure) -> (status: Int32, out: String, err: String)
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let folder { process.currentDirectoryURL = URL(fileURLWithPath: folder) }
        let errPath = (NSTemporaryDirectory() as NSString).appendingPathComponent("renderfarm-\(UUID().uuidString).err")
        defer { unlink(errPath) }
        let out = Pipe()
        do {
            _ = FileManager.default.createFile(atPath: errPath, contents: nil)
            process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
            process.standardOutput = out
            process.standardInput = FileHandle.nullDevice
            try process.run()
        } catch {
            throw Failure(description: "cannot run \(executable): \(error.localizedDescription)")
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let errData = FileManager.default.contents(atPath: errPath) ?? Data()
        return (
            process.terminationStatus, String(decoding: outData, as: UTF8.self),
            String(decoding: errData, as: UTF8.self)
        )
    }
}
