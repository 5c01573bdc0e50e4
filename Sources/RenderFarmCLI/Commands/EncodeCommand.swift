import Foundation
import Locking
import RenderFarm
import RenderFarmJobs
import RenderFarmMedia
import RenderFarmOutput
import RenderFarmSound

/// `renderfarm encode OUTDIR`: the folder's PNG sequence through the real ffmpeg.
struct EncodeCommand: Command {
    static let spec = CommandSpec(
        name: "encode",
        abstract: "Encode a rendered folder into a video or animation with ffmpeg.",
        synopsis: "encode OUTDIR",
        examples: [
            "renderfarm encode jobs/out/live-hearts",
            "renderfarm encode jobs/out/live-hearts -o overlay.webm",
            "renderfarm encode out/gift-deliverables -o 'videos/{{variant}}.{{format}}'",
        ],
        discussion: """
            Reads OUTDIR/manifest.json: the frame rate, start number and file pattern come from its
            sequence fields. Presets: mp4 (H.264, yuv420p, even size, +faststart, over the job's
            background or black), webm-alpha (VP9 yuva420p, keeps transparency), prores4444 (.mov
            with alpha, for editors), gif (palette from a first pass, over the background; above
            50 fps every other frame), apng (lossless, keeps transparency), alpha-packed (H.264 MP4
            for live-stream apps: colour and alpha side by side in Tencent's VAP layout, its config
            in a vapc box and in <name>.vap.json; check it with `renderfarm unpack-alpha`),
            hevc-alpha (HEVC with alpha in .mov, where ffmpeg's libx265 encodes yuva420p; exit 69
            otherwise). The video is written to OUTDIR/<job>.<ext> (<job>-alpha.<ext> for
            alpha-packed and hevc-alpha) unless -o is given, and recorded with its ffmpeg command
            and sha256 in the manifest's "encodes" list. Needs ffmpeg (apt-get install ffmpeg).
            Before the video takes its final name, ffprobe reads it and counts its frames: ffmpeg can
            exit 0 after failing to finish the file (a full disk). SIGINT or SIGTERM stops ffmpeg and
            removes the unfinished file. Exit codes: 0 ok, 1 ffmpeg failed, 64 usage, 65 incomplete,
            unusable or still rendering folder, 66 no manifest, 69 ffmpeg or ffprobe missing, 73
            cannot create output, 74 I/O error (a full disk, or a video ffprobe cannot read whole;
            nothing is left under its name and nothing is recorded), 75 the folder is in use by
            another run (encode holds the folder's lock while it reads the frames), 130 interrupted.
            When the job file the manifest names has sound (an `audio` section, or a video layer
            whose clip has sound), its mix over the frames' time span is the video's sound track
            (AAC in mp4, alpha-packed and hevc-alpha, Opus in webm-alpha, 16-bit PCM in prores4444;
            gif and apng have none), and its files are listed with their sha256 in the encode's
            "sound" entry; --no-audio leaves it out. The job is checked as `validate` checks it
            before it is mixed; a job it refuses, or a sound file that cannot be read or decoded
            (damaged in part included), is a located error (65). OUTDIR may be the folder of a
            rendered variants batch (the one holding variants.json): each variant is encoded into its
            own folder, or into -o FILE named per variant with placeholders ({{variant}}, {{name}},
            {{index}}, a column or matrix key; the filled extension picks the format). Every variant's
            frames and name are checked before the first video; the first that fails stops the rest.
            """,
        options: [
            output, preset, crf, allowMissing, noAudio, verbose, CommonOptions.progress, CommonOptions.pluginPath,
        ],
        positionals: 1...1)

    static let output = Option(
        "-o", "--output", value: "FILE",
        help: "Write the video here (default: OUTDIR/<job>.<ext>); a batch's names each variant's with {{variant}}.")
    static let allowMissing = Flag("--allow-missing", help: "Encode the frames that exist of an incomplete render.")
    static let verbose = Flag(
        "--verbose", help: "Print each ffmpeg command line just before it runs (the sound mix as mix.wav).")
    static let noAudio = Flag("--no-audio", help: "Leave out the job's sound (the mix of its music, sounds and clips).")
    static let preset = Option(
        "--preset", value: "P",
        help: "mp4, webm-alpha, prores4444, gif, apng, alpha-packed or hevc-alpha (default: from the file's "
            + "extension, else mp4).")
    static let crf = Option(
        "--crf", value: "N",
        help: "Constant rate factor: mp4 and alpha-packed 0–51 (default 18), webm-alpha 0–63 (default 30), "
            + "hevc-alpha 0–51 (default 24).")

