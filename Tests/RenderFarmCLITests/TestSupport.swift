import Foundation
import Testing

/// Runs the built `renderfarm` binary, the way a user would, and captures what it prints.
enum Binary {
    /// The package's root folder.
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The build folder holding the test bundle, the `renderfarm` executable and the plugins.
    static let buildDirectory: URL = {
        let executable = URL(
            fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
                ?? CommandLine.arguments[0])
        var folder = executable.deletingLastPathComponent()
        while folder.path != "/"
            && !FileManager.default.fileExists(atPath: folder.appendingPathComponent("renderfarm").path)
        {
            folder = folder.deletingLastPathComponent()
        }
        return folder
    }()

    static var executable: String { buildDirectory.appendingPathComponent("renderfarm").path }

    /// The folder with the fault-injecting test plugin (`make test-plugin`).
    static var testPluginDirectory: String {
        ProcessInfo.processInfo.environment["RENDERFARM_TEST_PLUGIN_DIR"]
            ?? packageRoot.appendingPathComponent(".build/test-plugins").path
    }

    struct Result {
        var status: Int32
        /// Set when the process died of a signal instead of exiting.
        var signal: Int32?
        var stdout: String
        var stderr: String
    }

    /// Runs `renderfarm` with `arguments` in `directory` and waits for it; past `timeout` seconds it is
    /// killed and an issue is recorded (see `Running.wait`).
    @discardableResult
    static func run(
        _ arguments: [String], in directory: URL? = nil, environment: [String: String] = [:], timeout: Double = 300
    ) throws -> Result {
        try Running(arguments, in: directory, environment: environment).wait(timeout: timeout)
    }

    /// Returns once `condition` holds, checking it every 5 ms; records an issue and throws when
    /// `running` ends first or 60 s pass.
    static func waitUntil(_ what: String, running: Running, _ condition: () -> Bool) throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while !condition() {
            guard running.process.isRunning, ContinuousClock.now < deadline else {
                let result = running.wait()
                throw ToolError(message: "never happened: \(what) (\(result.status): \(result.stderr))")
            }
            usleep(5_000)
        }
    }

    /// A `renderfarm` process started in the background, for tests that signal or kill it.
    final class Running {
        let process: Process
        let stdoutURL: URL
        let stderrURL: URL
        private let scratch: URL

        init(_ arguments: [String], in directory: URL? = nil, environment: [String: String] = [:]) throws {
            scratch = FileManager.default.temporaryDirectory.appendingPathComponent("rf-run-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            stdoutURL = scratch.appendingPathComponent("stdout")
            stderrURL = scratch.appendingPathComponent("stderr")
            _ = FileManager.default.createFile(atPath: stdoutURL.path, contents: nil)
            _ = FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
            process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
            process.currentDirectoryURL = directory ?? packageRoot
            var env = ProcessInfo.processInfo.environment
            env.merge(environment) { _, new in new }
            process.environment = env
            // Output goes to files, not pipes: a chatty process can never block on a full pipe.
            process.standardOutput = try FileHandle(forWritingTo: stdoutURL)
            process.standardError = try FileHandle(forWritingTo: stderrURL)
            try process.run()
        }

        deinit { try? FileManager.default.removeItem(at: scratch) }

        func signal(_ number: Int32) { kill(process.processIdentifier, number) }

        /// Waits for the process and returns what it printed; a process still running after
        /// `timeout` seconds is killed, so a hung binary fails its test instead of stalling CI.
        func wait(timeout: Double = 300) -> Result {
            if !process.waitOrKill(timeout: timeout) {
                Issue.record("renderfarm \(process.arguments ?? []) still running after \(timeout) s: killed")
            }
            let signaled = process.terminationReason == .uncaughtSignal
            return Result(
                status: process.terminationStatus, signal: signaled ? process.terminationStatus : nil,
                stdout: (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? "",
                stderr: (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? "")
        }
    }
}

/// The `--progress json` events named `kind` ("start", "frame", "finish") in a run's standard
/// error, in order.
func progressEvents(_ kind: String, in stderr: String) -> [[String: Any]] {
    stderr.split(separator: "\n").compactMap { line in
        guard let event = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
            event["event"] as? String == kind
        else { return nil }
        return event
    }
}

/// Prints a measured figure for the log on standard error: standard output belongs to the tests
/// that capture it in this process (`plugin check`'s stdout finding), which run in parallel.
func report(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}
