import Foundation
import RenderFarm
import RenderFarmJobs
import RenderFarmOutput

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
            """,
        options: [output, absoluteURLs, allowMissing],
        positionals: 1...1)

    static let output = Option(
        "-o", "--output", value: "FILE", help: "Write the timeline here (default: OUTDIR/<job>.otio).")
    static let absoluteURLs = Flag("--absolute-urls", help: "Point at the frames with a file:// URL.")
    static let allowMissing = Flag("--allow-missing", help: "Export an incomplete render (missing_frame_policy hold).")

    let arguments: ParsedArguments

    init(_ arguments: ParsedArguments) throws(UsageError) {
        self.arguments = arguments
    }

    func run(_ terminal: Terminal) -> ExitCode {
        let output: RenderedOutput
        do {
            output = try RenderedOutput.load(directory: arguments.positionals[0])
        } catch {
            terminal.error(error.description)
            return ExitCode(error)
        }
        let file =
            arguments[Self.output].map { URL(fileURLWithPath: $0).standardizedFileURL.path }
            ?? (output.directory as NSString).appendingPathComponent(fileName(output.jobName) + ".otio")
        let base = OTIOTimeline.targetURLBase(
            frames: output.directory,
            timelineFolder: (file as NSString).deletingLastPathComponent,
            absolute: arguments[Self.absoluteURLs])
        do {
            let timeline = try OTIOTimeline.build(
                output, targetURLBase: base,
                allowMissing: arguments[Self.allowMissing])
            try OTIOTimeline.write(timeline, to: file)
        } catch {
            terminal.error(error.description)
            return ExitCode(error)
        }
        terminal.print("\(output.jobName): OpenTimelineIO timeline written")
        terminal.print("  timeline: \(ShownPath.of(file))")
        terminal.print("  frames:   \(base)\(output.sequence.namePrefix)…\(output.sequence.nameSuffix)")
        return .ok
    }

    private func fileName(_ name: String) -> String {
        let safe = String(name.map { $0.isLetter || $0.isNumber || "-_.".contains($0) ? $0 : "_" })
        return safe.isEmpty || safe.hasPrefix(".") ? "timeline" : safe
    }
}
