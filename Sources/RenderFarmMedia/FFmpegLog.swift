import FileOutput
import Foundation

/// Reads ffmpeg's error output for what its exit status does not always say: that writing the
/// output failed. ffmpeg 5.1 (Debian 12) logs "Error writing trailer of out.mp4: No space left on
/// device" and still exits 0, leaving a file without its index.
package enum FFmpegLog {
    /// The lines of ffmpeg's own output code (`ffmpeg.c`) that report a failed write of the output.
    package static let writeFailures = [
        "Error writing trailer of ", "Error closing file ", "Could not write header for output file",
        "Error submitting a packet to the muxer", "Error muxing a packet",
    ]

    /// The errno texts (`av_strerror`, i.e. glibc's `strerror`) of a full disk or quota.
    package static let noSpace = [(ENOSPC, "No space left on device"), (EDQUOT, "Disk quota exceeded")]

    /// The error on `output` (the final name of the file ffmpeg wrote) when `log` says writing
    /// it failed: a full disk as `AtomicFile` reports it for our own writes (exit 74, "no space
    /// left on device"), any other failed write with ffmpeg's reason; nil when it says nothing of it.
    package static func writeError(in log: String, output: String) -> OutputError? {
        for (code, text) in noSpace where log.contains(text) { return AtomicFile.error(code, output) }
        let lines = log.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let line = lines.last(where: { line in writeFailures.contains { line.hasPrefix($0) } }) else {
            return nil
        }
        // "Error closing file tmp.mp4: Input/output error": the reason, without the temporary name.
        let reason = line.range(of: ": ", options: .backwards).map { String(line[$0.upperBound...]) } ?? line
        return .io(path: output, reason: "ffmpeg could not write the video: \(reason)")
    }

    /// The lines of `log` without the "[mov,mp4,m4a,3gp,3g2,mj2 @ 0x55d0c3a8] " that names the part of
    /// FFmpeg that wrote them, nor the "pipe:0: " or "file:/dev/stdin: " that names an input read from
    /// standard input: the messages alone, for our own, which name the file.
    /// Nor "Last message repeated 2 times", which says nothing new.
    package static func messages(in log: String) -> [String] {
        log.split(separator: "\n").compactMap { line in
            let message = line.hasPrefix("[") ? line.firstIndex(of: "]").map { line[line.index(after: $0)...] } : nil
            let text = (message ?? line).trimmingCharacters(in: .whitespaces)
            guard !text.isEmpty, !text.hasPrefix("Last message repeated ") else { return nil }
            let input = ["pipe:0: ", "file:/dev/stdin: "].first { text.hasPrefix($0) }
            return input.map { String(text.dropFirst($0.count)) } ?? text
        }
    }
}
