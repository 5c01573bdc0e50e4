import FileInput
import Foundation
import Testing

/// `DescriptorIO` keeps its promise while signals interrupt it: every byte arrives, in order, once. A handler
/// installed without `SA_RESTART` makes a blocked `write` or `read` return early (a short count, or `EINTR`), as
/// the renderer's own handlers can; one thread sends that signal to the thread writing or reading, thousands of
/// times, while the other end of the pipe goes slowly.
@Suite("descriptor I/O under signals")
struct DescriptorIOTests {
    /// SIGUSR2, with a handler that does nothing and no `SA_RESTART`.
    static let interrupting: Int32 = {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in }
        action.sa_flags = 0
        sigemptyset(&action.sa_mask)
        sigaction(SIGUSR2, &action, nil)
        return SIGUSR2
    }()

    /// A value threads hand each other under a lock.
    final class Shared<Value>: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: Value
        init(_ value: Value) { stored = value }
        var value: Value {
            get { lock.withLock { stored } }
            set { lock.withLock { stored = newValue } }
        }
    }

    /// Runs `body` on a thread of its own while this thread sends it `interrupting` every 50 µs until it returns;
    /// how many signals were sent.
    static func interrupted(_ body: @escaping @Sendable () -> Void) -> Int {
        let signal = interrupting
        let done = Shared(false)
        let target = Shared<pthread_t?>(nil)
        let thread = Thread {
            // The test runner's threads may block the signal; this one takes it.
            var set = sigset_t()
            sigemptyset(&set)
            sigaddset(&set, signal)
            pthread_sigmask(SIG_UNBLOCK, &set, nil)
            target.value = pthread_self()
            body()
            done.value = true
        }
        thread.start()
        var sent = 0
        while !done.value {
            if let thread = target.value, !done.value {
                pthread_kill(thread, signal)
                sent += 1
            }
            usleep(50)
        }
        return sent
    }

    /// A pipe: (read end, write end).
    static func pipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        try #require(Glibc.pipe(&ends) == 0)
        return (ends[0], ends[1])
    }

    static func pattern(_ count: Int, seed: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ seed &* 7 &+ $0 >> 8) }
    }

    @Test("writeAll into a pipe read slowly: every byte, in order, though the writer is interrupted", arguments: [1, 2])
    func writeAll(seed: Int) throws {
        let ends = try Self.pipe()
        let bytes = Self.pattern(1 << 20, seed: seed)
        // The reader takes 16 KiB at a time with pauses, so the writer blocks on a full pipe again and again.
        let received = Shared<[UInt8]>([])
        let reader = Thread {
            var all: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 16 * 1024)
            while true {
                let count = chunk.withUnsafeMutableBytes { Glibc.read(ends.read, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                all += chunk[..<count]
                usleep(200)
            }
            received.value = all
        }
        reader.start()
        let result = Shared<Int32?>(-1)
        let sent = Self.interrupted {
            result.value = bytes.withUnsafeBytes { DescriptorIO.writeAll($0, to: ends.write) }
            close(ends.write)
        }
        while reader.isExecuting || !reader.isFinished { usleep(1000) }
        close(ends.read)
        #expect(sent > 50, "signals sent: \(sent)")
        #expect(result.value == nil)
        #expect(received.value.count == bytes.count && received.value.elementsEqual(bytes), "the bytes read differ")
    }

    @Test("readFully from a pipe written slowly: the whole buffer, in order, though the reader is interrupted")
    func readFully() throws {
        let ends = try Self.pipe()
        let bytes = Self.pattern(256 * 1024, seed: 5)
        let writer = Thread {
            var offset = 0
            while offset < bytes.count {
                let size = min(4096, bytes.count - offset)
                let count = bytes.withUnsafeBytes { Glibc.write(ends.write, $0.baseAddress! + offset, size) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                offset += count
                usleep(300)
            }
            close(ends.write)
        }
        writer.start()
        let read = Shared<[UInt8]>([])
        let filled = Shared<Int>(-1)
        let sent = Self.interrupted {
            var buffer = [UInt8](repeating: 0, count: bytes.count + 100)
            let result = buffer.withUnsafeMutableBytes { DescriptorIO.readFully(ends.read, into: $0) }
            if case .success(let count) = result { filled.value = count }
            read.value = buffer
        }
        close(ends.read)
        #expect(sent > 50, "signals sent: \(sent)")
        // The stream ended before the buffer was full: what was read is all there was.
        #expect(filled.value == bytes.count)
        #expect(read.value.prefix(bytes.count).elementsEqual(bytes), "the bytes read differ")
    }

    @Test("a write to a pipe nobody reads fails with its errno, and a read of a closed descriptor too")
    func failures() throws {
        let ends = try Self.pipe()
        close(ends.read)
        // SIGPIPE is ignored by the renderer; here too, so the write fails with EPIPE instead of ending the test.
        let previous = signal(SIGPIPE, SIG_IGN)
        defer { signal(SIGPIPE, previous) }
        let failed = [UInt8](repeating: 1, count: 10).withUnsafeBytes { DescriptorIO.writeAll($0, to: ends.write) }
        #expect(failed == EPIPE)
        close(ends.write)
        var buffer = [UInt8](repeating: 0, count: 4)
        let result = buffer.withUnsafeMutableBytes { DescriptorIO.readFully(ends.write, into: $0) }
        #expect(result == .failure(DescriptorIO.Errno(code: EBADF)))
    }
}
