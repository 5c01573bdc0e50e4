import Foundation
import RenderFarm
import RenderFarmMedia

/// `renderfarm unpack-alpha VIDEO -o DIR`: an alpha-packed (VAP) MP4 back into RGBA PNG frames.
struct UnpackAlphaCommand: Command {
    static let spec = CommandSpec(
        name: "unpack-alpha",
        abstract: "Decode an alpha-packed (VAP) MP4 into the RGBA PNG frames a VAP player shows.",
        synopsis: "unpack-alpha VIDEO",
        examples: [
            "renderfarm unpack-alpha gift-alpha.mp4 -o frames/",
            "renderfarm unpack-alpha gift-alpha.mp4 -o frames/ --progress plain",
        ],
        discussion: """
            Reads VAP's config from the MP4's vapc box (or VIDEO's <name>.vap.json when the box is
            missing), decodes the frames with ffmpeg (BT.709 when the stream is tagged so, else
            BT.601; limited range unless tagged full, as VAP's iOS player reads them), and writes
            DIR/frame_00000.png, … at the config's w × h: colour from rgbFrame, alpha from the red
            channel of aFrame, both sampled bilinearly like the players' textures, unpremultiplied
            into straight RGBA. Works for files from VAP's own tools too (any region sizes).
            Exit codes: 0 ok, 1 ffmpeg failed, 64 usage, 65 not an alpha-packed MP4 (or its frame
            count differs from the config's f), 66 no such video, 69 ffmpeg missing, 73 cannot
            create DIR, 74 I/O error (a full disk: the message names the frame and says "No space
            left on device"). A failed unpack removes the frames it wrote.
            """,
        options: [output, CommonOptions.progress],
        positionals: 1...1)

    static let output = Option(
        "-o", "--output", value: "DIR", help: "Write the PNG frames into DIR (required).", required: true)

    let video: String
    let directory: String
    let progress: ProgressMode
    let environment: [String: String]

    init(_ arguments: ParsedArguments) throws(UsageError) {
        video = arguments.positionals[0]
        environment = arguments.environment
        guard let directory = arguments[Self.output] else {
            throw UsageError(message: "-o DIR is required (the folder for the PNG frames)", command: "unpack-alpha")
        }
        self.directory = directory
        progress = try CommonOptions.progressMode(arguments, command: "unpack-alpha")
    }

    func run(_ terminal: Terminal) -> ExitCode {
        guard FileManager.default.fileExists(atPath: video) else {
            return .reporting(CommandRefusal.noSuchFile(video, what: "video"), to: terminal)
        }
        let bar = ProgressBar(terminal: terminal, mode: progress, label: "unpacking", jsonEvent: "unpack")
        do {
            let ffmpeg = try FFmpeg.locate(environment: environment)
            let result = try AlphaUnpacker.unpack(video, into: directory, ffmpeg: ffmpeg) { done, total in
                bar.update(done, of: max(total, done))
            }
            bar.finish()
            let config = result.config
            terminal.print(
                "\(video): \(result.frames) frames unpacked (\(config.width)x\(config.height), \(config.fps) fps)")
            // `-o frames/` names frames/frame_00000.png, not frames//frame_00000.png.
            terminal.print("  frames: \(AlphaUnpacker.framePath(0, in: result.directory)) …")
            terminal.print(
                "  config: \(result.configSource): video \(config.videoWidth)x\(config.videoHeight), "
                    + "rgbFrame \(config.rgbFrame), aFrame \(config.alphaFrame)")
            terminal.print("  colour: \(result.colour)")
            return .ok
        } catch {
            bar.finish()
            return .reporting(error, to: terminal)
        }
    }
}
