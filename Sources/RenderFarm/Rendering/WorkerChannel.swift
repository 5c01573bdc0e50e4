import FileInput
import Foundation

/// A connected socket carrying one line per message, read with an optional deadline.
final class WorkerChannel {
    /// The worker's end of the socket pair.
    static let childDescriptor: Int32 = 3

    enum Failure: Error {
        case closed
        case timedOut
        /// More than `WorkerReplyCheck.maximumLine` bytes without a newline.
        case tooLong
    }

    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private var isClosed = false

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit { close() }

    func close() {
        guard !isClosed else { return }
        isClosed = true
        Foundation.close(descriptor)
    }

    /// Sends `line` and a newline.
    func send(_ line: String) throws(Failure) {
        try send(bytes: Array((line + "\n").utf8))
    }

    /// Sends `bytes` as they are (what follows a reply line); MSG_NOSIGNAL: a dead peer is an error, not a SIGPIPE.
    func send(bytes: [UInt8]) throws(Failure) {
        let sent: Result<Void, Failure> = bytes.withUnsafeBytes { buffer in
            Result { () throws(Failure) in try send(buffer) }
        }
        try sent.get()
    }

    /// Sends a job file's text to a worker started with `--job-text` (`WorkerConnection.receiveJobText`): `text N`,
    /// then its N bytes.
    func send(jobText: [UInt8]) throws(Failure) {
        try send("text \(jobText.count)")
        try send(bytes: jobText)
    }

    /// Sends the bytes of `buffer` as they are (a frame's pixels after its reply line).
    func send(_ buffer: UnsafeRawBufferPointer) throws(Failure) {
        guard DescriptorIO.writeAll(buffer, to: descriptor, sendFlags: Int32(MSG_NOSIGNAL)) == nil else {
            throw .closed
        }
    }

    /// The next line, without its newline; waits at most `timeout` seconds (nil: for ever).
    func receive(timeout: Double?) throws(Failure) -> String {
        let deadline = Self.deadline(timeout)
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            if buffer.count > WorkerReplyCheck.maximumLine { throw .tooLong }
            try fill(until: deadline, wanting: 4096)
        }
    }

    /// The next `count` bytes (what follows a reply line); waits at most `timeout` seconds.
    func receive(count: Int, timeout: Double?) throws(Failure) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let received: Result<Void, Failure> = bytes.withUnsafeMutableBytes { destination in
            Result { () throws(Failure) in try receive(into: destination, timeout: timeout) }
        }
        try received.get()
        return bytes
    }

    /// Fills `destination` with the next bytes (a frame's pixels after its reply line), straight from the socket
    /// once what arrived with the line is used; waits at most `timeout` seconds.
    func receive(into destination: UnsafeMutableRawBufferPointer, timeout: Double?) throws(Failure) {
        guard let base = destination.baseAddress else { return }
        let deadline = Self.deadline(timeout)
        let buffered = min(buffer.count, destination.count)
        destination.copyBytes(from: buffer[..<buffered])
        buffer.removeSubrange(..<buffered)
        var filled = buffered
        while filled < destination.count {
            try waitReadable(until: deadline)
            let count = DescriptorIO.retrying { recv(descriptor, base + filled, destination.count - filled, 0) }
            guard count > 0 else { throw .closed }
            filled += count
        }
    }

    private static func deadline(_ timeout: Double?) -> ContinuousClock.Instant? {
        timeout.map { ContinuousClock.now + .milliseconds(Int64($0 * 1000)) }
    }

    /// Where `fill` receives lines, made once.
    private var chunk = [UInt8](repeating: 0, count: 64 * 1024)

    /// Reads what arrived (up to `wanting` bytes, at least 4 KiB, at most 64 KiB at once) into `buffer`.
    private func fill(until deadline: ContinuousClock.Instant?, wanting: Int) throws(Failure) {
        try waitReadable(until: deadline)
        let size = min(max(wanting, 4096), chunk.count)
        let count = DescriptorIO.retrying { chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, size, 0) } }
        guard count > 0 else { throw .closed }
        buffer += chunk[..<count]
    }

    /// Waits until something arrived (or the peer closed) before `deadline` (nil: for ever).
    private func waitReadable(until deadline: ContinuousClock.Instant?) throws(Failure) {
        while true {
            var wait: Int32 = -1
            if let deadline {
                let left = ContinuousClock.now.duration(to: deadline)
                guard left > .zero else { throw .timedOut }
                wait = Int32(min(Double(Int32.max), (left.seconds * 1000).rounded(.up)))
            }
            var poll = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = Foundation.poll(&poll, 1, wait)
            // Interrupted by a signal: the time left is computed again.
            if ready < 0 && errno == EINTR { continue }
            if ready == 0 { throw .timedOut }
            return
        }
    }
}
