import Foundation

/// A worker's reply read as untrusted input (article UntrustedPlugins): a plugin in a worker is code the
/// render does not trust, and after it ran, nothing the worker says is believed unchecked. A reply
/// that is not one the protocol defines, or whose numbers cannot be true for the job's canvas, ends
/// that worker and fails the frame; it cannot stop the render or fail other frames.
enum WorkerReplyCheck {
    /// The longest line a worker may send (a failure message with a long path fits many times).
    static let maximumLine = 64 * 1024

    /// The frame `line` reports for a canvas of `width`×`height` pixels, or why the line is not believed: `.untrusted` (end the
    /// worker) or the failure the worker reported.
    static func frame(_ line: String, width: Int, height: Int) throws(Rejection) -> WrittenFrame {
        guard line.hasPrefix("ok ") else {
            guard line.hasPrefix("fail ") else {
                throw .untrusted("sent a reply the protocol does not have: \(shown(line))")
            }
            // A failure reply never parses as a frame: its failure is the frame's.
            do throws(FrameFailure) {
                _ = try WorkerReply.frame(line)
            } catch {
                // A worker writes no files (the parent does): an output failure would stop the render.
                guard error.isDrawing else { throw .untrusted("reported an output failure, but it writes no output") }
                throw .reported(error)
            }
            throw .untrusted("sent a reply the protocol does not have: \(shown(line))")
        }
        let fields = line.split(separator: " ", omittingEmptySubsequences: false)
        let isHex = { (text: Substring) in
            text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
        }
        guard fields.count == 8, fields[1].utf8.count == 64, isHex(fields[1]), let bytes = Int(fields[2]),
            fields[3] == "0" || fields[3] == "1"
        else { throw .untrusted("sent a malformed frame reply: \(shown(line))") }
        let timings = fields[4...].compactMap { Double($0) }.filter { $0.isFinite && $0 >= 0 }
        guard timings.count == 4 else { throw .untrusted("sent frame timings that are not durations: \(shown(line))") }
        let limit = largestPNG(width: width, height: height)
        guard bytes > 0, bytes <= limit else {
            throw .untrusted("reported a \(bytes)-byte frame; a \(width)×\(height) PNG is at most \(limit) bytes")
        }
        return WrittenFrame(
            sha256: String(fields[1]), bytes: bytes, opaque: fields[3] == "1",
            timings: FrameTimings(draw: timings[0], convert: timings[1], encode: timings[2], write: timings[3]))
    }

    /// The size of a PNG of the canvas stored without compression (every row with its filter
    /// byte, zlib's stored blocks of 64 KiB with 5 bytes each, chunks of up to 2 GiB), with room
    /// for the header and text chunks: no frame of the canvas can be larger.
    static func largestPNG(width: Int, height: Int) -> Int {
        let raw = (width * 4 + 1) * height
        return raw + raw / 65_535 * 5 + 64 * 1024
    }

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
