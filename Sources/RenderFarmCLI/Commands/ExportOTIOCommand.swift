import Foundation
import RenderFarm
import RenderFarmJobs
import RenderFarmMedia
import RenderFarmOutput
import RenderFarmSound

/// `renderfarm export-otio OUTDIR`: an OpenTimelineIO timeline of the rendered sequence.
struct ExportOTIOCommand: Command {
    static let spec = CommandSpec(
        name: "export-otio",
        abstract: "Write an OpenTimelineIO timeline (.otio JSON) of a rendered folder for editorial tools.",
        synopsis: "export-otio OUTDIR",
        examples: [
            "renderfarm export-otio jobs/out/live-hearts",
            "renderfarm export-otio jobs/out/live-hearts -o edit/live-hearts.otio --absolute-urls",
        ],
        discussion: """
            The timeline (Timeline.1) holds one video track (Track.1) with one clip (Clip.1) whose
            media_reference is an ImageSequenceReference.1 built from the manifest's sequence
            fields: target_url_base, name_prefix, name_suffix, start_frame, frame_step, rate,
            frame_zero_padding, missing_frame_policy and available_range. target_url_base is the
            frames' folder relative to the timeline file, or a file:// URL with --absolute-urls.
            Writes OUTDIR/<job>.otio unless -o is given (its folder is created). Exit codes: 0 ok,
            64 usage, 65 incomplete or unevenly spaced render, 66 no manifest, 73 cannot create
            output, 74 I/O error (a full disk; no timeline is left).
            When the job file the manifest names has sound (an `audio` section, or a video layer
            whose clip has sound), its mix over the frames' time span is written beside the timeline as <name>.mix.wav (as `renderfarm mix OUTDIR`
            writes it) and the timeline gets two audio tracks: A1 with the mix from its start, A2
            with the music file where it is heard (after a Gap.1), each clip an ExternalReference.1
            timed in samples at 48 kHz; --no-audio leaves them out. The job is checked as `validate`
            checks it before it is mixed; a job it refuses, or a sound file that cannot be used, is a
            located error (65), 69 when ffmpeg is missing.
            """,
        options: [output, absoluteURLs, allowMissing, noAudio, CommonOptions.pluginPath],
        positionals: 1...1)

    static let output = Option(
        "-o", "--output", value: "FILE", help: "Write the timeline here (default: OUTDIR/<job>.otio).")
    static let absoluteURLs = Flag("--absolute-urls", help: "Point at the frames with a file:// URL.")
    static let allowMissing = Flag("--allow-missing", help: "Export an incomplete render (missing_frame_policy hold).")
    static let noAudio = EncodeCommand.noAudio

    let arguments: ParsedArguments

    init(_ arguments: ParsedArguments) throws(UsageError) {
        self.arguments = arguments
    }

    func run(_ terminal: Terminal) -> ExitCode {
        let output: RenderedOutput
        do {
            output = try OutputFolder(arguments.positionals[0]).rendered()
        } catch {
            return .reporting(error, to: terminal)
        }
        let file =
            arguments[Self.output].map { URL(fileURLWithPath: $0).standardizedFileURL.path }
            ?? (output.directory as NSString).appendingPathComponent(fileName(output.jobName) + ".otio")
        let base = OTIOTimeline.targetURLBase(
            frames: output.directory,
            timelineFolder: (file as NSString).deletingLastPathComponent,
            absolute: arguments[Self.absoluteURLs])
        let sound: OTIOTimeline.SoundClips?
        do {
            sound = try soundClips(output, timeline: file, terminal: terminal)
        } catch {
            return .reporting(error, to: terminal)
        }
        do {
            let timeline = try OTIOTimeline.build(
                output, targetURLBase: base,
                allowMissing: arguments[Self.allowMissing], sound: sound)
            try OTIOTimeline.write(timeline, to: file)
        } catch {
            return .reporting(error, to: terminal)
        }
        terminal.print("\(output.jobName): OpenTimelineIO timeline written")
        terminal.print("  timeline: \(ShownPath.of(file))")
        terminal.print("  frames:   \(base)\(output.sequence.namePrefix)…\(output.sequence.nameSuffix)")
        if let sound { terminal.print("  mix:      \(sound.mixURL)") }
        return .ok
    }

    /// With a job whose `audio` is heard: the mix written beside the timeline (`<name>.mix.wav`),
    /// and the clips of the mix and the music.
    private func soundClips(_ output: RenderedOutput, timeline: String, terminal: Terminal) throws(EncodeError)
        -> OTIOTimeline.SoundClips?
    {
        guard !arguments[Self.noAudio] else { return nil }
        let (track, note) = try SoundTrack.mix(
            for: output, checkedBy: CommonOptions.catalog(arguments),
            ffmpeg: try FFmpeg.locate(environment: arguments.environment))
        if let note { terminal.note("renderfarm: warning: \(output.jobName): \(note)") }
        guard let track else { return nil }
        let folder = (timeline as NSString).deletingLastPathComponent
        let mix = (timeline as NSString).deletingPathExtension + ".mix.wav"
        // Its folder is made as the timeline's is (a failure shows as the mix's write error, 73).
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try track.write(to: mix)
        let absolute = arguments[Self.absoluteURLs]
        return OTIOTimeline.SoundClips(
            mixURL: OTIOTimeline.url(of: mix, timelineFolder: folder, absolute: absolute), track: track,
            musicURL: track.music.map { OTIOTimeline.url(of: $0.file, timelineFolder: folder, absolute: absolute) })
    }

    private func fileName(_ name: String) -> String {
        let safe = String(name.map { $0.isLetter || $0.isNumber || "-_.".contains($0) ? $0 : "_" })
        return safe.isEmpty || safe.hasPrefix(".") ? "timeline" : safe
    }
}
