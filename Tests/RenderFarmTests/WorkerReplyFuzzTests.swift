import Foundation
import Testing

@testable import RenderFarm

/// The parent's end of `render --isolate` reads what a worker sends as untrusted input (article
/// UntrustedPlugins): random and truncated replies, over the real socket, never crash it, are never taken
/// for a frame, and a line without end is cut off at `WorkerReplyCheck.maximumLine`.
@Suite("Worker replies fuzzed: random and truncated messages to the parent")
struct WorkerReplyFuzzTests {
    /// `make test` runs a quick sample; `make fuzz` sets RENDERFARM_FUZZ_CASES=1000.
    static let caseCount = ProcessInfo.processInfo.environment["RENDERFARM_FUZZ_CASES"].flatMap { Int($0) } ?? 300
    static let valid = "ok " + String(repeating: "ab", count: 32) + " 1234 1 0.01 0.002 0.003 0.0004"

    /// A line cut inside its last number reads as a shorter number; the socket test shows that a
    /// line cut off by a closed worker never arrives at all.
    @Test("a well-formed reply is a frame; every truncation of it before its last number is not believed")
    func truncated() throws {
        let frame = try WorkerReplyCheck.frame(Self.valid, width: 40, height: 40)
        #expect(frame.sha256 == String(repeating: "ab", count: 32) && frame.bytes == 1234 && frame.opaque)
        let lastField = Self.valid.lastIndex(of: " ").map { Self.valid.distance(from: Self.valid.startIndex, to: $0) }
        for length in 0...(lastField ?? 0) {
            #expect(throws: WorkerReplyCheck.Rejection.self) {
                try WorkerReplyCheck.frame(String(Self.valid.prefix(length)), width: 40, height: 40)
            }
        }
    }

    @Test("a frame larger than the canvas's largest PNG, or of no bytes, ends the worker")
    func canvasBound() {
        let limit = WorkerReplyCheck.largestPNG(width: 40, height: 40)
        for bytes in [0, -5, limit + 1, Int.max] {
            let line = "ok " + String(repeating: "0", count: 64) + " \(bytes) 0 0 0 0 0"
            #expect(Self.untrusted(line, width: 40, height: 40), "\(bytes)")
        }
        #expect(
            !Self.untrusted("ok " + String(repeating: "0", count: 64) + " \(limit) 0 0 0 0 0", width: 40, height: 40))
    }

    @Test("random replies never crash the parent and are never taken for a frame")
    func random() {
        var generator = SystemRandomNumberGenerator()
        let words = ["ok", "fail", "frame", "create", "io", "sandbox", "nan", "-1", "1e308", "inf", "\t", "", "0"]
        for _ in 0..<Self.caseCount {
            var line = ""
            for _ in 0..<Int.random(in: 0...10, using: &generator) {
                if Bool.random(using: &generator) {
                    line += words.randomElement(using: &generator) ?? ""
                } else {
                    let scalars = (0..<Int.random(in: 1...12, using: &generator)).map { _ in
                        Character(UnicodeScalar(UInt8.random(in: 1...255, using: &generator)))
                    }
                    line += String(scalars)
                }
                line += Bool.random(using: &generator) ? " " : ""
            }
            line = line.replacingOccurrences(of: "\n", with: " ")
            do {
                let frame = try WorkerReplyCheck.frame(line, width: 64, height: 64)
                // Only a reply of the protocol's exact shape gets here.
                #expect(frame.bytes > 0 && frame.sha256.count == 64, "\(line)")
            } catch {
                switch error {
                case .reported: #expect(line.hasPrefix("fail "), "\(line)")
                case .untrusted: break
                }
            }
        }
    }

    @Test("over the socket: random chunks, lines cut off by a closed worker, and a line without end")
    func channel() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<max(1, Self.caseCount / 10) {
            let (parent, worker) = try Self.socketPair()
            var bytes = (0..<Int.random(in: 0...300, using: &generator)).map { _ in
                UInt8.random(in: 0...255, using: &generator)
            }
            bytes.removeAll { $0 == UInt8(ascii: "\n") }
            bytes += Array(Self.valid.utf8.prefix(Int.random(in: 0...Self.valid.utf8.count, using: &generator)))
            bytes.withUnsafeBytes { _ = send(worker, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            close(worker)
            #expect(throws: WorkerChannel.Failure.closed) { try parent.receive(timeout: 5) }
        }
        let (parent, worker) = try Self.socketPair()
        let flood = [UInt8](repeating: UInt8(ascii: "x"), count: 4096)
        let writer = Thread {
            var sent = 0
            while sent <= WorkerReplyCheck.maximumLine * 2 {
                let count = flood.withUnsafeBytes { send(worker, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                guard count > 0 else { break }
                sent += count
            }
            close(worker)
        }
        writer.start()
        #expect(throws: WorkerChannel.Failure.tooLong) { try parent.receive(timeout: 30) }
        parent.close()
    }

    static func untrusted(_ line: String, width: Int, height: Int) -> Bool {
        do {
            _ = try WorkerReplyCheck.frame(line, width: width, height: height)
            return false
        } catch {
            if case .untrusted = error { return true }
            return false
        }
    }

    static func socketPair() throws -> (WorkerChannel, Int32) {
        var sockets: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &sockets) == 0 else {
            throw CocoaError(.fileWriteUnknown)
        }
        return (WorkerChannel(descriptor: sockets[0]), sockets[1])
    }
}
