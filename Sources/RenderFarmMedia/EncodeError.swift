import FileOutput
import RenderFarmJobs
import RenderFarmOutput

/// Handing frames to ffmpeg failed. Each message says what to do about it.
package enum EncodeError: Error, Equatable, CustomStringConvertible {
    /// No ffmpeg executable (exit 69).
    case ffmpegMissing(searched: String)
    /// No ffprobe executable, which checks every video before it is kept (exit 69).
    case ffprobeMissing(searched: String)
    /// The output folder's manifest cannot be used (exit 66 or 65).
    case manifest(RenderedOutputError)
    /// The render is not complete and `--allow-missing` was not given (exit 65).
    case incomplete(directory: String, missing: String)
    /// The frames cannot be read as one sequence (exit 65).
    case unusableSequence(directory: String, reason: String)
    /// The preset cannot be used this way, e.g. GIF on a pipe (exit 64).
    case unsupported(String)
    /// ffmpeg exited with an error (exit 1); `message` is the end of its error output.
    case failed(command: String, status: Int32, message: String)
    /// Writing the output or the manifest failed (exit 73 or 74).
    case output(OutputError)
    /// The installed ffmpeg lacks an encoder or pixel format the preset needs (exit 69).
    case encoderUnavailable(String)
    /// A video given to `unpack-alpha` is not a readable alpha-packed (VAP) MP4 (exit 65).
    case notAlphaPacked(path: String, reason: String)
    /// The job's sound cannot be mixed: its files are missing, not regular files or not sound, its
    /// event logs are bad, or the job is not valid; every problem, each located in the job `file`
    /// (exit 65).
    case sound(file: String, issues: [JobIssue])
    /// Stopped by SIGINT or SIGTERM after `frames` frames; ffmpeg was stopped and nothing was
    /// written (exit 130).
    case interrupted(frames: Int)

    package var description: String {
        switch self {
        case .ffmpegMissing(let searched):
            "ffmpeg is not installed (searched \(searched)); install it with `\(FFmpeg.installHint)` "
                + "or point RENDERFARM_FFMPEG at an ffmpeg executable"
        case .ffprobeMissing(let searched):
            "ffprobe is not installed (searched \(searched)); every video is checked with it before it is kept: "
                + "install it with `\(FFmpeg.installHint)` or point RENDERFARM_FFPROBE at an ffprobe executable"
        case .manifest(let error):
            error.description
        case .incomplete(let directory, let missing):
            "\(directory): the render is incomplete (missing frames \(missing)); render the job again to finish it, "
                + "or pass --allow-missing to encode the frames that exist"
        case .unusableSequence(let directory, let reason):
            "\(directory): \(reason)"
        case .unsupported(let message):
            message
        case .failed(let command, let status, let message):
            "ffmpeg failed (exit \(status)): \(message)\ncommand: \(command)"
        case .output(let error):
            error.description
        case .encoderUnavailable(let message):
            message
        case .notAlphaPacked(let path, let reason):
            "\(path): not an alpha-packed (VAP) video: \(reason)"
        case .sound(let file, let issues):
            issues.map { "\(ShownPath.of(file)): \($0)" }.joined(separator: "\n")
        case .interrupted(let frames):
            "interrupted after \(frames) frame\(frames == 1 ? "" : "s"); ffmpeg stopped, no video written"
        }
    }
}
