import CairoKit
import RenderFarmOutput
import RenderFarmSound
import StrictJSON

/// Where ffmpeg reads frames from.
package enum EncodeInput: Sendable, Equatable {
    /// Numbered PNGs read with the image2 pattern (`frame_%05d.png`) from `start`.
    case pattern(String, start: Int)
    /// PNGs matched by a glob (frame sets with a step or gaps), in name order.
    case glob(String)
    /// Frames in `PipeFormat` on standard input, made by RenderFarm's workers.
    case pipe(PipeFormat)
}

/// Builds the ffmpeg command lines of one encode. Frames in an encoder format (`PipeFormat`) go
/// straight to the encoder; PNGs and straight RGBA frames pass the preset's filter graph. The codec
/// options are the same for every input.
package struct EncodePlan: Sendable {
    package var preset: EncodePreset
    package var crf: Int?
    /// Frame size in pixels.
    package var width: Int
    package var height: Int
    /// Frames per second of the video (the job's fps divided by the frame step).
    package var rate: Double
    /// The job's background, `#RRGGBBAA`; presets without alpha composite over its colour, or
    /// over black when it is fully transparent.
    package var background: String
    /// Frames to write, so that stray files after the sequence are never read.
    package var frameCount: Int
    /// The mix (a WAV file) muxed as the video's sound track, for presets that carry one (<doc:Sound>).
    package var sound: String? = nil

    package init(
        preset: EncodePreset, crf: Int?, width: Int, height: Int, rate: Double, background: String,
        frameCount: Int
    ) {
        self.preset = preset
        self.crf = crf
        self.width = width
        self.height = height
        self.rate = rate
        self.background = background
        self.frameCount = frameCount
    }

    /// `command` as it is told (`--verbose`) and recorded (the manifest's `encodes`): naming `target` for the
    /// staged `temporary` it writes, `palette.png` for the scratch `palette`, and the sound mix as `mix.wav`,
    /// so it can be run again as written.
    func shownLine(_ command: FFmpegCommand, temporary: String, target: String, palette: String? = nil) -> String {
        FFmpegCommand(
            arguments: command.arguments.map {
                $0 == temporary ? target : $0 == palette ? "palette.png" : $0 == sound ? SoundTrack.shownName : $0
            }
        ).shellLine
    }

    /// The ffmpeg commands that turn `input` into `output`; GIF takes two (palette, then frames),
    /// with the palette at `palette`.
    package func commands(input: EncodeInput, output: String, palette: String) -> [FFmpegCommand] {
        let head = ["-hide_banner", "-loglevel", "error", "-nostats", "-progress", "pipe:1", "-y"]
        let inputArguments = self.inputArguments(input)
        // Reaching -frames:v ends the whole output, sound included; presets with sound read a pipe
        // that holds exactly the frames, so they need no limit.
        let limit = soundMap == nil ? ["-frames:v", "\(outputFrameCount)"] : []
        let codec =
            preset.codecArguments(crf: crf) + levelArguments + soundCodecArguments + ["-f", preset.muxer, output]
        if preset == .gif {
            let palettePass = [
                "-filter_complex", composite + gifStep + ",palettegen=stats_mode=full[out]",
                "-map", "[out]", "-frames:v", "1", "-update", "1", "-f", "image2", palette,
            ]
            let framesPass = [
                "-i", palette, "-filter_complex",
                composite + gifStep + "[v];[v][1:v]paletteuse=dither=sierra2_4a[out]", "-map", "[out]",
            ]
            return [
                FFmpegCommand(arguments: head + inputArguments + palettePass),
                FFmpegCommand(arguments: head + inputArguments + framesPass + limit + codec),
            ]
        }
        let inputs: [String] = inputArguments + soundInputArguments
        return [FFmpegCommand(arguments: head + inputs + streamArguments + limit + codec)]
    }

    /// The video's rate as ffmpeg reads it (`60`, `29.97`).
    var rateText: String { JSONValue.number(rate).serialized() }

    func inputArguments(_ input: EncodeInput) -> [String] {
        switch input {
        case .pattern(let pattern, let start):
            ["-framerate", rateText, "-start_number", "\(start)", "-i", pattern]
        case .glob(let glob):
            ["-framerate", rateText, "-pattern_type", "glob", "-i", glob]
        case .pipe(let format):
            [
                "-f", "rawvideo", "-pixel_format", format.ffmpegName, "-video_size", pipeSizeText(format),
                "-framerate", rateText, "-i", "pipe:0",
            ]
        }
    }

    /// `WIDTHxHEIGHT` of the frames on the pipe.
    private func pipeSizeText(_ format: PipeFormat) -> String {
        let size = format.frameSize(width: width, height: height)
        return "\(size.width)x\(size.height)"
    }

    /// The colour an opaque preset composites over: the background without its alpha, or black
    /// (`Color.matte`; in cairo for frames on a pipe, in the filter graph for GIF's PNGs).
    var matteColor: Color { (Color(hex: background) ?? .clear).matte }

    /// `matteColor` as ffmpeg writes colours.
    var matte: String { "0x" + matteColor.hex.dropFirst().prefix(6) }

    /// Input 0 as straight RGBA over the matte (GIF).
    private var composite: String {
        "[0:v]format=rgba[fg];color=c=\(matte):s=\(width)x\(height):r=\(rateText),format=rgba[bg];"
            + "[bg][fg]overlay=shortest=1:format=rgb"
    }

    /// The whole graph from input 0 to `[out]`; nil for presets whose frames reach ffmpeg already
    /// in the encoder's format (`PipeFormat.isEncoderFormat`), which need none. Every graph starts
    /// by converting to RGBA, so PNGs (RGB or RGBA) and straight RGBA frames meet the same filters.
    var filterGraph: String? {
        switch preset {
        case .mp4, .webmAlpha, .hevcAlpha, .alphaPacked, .prores4444:
            return nil
        case .gif:
            return composite + gifStep + "[out]"
        case .apng:
            return "[0:v]format=rgba[out]"
        }
    }

    /// GIF stores delays in whole centiseconds and browsers slow down delays under 2 cs, so a
    /// GIF keeps every `gifFrameStep`-th frame: the first divisor that brings the rate to 50 fps or less.
    package var gifFrameStep: Int { preset == .gif ? max(1, Int((rate / 50).rounded(.up))) : 1 }

    /// Frames in the output: every frame, or every `gifFrameStep`-th for GIF.
    package var outputFrameCount: Int { (frameCount + gifFrameStep - 1) / gifFrameStep }

    /// The output's frame rate.
    package var outputRate: Double { rate / Double(gifFrameStep) }

    private var gifStep: String { gifFrameStep > 1 ? ",framestep=\(gifFrameStep)" : "" }

    /// The size ffmpeg writes: padded to even numbers for 4:2:0 codecs.
    package var outputSize: (width: Int, height: Int) {
        if preset == .alphaPacked { return (alphaPackedLayout.videoWidth, alphaPackedLayout.videoHeight) }
        return preset.padsToEven ? ((width + 1) / 2 * 2, (height + 1) / 2 * 2) : (width, height)
    }
}
