import FileInput
import Foundation
import Locking

/// ffmpeg's standard input when frames are fed to it: one end of a Unix stream socket pair
/// instead of a pipe.
///
/// Frames are sent with `send(2)` and `MSG_NOSIGNAL`, so that a dead ffmpeg shows as the error
/// `EPIPE` whatever the process's SIGPIPE disposition, which belongs to the CLI: `write(2)` on a
/// pipe would raise SIGPIPE (whose default action ends the process), and Foundation's
/// `FileHandle.write` traps on `EPIPE` when SIGPIPE is ignored. ffmpeg reads `pipe:0` with
/// `read(2)`, which a socket serves as a pipe would.
package final class FrameSocket: Sendable {
    /// Our end; -1 once closed.
    private let descriptor: Locked<Int32>
    /// ffmpeg's end, handed to `Process` as standard input and closed here once ffmpeg runs.
    package let childEnd: FileHandle

    /// Creates the socket pair, both ends close-on-exec (ffmpeg gets its end as descriptor 0).
    package init() throws(EncodeError) {
        var ends: [Int32] = [-1, -1]
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        guard socketpair(AF_UNIX, type, 0, &ends) == 0 else {
            throw .failed(
                command: "socketpair", status: -1,
                message: "cannot create ffmpeg's input socket: \(String(cString: strerror(errno)))")
        }
        descriptor = Locked(ends[0])
        childEnd = FileHandle(fileDescriptor: ends[1], closeOnDealloc: true)
    }

    deinit { close() }

    /// Sends all of `bytes`, waiting while ffmpeg is busy; the reason when ffmpeg stopped reading.
    package func send(_ bytes: UnsafeRawBufferPointer) -> String? {
        let socket = descriptor.withLock { $0 }
        guard let code = DescriptorIO.writeAll(bytes, to: socket, sendFlags: Int32(MSG_NOSIGNAL)) else { return nil }
        let reason = code == EPIPE || code == ECONNRESET ? "ffmpeg stopped reading frames" : "writing frames to ffmpeg"
        return "\(reason): \(String(cString: strerror(code)))"
    }

    /// Closes ffmpeg's end in this process once ffmpeg has its own copy, so that ffmpeg's exit
    /// makes `send` fail instead of block.
    package func closeChildEnd() {
        try? childEnd.close()
    }

    /// Closes our end: ffmpeg reads the end of its input.
    package func close() {
        descriptor.withLock { socket in
            if socket >= 0 { Foundation.close(socket) }
            socket = -1
        }
    }
}