    let arguments: ParsedArguments
    let progress: ProgressMode

    init(_ arguments: ParsedArguments) throws(UsageError) {
        self.arguments = arguments
        // The options are checked now, as usage errors; each video's format once its name is known (`run`).
        let named = arguments[Self.output].map(FileNameTemplate.init)?.hasPlaceholders == true
        _ = try Self.presetAndCRF(arguments, command: "encode", output: named ? nil : arguments[Self.output])
        progress = try CommonOptions.progressMode(arguments, command: "encode")
    }

    /// `--preset` and `--crf`, checked against each other and against the extension of `output` (the
    /// video's file name, when one is given): without `--preset` the extension picks it.
    static func presetAndCRF(_ arguments: ParsedArguments, command: String, output: String?) throws(UsageError)
        -> (EncodePreset, Int?)
    {
        let named = output.flatMap { EncodePreset(fileName: $0) }
        let preset: EncodePreset
        if arguments[Self.preset] != nil {
            let name = try arguments.choice(
                Self.preset, EncodePreset.allCases.map(\.rawValue), default: "mp4", command: command)
            preset = EncodePreset(rawValue: name) ?? .mp4
            // Presets that share a container (mp4 and alpha-packed) all fit its extension.
            if let output, let named, named.fileExtension != preset.fileExtension {
                throw UsageError(
                    message: "--preset \(preset.rawValue) contradicts \(ShownPath.of(output)), whose extension means "
                        + "\(named.rawValue); drop --preset or name the file .\(preset.fileExtension)",
                    command: command)
            }
        } else if let output {
            guard let named else {
                var extensions: [String] = []
                for preset in EncodePreset.allCases where !extensions.contains("." + preset.fileExtension) {
                    extensions.append("." + preset.fileExtension)
                }
                throw UsageError(
                    message: "cannot tell the format of \(ShownPath.of(output)) from its extension: use one of "
                        + "\(extensions.joined(separator: ", ")), or give --preset", command: command)
            }
            preset = named
        } else {
            preset = .mp4
        }
        guard arguments[Self.crf] != nil else { return (preset, nil) }
        guard let range = preset.crf?.range else {
            throw UsageError(
                message: "--crf applies to the mp4 and webm-alpha presets, not \(preset.rawValue)",
                command: command)
        }
        return (preset, try arguments.integer(Self.crf, in: range, command: command))
    }

    /// What `encode` and `render --video` print for a finished video: `headline`, the file, its size and
    /// hash, and for an alpha-packed video where colour and alpha went, its config file, and VapTool's
    /// size warning.
    static func printVideo(
        _ headline: String, file: String, bytes: Int, sha256: String, layout: AlphaPackedLayout?, config: String?,
        terminal: Terminal
    ) {
        terminal.print(headline)
        terminal.print("  video:  \(ShownPath.of(file))")
        terminal.print("  bytes:  \(bytes)")
        terminal.print("  sha256: \(sha256)")
        guard let layout, let config else { return }
        terminal.print("  layout: \(layout.summary)")
        terminal.print("  config: \(config)")
        if layout.exceedsDeviceLimit {
            terminal.note(
                "renderfarm: warning: \(layout.videoWidth)x\(layout.videoHeight) frames are larger than "
                    + "\(AlphaPackedLayout.deviceLimit) pixels; some phones decode them badly "
                    + "(render with a smaller --scale)")
        }
    }

    /// The files a video's sound track was mixed from, after `printVideo`.
    static func printSound(_ inputs: [SoundInput], terminal: Terminal) {
        for input in inputs { terminal.print("  sound:  \(input.use) \(input.file) sha256 \(input.sha256)") }
    }

    func run(_ terminal: Terminal) -> ExitCode {
        let ffmpeg: FFmpeg
        var outputs: [(RenderedOutput, FileNameTemplate.Fields)] = []
        do {
            ffmpeg = try FFmpeg.locate(environment: arguments.environment)
            if let batch = try BatchStatus.read(arguments.positionals[0]) {
                for variant in batch.variants {
                    outputs.append(
                        (
                            try OutputFolder(variant.folder).rendered(),
                            FileNameTemplate.Fields(variant: variant, of: batch)
                        ))
                }
            } else {
                let output = try OutputFolder(arguments.positionals[0]).rendered()
                outputs = [(output, FileNameTemplate.Fields(rendered: output))]
            }
        } catch {
            return .reporting(error, to: terminal)
        }
        return encode(outputs, ffmpeg: ffmpeg, terminal: terminal)
    }

