import Foundation
import Testing

/// A reader that closes the pipe early (`renderfarm trace JOB | head -1`): the binary, with a real pipe.
@Suite("Closed output pipe")
struct BrokenPipeTests {
    /// Reads from `handle` until a newline arrives or it ends, waiting at most 60 s for each chunk.
    static func firstLine(of handle: FileHandle) -> String {
        var bytes: [UInt8] = []
        var poller = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
        var chunk = [UInt8](repeating: 0, count: 4096)
        while !bytes.contains(UInt8(ascii: "\n")), poll(&poller, 1, 60_000) > 0 {
            let count = chunk.withUnsafeMutableBytes { read(handle.fileDescriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        return String(decoding: bytes.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
    }

    @Test("trace stops quietly with exit status 141 once its reader has gone, instead of crashing")
    func closedReader() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Binary.executable)
        // 2 MB of trace lines: far more than a pipe holds, so the writer meets the closed pipe.
        process.arguments = ["trace", Binary.packageRoot.appendingPathComponent("jobs/live-hearts.json").path]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let line = Self.firstLine(of: output.fileHandleForReading)
        try output.fileHandleForReading.close()
        #expect(process.waitOrKill(timeout: 60), "trace went on writing into a closed pipe")
        #expect(line.hasPrefix(#"{"frame":0,"#), "\(line)")
        #expect(process.terminationReason == .exit, "ended by signal \(process.terminationStatus)")
        #expect(process.terminationStatus == 141)
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(message.isEmpty, "a closed pipe is not an error to report: \(message)")
    }
}
