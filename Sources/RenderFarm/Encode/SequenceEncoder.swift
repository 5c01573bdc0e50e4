import FileInput
import FileOutput
import Foundation
import Locking
import RenderFarmJobs
import RenderFarmMedia
import RenderFarmOutput
import RenderFarmSound

/// What `renderfarm encode` asks for.
package struct EncodeOptions: Sendable {
    package var preset: EncodePreset
    /// `--crf`; nil for the preset's default.
    package var crf: Int?
    /// `-o`: the video file; nil for `<job name>.<extension>` in the output folder.
    package var output: String?
    /// Encode the frames that exist even when the render is incomplete.
    package var allowMissing: Bool
    /// Set (by SIGINT or SIGTERM) to stop: ffmpeg is stopped and nothing is written.
    package var stop: StopSignal
    /// Whether the job's `audio` is mixed into the video (`--no-audio` clears it).
    package var withSound = true
    /// The plugins the job's layers are checked by, and say what sound they play, before its sound is mixed
    /// (`SoundTrack.mix(for:)`); without them no sound is mixed.
    package var plugins: PluginCatalog?
    /// Told each ffmpeg command line just before it runs, and the folder it runs in (`encode --verbose`): as the
    /// manifest records it, naming the final video, `palette.png` and the sound mix as `mix.wav`.
    package var announce: (@Sendable (_ commandLine: String, _ folder: String) -> Void)? = nil

    package init(
        preset: EncodePreset, crf: Int? = nil, output: String? = nil, allowMissing: Bool = false,
        stop: StopSignal = StopSignal()
    ) {
        self.preset = preset
        self.crf = crf
        self.output = output
        self.allowMissing = allowMissing
        self.stop = stop
    }
}

/// A finished encode.
package struct EncodeResult: Sendable {
    /// Absolute path of the video.
    package var file: String
    package var sha256: String
    package var bytes: Int
    /// The ffmpeg command lines, in order, as they run in the output folder.
    package var commands: [String]
    /// Frames in the video.
    package var frames: Int
    /// alpha-packed: where colour and alpha sit in each frame, and the VAP config written beside the video.
    package var layout: AlphaPackedLayout? = nil
    package var configFile: String? = nil
    /// The files the sound track was mixed from; empty without one.
    package var soundInputs: [SoundInput] = []
    /// Why the video has no sound although it could have (the job file cannot be read).
    package var soundNote: String? = nil
}

