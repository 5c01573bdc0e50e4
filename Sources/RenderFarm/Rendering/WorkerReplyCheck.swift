import Foundation

/// A worker's reply read as untrusted input (article UntrustedPlugins): a plugin in a worker is code the
/// render does not trust, and after it ran, nothing the worker says is believed unchecked. A reply
/// that is not one the protocol defines ends that worker and fails the frame; it cannot stop the render or
/// fail other frames.
enum WorkerReplyCheck {
    /// The longest line a worker may send (a failure message with a long path fits many times).
    static let maximumLine = 64 * 1024

    /// The milliseconds the drawing of a frame took, as the frame reply `line` says (its pixels follow, or with
    /// `shared` are in the memory the render gave the worker), or why the line is not believed: `.untrusted` (end
    /// the worker) or the failure the worker reported.
    static func pixels(_ line: String, shared: Bool = false) throws(Rejection) -> Double {
        guard line.hasPrefix(shared ? WorkerReply.shared : WorkerReply.pixels) else {
            guard line.hasPrefix("fail ") else {
                throw .untrusted("sent a reply the protocol does not have: \(shown(line))")
            }
            throw failure(line)
        }
        let fields = line.split(separator: " ", omittingEmptySubsequences: false)
        guard fields.count == 2, let draw = Double(fields[1]), draw.isFinite, draw >= 0 else {
            throw .untrusted("sent a malformed frame reply: \(shown(line))")
        }
        return draw
    }

    /// What a failure reply `line` (`fail …`) comes to: the frame's failure for `fail frame` and `fail sandbox`;
    /// any other (an output failure: a worker writes no output) is not believed.
    private static func failure(_ line: String) -> Rejection {
        for kind in [WorkerReply.failure, WorkerReply.sandboxDenial] where line.hasPrefix(kind) {
            return .reported(.worker(String(line.dropFirst(kind.count))))
        }
        if line.hasPrefix("fail create ") || line.hasPrefix("fail io ") {
            return .untrusted("reported an output failure, but it writes no output")
        }
        return .untrusted("sent a reply the protocol does not have: \(shown(line))")
    }

    /// The bytes of a frame's pixels after its reply: 4 a pixel, rows without padding (cairo's ARGB32 stride).
    static func pixelBytes(width: Int, height: Int) -> Int { width * 4 * height }

    /// At most 200 characters of `line`, quoted.
    static func shown(_ line: String) -> String {
        let cut = line.count > 200 ? String(line.prefix(200)) + "…" : line
        return "\"" + cut.unicodeScalars.map { $0.isASCII && $0.value >= 0x20 ? String($0) : "?" }.joined() + "\""
    }

    enum Rejection: Error {
        /// The worker said the frame failed (its own failure, believed as a failure of this frame).
        case reported(FrameFailure)
        /// The reply cannot be believed: the worker is ended.
        case untrusted(String)
    }
}
