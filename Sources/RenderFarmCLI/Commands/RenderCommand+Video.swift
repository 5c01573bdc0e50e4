import Foundation
import Locking
import RenderFarm
import RenderFarmJobs
import RenderFarmMedia

/// `render --scale` and `render --video FILE`: frames piped to ffmpeg instead of written as PNGs.
extension RenderCommand {
    static let scale = Option(
        CommonOptions.planOptionNames.scale, value: "S",
        help: "Replace the canvas scale (pixels per point), e.g. 0.5 for quick checks.")

    /// `--scale S` as a number (its range is checked against each job's canvas when preparing).
    static func parseScale(_ arguments: ParsedArguments, command: String) throws(UsageError) -> Double? {
        guard let text = arguments[scale] else { return nil }
        guard let scale = Double(text), PlanOptions.acceptsScale(scale) else {
            throw UsageError(
                message: "--scale expects a number in (0, \(Int(JobDecoder.Limits.maxScale))], got \"\(text)\"",
                command: command)
        }
        return scale
    }

    /// `--preset`, `--crf` and `--verbose` only make sense with `--video`; `--video` renders each whole job into
    /// its file (a file with placeholders is checked once filled, per job).
    static func checkVideoOptions(_ arguments: ParsedArguments) throws(UsageError) {
        let template = arguments[video].map(FileNameTemplate.init)
        _ = try EncodeCommand.presetAndCRF(
            arguments, command: "render", output: template?.hasPlaceholders == true ? nil : arguments[video])
        guard arguments[video] != nil else {
            if arguments[EncodeCommand.noAudio] {
                throw UsageError(message: "--no-audio needs --video FILE", command: "render")
            }
            for option in [EncodeCommand.preset, EncodeCommand.crf] where arguments[option] != nil {
                throw UsageError(
                    message: "\(option.spec.primaryName) needs --video FILE (or use `renderfarm encode`)",
                    command: "render")
            }
            if arguments[verbose] {
                throw UsageError(message: "--verbose needs --video FILE", command: "render")
            }
            return
        }
        for option in [shard, out, outputRoot] where arguments[option] != nil {
            throw UsageError(
                message: "\(option.spec.primaryName) cannot be combined with --video (one job, one video file)",
                command: "render")
        }
        for flag in [force, failFast] where arguments[flag] {
            throw UsageError(
                message: "\(flag.spec.primaryName) cannot be combined with --video (it always renders every frame, "
                    + "and stops at the first frame that fails)", command: "render")
        }
    }

    /// Renders each job into its video: `template` names one file, or one per job with placeholders. Every file's
    /// name and format are checked before the first is rendered; the first that fails stops the rest.
    func renderVideo(_ jobs: [PlannedJob], to template: String, concurrency: Int, terminal: Terminal) -> ExitCode {
        var targets: [(job: PlannedJob, file: String, preset: EncodePreset, crf: Int?)] = []
        do {
            let names = FileNameTemplate(text: template)
            let files = try names.files(
                for: jobs.map { FileNameTemplate.Fields($0.job) }, option: "--video", example: "videos/{{variant}}.mp4",
                command: "render")
            for (job, file) in zip(jobs, files) {
                let (preset, crf) = try EncodeCommand.presetAndCRF(arguments, command: "render", output: file)
                targets.append((job, file, preset, crf))
            }
            try names.makeFolders(for: files)
        } catch {
            return .reporting(error, to: terminal)
        }
        return .each(targets) { target in
            renderVideo(
                target.job, to: target.file, preset: target.preset, crf: target.crf, concurrency: concurrency,
                terminal: terminal)
        }
    }

    private func renderVideo(
        _ job: PlannedJob, to path: String, preset: EncodePreset, crf: Int?, concurrency: Int, terminal: Terminal
    ) -> ExitCode {
        let stop = StopSignal()
        let signals = SignalHandling(stop: stop, terminal: terminal)
        defer { signals.cancel() }
        let reporter = ProgressReporter(terminal: terminal, mode: progress)
        do {
            let ffmpeg = try FFmpeg.locate(environment: arguments.environment)
            var options = VideoOptions(preset: preset, crf: crf, output: path, concurrency: concurrency, stop: stop)
            options.withSound = !arguments[EncodeCommand.noAudio]
            let result = try VideoSession.render(job, options: options, ffmpeg: ffmpeg, observer: reporter)
            if arguments[Self.verbose] { terminal.note(result.command) }
            guard let file = result.file else {
                terminal.error("interrupted after \(result.frames) frames; no video written")
                return .interrupted
            }
            let rate = result.elapsed > 0 ? String(format: "%.1f", Double(result.frames) / result.elapsed) : "-"
            EncodeCommand.printVideo(
                "\(job.job.spec.name): \(result.frames) frames rendered into \(preset.rawValue) "
                    + "(\(String(format: "%.2f", result.elapsed)) s, \(rate) fps, at most \(result.peakBufferedFrames) "
                    + "frames buffered)", file: file, bytes: result.bytes, sha256: result.sha256,
                layout: result.layout, config: result.configFile, terminal: terminal)
            EncodeCommand.printSound(result.soundInputs, terminal: terminal)
            return .ok
        } catch {
            reporter.clearLine()
            return .reporting(error, to: terminal)
        }
    }
}
