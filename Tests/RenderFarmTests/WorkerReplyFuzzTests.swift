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
    static let valid = "pixels 12.25"

    /// A line cut inside its number reads as a shorter number; the socket test shows that a line cut off by a
    /// closed worker never arrives at all.
    @Test("a well-formed reply is a frame; every truncation of it before its number is not believed")
    func truncated() throws {
        #expect(try WorkerReplyCheck.pixels(Self.valid) == 12.25)
        for length in 0..<WorkerReply.pixels.count {
            #expect(throws: WorkerReplyCheck.Rejection.self) {
                try WorkerReplyCheck.pixels(String(Self.valid.prefix(length)))
            }
        }
    }

    @Test("a frame reply with a time that is no duration, or with more fields, ends the worker")
    func malformed() {
        for line in ["pixels -1", "pixels nan", "pixels inf", "pixels 1 2", "pixels ", "pixels  1", "ok 1"] {
            #expect(Self.untrusted(line), "\(line)")
        }
        #expect(!Self.untrusted("pixels 0"))
    }

    /// Workers send pixels, never a PNG: the reply of the protocol before (a PNG's byte count after a checksum)
    /// and output failures (a worker writes no output) are not believed.
    @Test("the PNG reply of the protocol before, and output failures, end the worker; frame failures are reported")
    func failures() throws {
        #expect(Self.untrusted("ok " + String(repeating: "0", count: 64) + " 1000 1 0 0 0 0"))
        #expect(Self.untrusted("fail create /tmp/x\tno room"))
        #expect(Self.untrusted("fail io /tmp/x\tno room"))
        for line in ["fail frame layer 0 (x): no", "fail sandbox plugin \"x\" tried to open /etc/shadow"] {
            #expect(throws: WorkerReplyCheck.Rejection.self) { try WorkerReplyCheck.pixels(line) }
            #expect(!Self.untrusted(line), "\(line)")
        }
        #expect(WorkerReplyCheck.pixelBytes(width: 40, height: 30) == 4800)
    }

    /// With the memory the render shares (`WorkerFrameMemory`), a frame's reply says its pixels are there; the
    /// socket's form is then not believed, nor the shared form without the memory.
    @Test("a shared-memory frame reply is a frame only where the worker was given the memory")
    func shared() throws {
        #expect(try WorkerReplyCheck.pixels("shared 2.5", shared: true) == 2.5)
        for (line, shared) in [("pixels 2.5", true), ("shared 2.5", false), ("shared nan", true), ("shared", true)] {
            #expect(throws: WorkerReplyCheck.Rejection.self) { try WorkerReplyCheck.pixels(line, shared: shared) }
        }
    }

    @Test("random replies never crash the parent and are never taken for a frame")
    func random() {
        var generator = SystemRandomNumberGenerator()
        let words = ["pixels", "fail", "frame", "create", "io", "sandbox", "nan", "-1", "1e308", "inf", "\t", "", "0"]
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
                let draw = try WorkerReplyCheck.pixels(line)
                // Only a reply of the protocol's exact shape gets here.
                #expect(line.hasPrefix("pixels ") && draw.isFinite && draw >= 0, "\(line)")
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

    static func untrusted(_ line: String) -> Bool {
        do {
            _ = try WorkerReplyCheck.pixels(line)
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
