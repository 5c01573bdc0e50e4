import Foundation
import RenderFarmOutput

/// Counting the frames of a written video with ffprobe.
extension FFmpeg {
    /// What ffprobe found in a file.
    enum Probe: Equatable {
        /// The packets of its first video stream: one per frame for every preset's codec.
        case frames(Int)
        /// ffprobe could not read it; `reason` is its error output ("moov atom not found").
        case unreadable(reason: String)
    }

    /// Probes `file`: its video packets are counted by demuxing the whole file without decoding
    /// (`-count_packets`), so a file cut short shows as too few frames. Throws when ffprobe is
    /// missing (exit 69).
    func probeFrames(in file: String) throws(EncodeError) -> Probe {
        guard let probe else { throw .ffprobeMissing(searched: probeSearched) }
        let command = FFmpegCommand(arguments: [
            "-v", "error", "-count_packets", "-select_streams", "v:0", "-show_entries", "stream=nb_read_packets",
            "-of", "csv=p=0", file,
        ])
        let process = try launch(probe, command, in: "/", feedsInput: false, output: nil, stop: nil)
        let printed = (try? process.progressOutput?.readToEnd()) ?? nil
        let ending = process.wait()
        let text = String(decoding: printed ?? Data(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        // "[mov,mp4,m4a,3gp,3g2,mj2 @ 0x55d0c3a8] moov atom not found": the message without the demuxer's address.
        let errors = ending.log.split(separator: "\n").prefix(3).map { line in
            let message = line.hasPrefix("[") ? line.firstIndex(of: "]").map { line[line.index(after: $0)...] } : nil
            return (message ?? line).trimmingCharacters(in: .whitespaces)
        }.joined(separator: "; ")
        guard ending.succeeded, let count = Int(text) else {
            return .unreadable(reason: errors.isEmpty ? "ffprobe found no video stream" : errors)
        }
        return .frames(count)
    }
}
