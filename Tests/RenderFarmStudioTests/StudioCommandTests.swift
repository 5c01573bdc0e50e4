import Foundation
import Testing

@Suite("renderfarm studio, the command")
struct StudioCommandTests {
    @Test("prints its URL, serves, and stops cleanly (exit 0) on SIGINT and on SIGTERM", arguments: [SIGINT, SIGTERM])
    func stopsOnSignal(_ signal: Int32) throws {
        let studio = try StudioFixture()
        let process = Process()
        process.executableURL = StudioFixture.buildDirectory.appendingPathComponent("renderfarm")
        process.arguments = ["studio", studio.jobFile.path, "--port", "0"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        let line = try firstLine(of: output.fileHandleForReading, within: 30)
        let port = try #require(URLComponents(string: line)?.port, "first line: \(line)")
        #expect(line.hasPrefix("http://127.0.0.1:"))
        #expect(try RawHTTP(port: port).send("GET", "/api/job").status == 200)
        kill(process.processIdentifier, signal)
        let stopped = StudioFixture.eventually(within: 15) { !process.isRunning }
        #expect(stopped, "renderfarm studio still runs 15 s after the signal")
        guard stopped else { return }  // the deferred terminate ends it
        process.waitUntilExit()
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)
    }

    @Test("a non-loopback --host without --token, and a taken port, are refused")
    func refusals() throws {
        let studio = try StudioFixture()
        let open = try StudioFixture.renderfarm(["studio", studio.jobFile.path, "--host", "0.0.0.0"], seconds: 30)
        #expect(open.status == 64)
        #expect(open.stderr.contains("--token"))
        let taken = try StudioFixture.renderfarm(
            ["studio", studio.jobFile.path, "--port", "\(studio.port)"], seconds: 30)
        #expect(taken.status == 69)
        #expect(taken.stderr.contains("cannot listen"))
    }

    @Test("the token comes from --token-file or RENDERFARM_STUDIO_TOKEN, so ps does not show it")
    func tokenOffTheCommandLine() throws {
        let studio = try StudioFixture()
        let tokenFile = studio.root.appendingPathComponent("token")
        try "from-a-file-123\n".write(to: tokenFile, atomically: true, encoding: .utf8)
        for (arguments, environment, token) in [
            (["--token-file", tokenFile.path], [:], "from-a-file-123"),
            ([], ["RENDERFARM_STUDIO_TOKEN": "from-the-env-45"], "from-the-env-45"),
        ] {
            let process = Process()
            process.executableURL = StudioFixture.buildDirectory.appendingPathComponent("renderfarm")
            process.arguments = ["studio", studio.jobFile.path, "--port", "0"] + arguments
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            defer {
                process.terminate()
                process.waitUntilExit()
            }
            let line = try firstLine(of: output.fileHandleForReading, within: 30)
            let port = try #require(URLComponents(string: line)?.port, "first line: \(line)")
            #expect(line.hasSuffix("?token=\(token)"))
            let client = RawHTTP(port: port)
            #expect(try client.send("GET", "/api/job").status == 401)
            #expect(try client.send("GET", "/api/job", headers: ["Authorization": "Bearer \(token)"]).status == 200)
        }
    }

    /// The first line `handle` gives, waiting at most `seconds` (polling, never blocking past the deadline).
    func firstLine(of handle: FileHandle, within seconds: Double) throws -> String {
        var bytes: [UInt8] = []
        let deadline = Date(timeIntervalSinceNow: seconds)
        while Date() < deadline {
            var poller = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) > 0 else { continue }
            var byte: UInt8 = 0
            guard read(handle.fileDescriptor, &byte, 1) == 1 else { break }
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
        throw RawHTTP.Failure(description: "no line within \(seconds) s: \(String(decoding: bytes, as: UTF8.self))")
    }
}
