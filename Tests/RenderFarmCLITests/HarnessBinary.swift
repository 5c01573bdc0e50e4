import Foundation

/// A private copy of the built `renderfarm` and its plugin libraries in a folder of its own (plugins
/// are found in the executable's folder), so a harness can rebuild a plugin, as a user who runs
/// `swift build` after an edit does, without touching the build.
///
/// Commands run in this process (`CLI.run`) with the copy's folder first on the plugin search path,
/// where the copy would find its plugins; only what needs a process of its own launches the copy: a
/// render killed part-way (`start`), `--isolate` (its workers are the binary) and the studio.
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
            guard (try? fileManager.linkItem(at: source, to: target)) == nil else { continue }
            if name == "renderfarm" {
                try Tools.copyExecutable(source.path, to: target.path)
            } else {
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

    /// Runs `arguments` as the copy would in `directory` and waits: in this process, the job file named by
    /// its path in `directory`; launched with `--isolate` (a run past `timeout` s is then killed).
    func run(_ arguments: [String], in directory: URL, timeout: Double = 120) throws -> Binary.Result {
        guard !arguments.contains("--isolate") else {
            return try start(arguments, in: directory).wait(timeout: timeout)
        }
        let words = arguments.map { $0 == HarnessJobFolder.jobFile ? directory.appendingPathComponent($0).path : $0 }
        return CLI.run(words + pluginPath(for: arguments))
    }

    /// Starts the copy in the background, with the plugin search path `run` gives.
    func start(_ arguments: [String], in directory: URL) throws -> HarnessProcess {
        try HarnessProcess(executable: executable, arguments: arguments + pluginPath(for: arguments), in: directory)
    }

    /// The copy's folder first on the plugin search path, for the commands that take one: in this process the
    /// build's folder is the executable's and comes after it, so both ways find the copy's (rebuilt) libraries.
    private func pluginPath(for arguments: [String]) -> [String] {
        CLI.pluginPath(folder.path, for: arguments.first ?? "")
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

    /// Waits until the process says on its standard error that it starts drawing (`--progress plain`'s
    /// "rendering N frames"), has ended, or 60 s passed.
    func waitUntilRendering() {
        let deadline = ContinuousClock.now + .seconds(60)
        let errors = scratch.appendingPathComponent("stderr")
        while process.isRunning, ContinuousClock.now < deadline,
            !((try? String(contentsOf: errors, encoding: .utf8)) ?? "").contains("rendering ")
        {
            usleep(2_000)
        }
    }

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
