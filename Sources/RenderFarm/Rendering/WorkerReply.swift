import Foundation

/// The replies of the worker protocol, shared by both ends so they cannot drift apart:
/// `pixels DRAW` followed by the frame's pixels (`shared DRAW` when they are in the memory the render gave the
/// worker, `WorkerFrameMemory`) (`WorkerReplyCheck.pixelBytes`: width × height × 4 bytes of cairo's
/// premultiplied ARGB32, row after row; DRAW: the milliseconds the drawing took), which the parent encodes as
/// every frame is encoded (`FrameEncoder`), or `fail frame MESSAGE` (a failed attempt), `fail sandbox MESSAGE`
/// (a denial) or `retire`. A worker sends no PNG: what the parent writes is a PNG it made itself.
enum WorkerReply {
    /// `fail sandbox MESSAGE`: written by the sandbox's SIGSYS handler (CSandbox) before the worker ends.
    static let sandboxDenial = "fail sandbox "
    /// `error MESSAGE`: the worker could not prepare its jobs (`WorkerConnection.fail`), and ends.
    static let error = "error "
    /// Sent instead of a frame's reply by a worker whose CPU time nears its hard limit: it ends, and the parent
    /// asks a new worker for the frame (once: a second `retire` for one frame is a reply the protocol lacks).
    static let retire = "retire"
    /// The start of a frame's reply whose pixels follow on the socket.
    static let pixels = "pixels "
    /// The start of a frame's reply whose pixels are in the memory the render gave the worker (`WorkerFrameMemory`).
    static let shared = "shared "
    /// The start of a failed attempt's reply.
    static let failure = "fail frame "

    /// What a worker's `error` or `fail sandbox` line says, as one plain line (`plain`); nil for any other line.
    static func reason(_ line: String) -> String? {
        for prefix in [error, sandboxDenial] where line.hasPrefix(prefix) { return plain(line.dropFirst(prefix.count)) }
        return nil
    }

    /// A worker's words as one line of at most 2,000 characters, without control characters.
    static func plain(_ text: Substring) -> String {
        String(
            String(text.prefix(2000)).map {
                $0.isNewline || ($0.asciiValue.map { $0 < 32 || $0 == 127 } ?? false) ? " " : $0
            })
    }

    /// The reply to a frame drawn in `drawMilliseconds`, which its pixels follow (or are in the shared memory).
    static func drawn(milliseconds: Double, shared: Bool = false) -> String {
        (shared ? Self.shared : pixels) + "\(milliseconds.isFinite && milliseconds >= 0 ? milliseconds : 0)"
    }

    /// The reply to a failed attempt: its message on one line.
    static func failed(_ failure: FrameFailure) -> String {
        Self.failure + failure.message.replacingOccurrences(of: "\n", with: "; ")
    }
}