    /// Encodes each rendered folder (one, or every variant of a batch): into its folder (the default name), or into
    /// `-o`, whose placeholders name each. Every folder's frames and video name are checked before the first
    /// video; the first that fails stops the rest.
    private func encode(
        _ outputs: [(RenderedOutput, FileNameTemplate.Fields)], ffmpeg: FFmpeg, terminal: Terminal
    ) -> ExitCode {
        var targets: [(output: RenderedOutput, file: String?, preset: EncodePreset, crf: Int?)] = []
        do {
            let names = arguments[Self.output].map(FileNameTemplate.init)
            var files: [String?] = outputs.map { _ in nil }
            if let names {
                files = try names.files(
                    for: outputs.map(\.1), option: "-o", example: "videos/{{variant}}.mp4", command: "encode")
            }
            for ((output, _), file) in zip(outputs, files) {
                let (preset, crf) = try Self.presetAndCRF(arguments, command: "encode", output: file)
                targets.append((output, file, preset, crf))
            }
            try names?.makeFolders(for: files.compactMap { $0 })
        } catch {
            return .reporting(error, to: terminal)
        }
        return .each(targets) { target in
            encode(
                target.output, to: target.file, preset: target.preset, crf: target.crf, ffmpeg: ffmpeg,
                terminal: terminal)
        }
    }

    /// Encodes the frames of one output folder into `file` (nil: the folder's default name).
    private func encode(
        _ output: RenderedOutput, to file: String?, preset: EncodePreset, crf: Int?, ffmpeg: FFmpeg,
        terminal: Terminal
    ) -> ExitCode {
        // Held until the encode is recorded: no render may change the frames while ffmpeg reads them.
        let session: OutputFolder.Session
        do {
            session = try OutputFolder(output.directory).open(task: "encode")
        } catch {
            return .reporting(error, to: terminal)
        }
        defer { withExtendedLifetime(session) {} }
        // SIGINT and SIGTERM stop ffmpeg and leave nothing behind (exit 130), as they stop `render`.
        let stop = StopSignal()
        let signals = SignalHandling(stop: stop, terminal: terminal, stopping: "stopping ffmpeg; no video is written")
        defer { signals.cancel() }
        var options = EncodeOptions(
            preset: preset, crf: crf, output: file,
            allowMissing: arguments[Self.allowMissing], stop: stop)
        options.withSound = !arguments[Self.noAudio]
        if options.withSound { options.plugins = CommonOptions.catalog(arguments) }
        if !output.complete && options.allowMissing {
            terminal.note("renderfarm: warning: \(output.jobName): encoding without missing frames \(output.missing)")
        }
        if arguments[Self.verbose] {
            // Each line as it is run, with the sound mix as its input when the video has sound.
            let directory = output.directory
            options.announce = { line, folder in
                terminal.note("(cd \(FFmpegCommand.quoted(folder)) && \(line))")
                if line.contains(" \(SoundTrack.shownName) ") {
                    terminal.note(
                        "(\(SoundTrack.shownName) is the job's sound: renderfarm mix \(FFmpegCommand.quoted(directory)) "
                            + "-o \(SoundTrack.shownName))")
                }
            }
        }
        let bar = ProgressBar(
            terminal: terminal, mode: progress, label: "encoding \(preset.rawValue)", jsonEvent: "encode")
        do {
            let result = try SequenceEncoder.encode(output, options: options, ffmpeg: ffmpeg) { done, total in
                bar.update(done, of: total)
            }
            bar.finish()
            do {
                try ManifestEncodes.record(result, preset: preset, in: session)
            } catch {
                // A video the manifest does not list is not kept: a failed encode leaves nothing new.
                EncodedVideo.remove(result)
                terminal.error("\(error.description); \(ShownPath.of(result.file)) was not kept")
                return ExitCode(for: error)
            }
            Self.printVideo(
                "\(output.jobName): \(result.frames) frames encoded (\(preset.rawValue))", file: result.file,
                bytes: result.bytes, sha256: result.sha256, layout: result.layout, config: result.configFile,
                terminal: terminal)
            Self.printSound(result.soundInputs, terminal: terminal)
            if let note = result.soundNote { terminal.note("renderfarm: warning: \(output.jobName): \(note)") }
            return .ok
        } catch {
            bar.finish()
            return .reporting(error, to: terminal)
        }
    }
}
