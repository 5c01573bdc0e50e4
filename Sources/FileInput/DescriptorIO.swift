import Glibc

/// The one place that retries a system call a signal interrupted (`EINTR`): every read, write, send, receive, poll
/// and wait on a descriptor or a child goes through it, so none of them fails because a signal (SIGINT's handler,
/// SIGCHLD) arrived while it waited.
public enum DescriptorIO {
    /// `call`'s result, calling it again as long as it fails (a negative result) with `EINTR`.
    @inlinable
    public static func retrying<Result: BinaryInteger>(_ call: () -> Result) -> Result {
        while true {
            let result = call()
            if result >= 0 || errno != EINTR { return result }
        }
    }

    /// Writes all of `bytes` to `descriptor` (`send` with `flags` when given, for a socket: `MSG_NOSIGNAL`).
    /// Nil when every byte was written; else the `errno` of the call that failed (`EIO` when one wrote nothing).
    public static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32, sendFlags flags: Int32? = nil)
        -> Int32?
    {
        guard let base = bytes.baseAddress else { return nil }
        var offset = 0
        while offset < bytes.count {
            let pointer = base + offset
            let left = bytes.count - offset
            let written = retrying {
                flags.map { Glibc.send(descriptor, pointer, left, $0) } ?? Glibc.write(descriptor, pointer, left)
            }
            if written < 0 { return errno }
            if written == 0 { return EIO }
            offset += written
        }
        return nil
    }

    /// Reads into `buffer` until it is full or the stream ends: the bytes read, or the `errno` of a failed read.
    public static func readFully(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Result<Int, Errno>
    {
        guard let base = buffer.baseAddress else { return .success(0) }
        var filled = 0
        while filled < buffer.count {
            let count = retrying { Glibc.read(descriptor, base + filled, buffer.count - filled) }
            if count < 0 { return .failure(Errno(code: errno)) }
            if count == 0 { break }
            filled += count
        }
        return .success(filled)
    }

    /// A failed call's `errno`.
    public struct Errno: Error, Equatable {
        public var code: Int32
        public init(code: Int32) { self.code = code }
        /// `strerror`'s words for it.
        public var reason: String { String(cString: strerror(code)) }
    }
}