/// Encodes a rendered PNG sequence with ffmpeg, driven by the folder's manifest: the rate, start
/// number and file pattern come from its `sequence` fields.
package enum SequenceEncoder {
    /// The plan and the input ffmpeg reads for `output`, checked against the files on disk.
    package static func plan(_ output: RenderedOutput, options: EncodeOptions) throws(EncodeError)
        -> (EncodePlan, EncodeInput)
    {
        if !output.complete && !options.allowMissing {
            throw .incomplete(directory: output.directory, missing: output.missing.isEmpty ? "?" : output.missing)
        }
        let frames = output.writtenFrames
        guard !frames.isEmpty else {
            throw .unusableSequence(directory: output.directory, reason: "the manifest lists no written frames")
        }
        // ffmpeg opens the frames itself: anything but a regular file (a named pipe would block it) is
        // refused here, through the same reader as every other input.
        for frame in frames {
            do {
                try InputFile.check(output.path(of: frame))
            } catch {
                let reason = if case .missing = error { "is listed in the manifest but missing" } else { error.reason }
                throw .unusableSequence(
                    directory: output.directory, reason: "\(frame.file) \(reason); render the job again")
            }
        }
        let sequence = output.sequence
        let plan = EncodePlan(
            preset: options.preset, crf: options.crf, width: output.width, height: output.height,
            rate: sequence.rate / Double(sequence.frameStep), background: output.background,
            frameCount: frames.count)
        try plan.checkSupported()
        // Presets with an encoder format get the frames as `render --video` sends them.
        let format = plan.pipeFormat
        if format.isEncoderFormat { return (plan, .pipe(format)) }
        // A contiguous sequence is read with the image2 pattern; any other with a glob, which
        // must then match exactly the manifest's files.
        if sequence.frameStep == 1 && output.complete && output.isEvenlySpaced {
            let prefix = sequence.namePrefix.replacingOccurrences(of: "%", with: "%%")
            let suffix = sequence.nameSuffix.replacingOccurrences(of: "%", with: "%%")
            return (plan, .pattern("\(prefix)%0\(sequence.zeroPadding)d\(suffix)", start: frames[0].index))
        }
        let glob = escapeGlob(sequence.namePrefix) + "*" + escapeGlob(sequence.nameSuffix)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: output.directory)) ?? []
        let matching = Set(names.filter { $0.hasPrefix(sequence.namePrefix) && $0.hasSuffix(sequence.nameSuffix) })
        let extra = matching.subtracting(frames.map(\.file)).sorted()
        guard extra.isEmpty else {
            throw .unusableSequence(
                directory: output.directory,
                reason: "\(extra.count) file(s) match \(glob) but are not frames of this render (e.g. \(extra[0])); "
                    + "move them away or render into a clean folder")
        }
        return (plan, .glob(glob))
    }

    /// Runs the encode; `progress` gets (frames done, frames in the video). Throws `.interrupted`
    /// once `options.stop` is set, with ffmpeg stopped and no file left.
    package static func encode(
        _ output: RenderedOutput, options: EncodeOptions, ffmpeg: FFmpeg,
        progress: @escaping @Sendable (Int, Int) -> Void
    ) throws(EncodeError) -> EncodeResult {
        var (plan, input) = try plan(output, options: options)
        var (track, soundNote): (SoundTrack?, String?) = (nil, nil)
        if options.withSound, plan.preset.carriesSound, let plugins = options.plugins {
            (track, soundNote) = try SoundTrack.mix(for: output, checkedBy: plugins, ffmpeg: ffmpeg)
        }
        let target =
            options.output.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
            ?? (output.directory as NSString).appendingPathComponent(
                safeName(output.jobName) + options.preset.nameSuffix + "."
                    + options.preset.fileExtension)
        let mix = try track?.stage(beside: target)
        plan.sound = mix?.temporaryPath
        defer { withExtendedLifetime(mix) {} }
        if case .pipe(let format) = input {
            var result = try encodePiped(
                output, plan: plan, format: format, target: target, ffmpeg: ffmpeg, stop: options.stop,
                announce: options.announce, progress: progress)
            (result.soundInputs, result.soundNote) = (track?.inputs ?? [], soundNote)
            return result
        }
        let folder = (target as NSString).deletingLastPathComponent
        let staged = StagedFile(target)
        let temporary = staged.temporaryPath
        // Scratch: never committed, removed when the encode ends either way.
        let scratchPalette = StagedFile((folder as NSString).appendingPathComponent("palette.png"))
        let palette = scratchPalette.temporaryPath
        guard FileManager.default.isWritableFile(atPath: folder) else {
            throw .output(.cannotCreate(path: target, reason: "folder \(folder) is missing or not writable"))
        }
        try ffmpeg.checkEncoder(for: options.preset)
        let commands = plan.commands(input: input, output: temporary, palette: palette)
        // The lines as they are told and recorded: they name the final file, so they can be run again as written.
        let shown = commands.map { plan.shownLine($0, temporary: temporary, target: target, palette: palette) }
        var done = 0
        for (pass, command) in commands.enumerated() {
            options.announce?(shown[pass], output.directory)
            // Only the last pass writes frames; the palette pass shows as the start of the bar.
            do {
                try ffmpeg.run(command, in: output.directory, output: target, stop: options.stop) { frame in
                    guard pass == commands.count - 1 else { return }
                    done = min(frame, plan.outputFrameCount)
                    progress(done, plan.outputFrameCount)
                }
            } catch {
                // Stopped ffmpeg exits with an error of its own; the signal is the reason.
                if options.stop.isStopped { throw .interrupted(frames: done) }
                throw error
            }
            if options.stop.isStopped { throw .interrupted(frames: done) }
        }
        let config = try EncodedVideo.publish(staged, plan: plan, ffmpeg: ffmpeg)
        withExtendedLifetime(scratchPalette) {}
        let (sha256, bytes) = EncodedVideo.checksum(of: target)
        return EncodeResult(
            file: target, sha256: sha256, bytes: bytes, commands: shown,
            frames: plan.outputFrameCount, layout: config == nil ? nil : plan.alphaPackedLayout, configFile: config,
            soundInputs: track?.inputs ?? [], soundNote: soundNote)
    }

    /// The frames read from their PNGs, composited and converted by RenderFarm's workers (as
    /// `render --video` does), and sent to ffmpeg, which only encodes.
    private static func encodePiped(
        _ output: RenderedOutput, plan: EncodePlan, format: PipeFormat, target: String, ffmpeg: FFmpeg,
        stop: StopSignal, announce: (@Sendable (String, String) -> Void)?,
        progress: @escaping @Sendable (Int, Int) -> Void
    ) throws(EncodeError) -> EncodeResult {
        let files = output.writtenFrames.map { output.path(of: $0) }
        let matte = format.isComposited ? plan.matteColor : nil
        let (width, height, total) = (plan.width, plan.height, plan.frameCount)
        var encode = PipedEncode(
            name: output.jobName, plan: plan, target: target, ffmpeg: ffmpeg,
            feed: VideoFeed(
                format: format, concurrency: ProcessInfo.processInfo.activeProcessorCount, stop: stop))
        encode.announce = announce
        let produced = try encode.run(
            makeSource: { PNGFrameReader(matte: matte, width: width, height: height) },
            frame: { reader, position in reader.read(files[position]) },
            finished: { _, _, done in progress(done, total) })
        guard let file = produced.file else { throw .interrupted(frames: produced.frames) }
        let (sha256, bytes) = EncodedVideo.checksum(of: file)
        return EncodeResult(
            file: file, sha256: sha256, bytes: bytes, commands: [produced.command], frames: produced.frames,
            layout: produced.configFile == nil ? nil : plan.alphaPackedLayout, configFile: produced.configFile)
    }

    /// A job name as a file name: anything a shell or a path would interpret replaced.
    static func safeName(_ name: String) -> String {
        let safe = String(name.map { $0.isLetter || $0.isNumber || "-_.".contains($0) ? $0 : "_" })
        return safe.isEmpty || safe.hasPrefix("-") || safe.hasPrefix(".") ? "video" : safe
    }

    static func escapeGlob(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if "*?[]{}\\".contains(character) { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }
}
