import Foundation

/// A private copy of the built `renderfarm` and its plugin libraries in a folder of its own (plugins
/// are found in the executable's folder), so a harness can rebuild a plugin, as a user who runs
/// `swift build` after an edit does, without touching the build.
struct HarnessBinary: Sendable {
    let folder: URL
    var executable: String { folder.appendingPathComponent("renderfarm").path }

    /// Links (or copies) the executable and every `librenderfarm-*.so` of the build into `folder`.
    static func copy(into folder: URL) throws -> HarnessBinary {
        let fileManager = FileManager.default
        try fileManager.createDirectory(at: folder, withIntermediateDirectories: true)
        let build = Binary.buildDirectory
        let names =
            try fileManager.contentsOfDirectory(atPath: build.path)
            .filter { $0.hasPrefix("librenderfarm-") && $0.hasSuffix(".so") }.sorted() + ["renderfarm"]
        for name in names {
            let source = build.appendingPathComponent(name)
            let target = folder.appendingPathComponent(name)
            if (try? fileManager.linkItem(at: source, to: target)) == nil {
                try fileManager.copyItem(at: source, to: target)
            }
        }
        return HarnessBinary(folder: folder)
    }

    func library(of plugin: String) -> URL { folder.appendingPathComponent("librenderfarm-\(plugin).so") }

    /// Rebuilds `plugin` with the same version and other bytes: its library gets `bytes` appended
    /// (after its link to the build is replaced by a copy). Throws when it no longer loads.
    func rebuild(_ plugin: String, appending bytes: [UInt8]) throws {
        let library = library(of: plugin)
        let data = try Data(contentsOf: library)
        try FileManager.default.removeItem(at: library)
        try (data + Data(bytes)).write(to: library)
        let listed = try run(["plugins", plugin], in: folder)
        guard listed.status == 0, listed.stdout.hasPrefix(plugin + " ") else {
            throw ToolError(message: "rebuilt \(plugin) does not load: \(listed.stderr)")
        }
    }

    /// Runs the copy with `arguments` in `directory` and waits (a run past `timeout` s is killed).
    func run(_ arguments: [String], in directory: URL, timeout: Double = 120) throws -> Binary.Result {
        let process = try start(arguments, in: directory)
        return process.wait(timeout: timeout)
    }

    /// Starts the copy in the background.
    func start(_ arguments: [String], in directory: URL) throws -> HarnessProcess {
        try HarnessProcess(executable: executable, arguments: arguments, in: directory)
    }
}

/// A process of the harness's private binary, its output going to files.
final class HarnessProcess {
    let process = Process()
    private let scratch: URL

    init(executable: String, arguments: [String], in directory: URL) throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("rf-harness-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let out = scratch.appendingPathComponent("stdout")
        let err = scratch.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        var environment = ProcessInfo.processInfo.environment
        environment["RENDERFARM_PLUGIN_PATH"] = nil
        process.environment = environment
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    deinit { try? FileManager.default.removeItem(at: scratch) }

    func kill() { Foundation.kill(process.processIdentifier, SIGKILL) }

    /// What the process has written to its standard output so far.
    var output: String { (try? String(contentsOf: scratch.appendingPathComponent("stdout"), encoding: .utf8)) ?? "" }

    func wait(timeout: Double = 120) -> Binary.Result {
        let ended = process.waitOrKill(timeout: timeout)
        let signaled = process.terminationReason == .uncaughtSignal
        var stderr = (try? String(contentsOf: scratch.appendingPathComponent("stderr"), encoding: .utf8)) ?? ""
        if !ended { stderr += "\n(harness: still running after \(timeout) s, killed)" }
        return Binary.Result(
            status: process.terminationStatus, signal: signaled ? process.terminationStatus : nil,
            stdout: (try? String(contentsOf: scratch.appendingPathComponent("stdout"), encoding: .utf8)) ?? "",
            stderr: stderr)
    }
}
