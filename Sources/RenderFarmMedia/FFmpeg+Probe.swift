import FileInput
import Foundation
import RenderFarmJobs
import RenderFarmOutput

/// ffprobe: counting the frames of a written video, and listing what a clip holds.
extension FFmpeg {
    /// What ffprobe found in a file.
    package enum Probe: Equatable {
        /// The packets of its first video stream: one per frame for every preset's codec.
        case frames(Int)
        /// ffprobe could not read it; `reason` is its error output ("moov atom not found").
        case unreadable(reason: String)
    }

    /// Probes `file`: its video packets are counted by demuxing the whole file without decoding
    /// (`-count_packets`), so a file cut short shows as too few frames. Throws when ffprobe is
    /// missing (exit 69).
    package func probeFrames(in file: String) throws(EncodeError) -> Probe {
        let printed = try probe([
            "-v", "error", "-count_packets", "-select_streams", "v:0", "-show_entries", "stream=nb_read_packets",
            "-of", "csv=p=0", file,
        ])
        switch printed {
        case .success(let text):
            guard let count = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                return .unreadable(reason: "ffprobe found no video stream")
            }
            return .frames(count)
        case .failure(let reason):
            return .unreadable(reason: reason.message)
        }
    }

    /// What ffprobe prints with `arguments` (reading `file` as `/dev/stdin`, when given), or its first
    /// error lines ("moov atom not found") when it fails. Throws when ffprobe is missing (exit 69).
    package func probe(_ arguments: [String], reading file: InputFile? = nil) throws(EncodeError) -> Result<
        String, DataProblem
    > {
        guard let probe else { throw .ffprobeMissing(searched: probeSearched) }
        let process = try launch(
            probe, FFmpegCommand(arguments: arguments), in: "/", feedsInput: false, output: nil, stop: nil,
            reading: file)
        let printed = (try? process.progressOutput?.readToEnd()) ?? nil
        let ending = process.wait()
        guard ending.succeeded else {
            let errors = FFmpegLog.messages(in: ending.log).prefix(3).joined(separator: "; ")
            return .failure(DataProblem(errors.isEmpty ? "ffprobe exited \(ending.status)" : errors))
        }
        return .success(String(decoding: printed ?? Data(), as: UTF8.self))
    }
}
