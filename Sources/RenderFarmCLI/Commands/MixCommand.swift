import Foundation
import RenderFarm
import RenderFarmJobs
import RenderFarmMedia
import RenderFarmOutput
import RenderFarmSound

/// `renderfarm mix JOB|OUTDIR -o FILE`: a job's audio mix alone, as the videos carry it.
struct MixCommand: Command {
    static let spec = CommandSpec(
        name: "mix",
        abstract: "Write a job's sound mix (music bed, sounds, clips' sound) as a WAV file for editors.",
        synopsis: "mix JOB|OUTDIR",
        examples: [
            "renderfarm mix jobs/stream-replay.json -o stream-replay.wav",
            "renderfarm mix jobs/out/stream-replay -o part.wav",
        ],
        discussion: """
            Mixes the job's `audio` section and the sound of the clips its video layers play (see the Sound
            article) as `render --video` and `encode` do: 16-bit PCM stereo at 48 kHz, every sound starting
            at sample round(t × 48000), the same bytes on every run. For a job file the mix covers the
            frames `render JOB --video` renders (the job's `frames`, every frame by default; the whole job
            when they are not evenly spaced); for a rendered folder it covers the time span of the frames
            the folder holds (a shard's, a --frames render's), from the job file its manifest names, so it
            equals the sound track `renderfarm encode OUTDIR` muxes (bit for bit beside prores4444, which
            keeps it as PCM). Sound files are read from the job's folder (WAV, FLAC, MP3, Ogg/Opus) and
            decoded with ffmpeg, as are the clips' audio streams. The file is written atomically; its inputs
            and their sha256 are printed. The job is checked first as `validate` checks it (its layers by
            their plugins), so a job `render` would refuse is not mixed. Exit codes: 0 ok, 64 usage, 65
            invalid job, a job with nothing to mix, or a sound file, clip or event log that cannot be used
            (each problem located in the job), 66 missing job, folder or manifest, 69 ffmpeg missing, 73
            cannot create output, 74 I/O error.
            """,
        options: [output, CommonOptions.pluginPath],
        positionals: 1...1)

    static let output = Option(
        "-o", "--output", value: "FILE", help: "Write the mix here (a WAV file; required).", required: true)

    let arguments: ParsedArguments
    let target: String

    init(_ arguments: ParsedArguments) throws(UsageError) {
        self.arguments = arguments
        guard let output = arguments[Self.output] else {
            throw UsageError(message: "-o FILE is required (the WAV file to write)", command: "mix")
        }
        target = URL(fileURLWithPath: output).standardizedFileURL.path
    }

    func run(_ terminal: Terminal) -> ExitCode {
        let source = arguments.positionals[0]
        var isFolder: ObjCBool = false
        let folder = FileManager.default.fileExists(atPath: source, isDirectory: &isFolder) && isFolder.boolValue
        let track: SoundTrack?
        let name: String
        do {
            let ffmpeg = try FFmpeg.locate(environment: arguments.environment)
            if folder {
                let output = try OutputFolder(source).rendered()
                name = output.jobName
                let (mixed, note) = try SoundTrack.mix(
                    for: output, checkedBy: CommonOptions.catalog(arguments), ffmpeg: ffmpeg)
                if let note {
                    return .reporting(CommandRefusal.soundSourceMissing(job: name, reason: note), to: terminal)
                }
                track = mixed
            } else {
                let job = try JobLoader.load(source)
                name = job.spec.name
                track = try SoundTrack.mix(of: job, checkedBy: CommonOptions.catalog(arguments), ffmpeg: ffmpeg)
            }
        } catch {
            return .reporting(error, to: terminal)
        }
        guard let track else {
            return .reporting(CommandRefusal.noAudio(job: name), to: terminal)
        }
        do {
            try track.write(to: target)
        } catch {
            return .reporting(error, to: terminal)
        }
        let seconds = Double(track.span.count) / Double(SoundMixer.rate)
        terminal.print("\(name): \(String(format: "%.3f", seconds)) s of sound mixed")
        terminal.print("  mix:    \(ShownPath.of(target))")
        EncodeCommand.printSound(track.inputs, terminal: terminal)
        return .ok
    }
}
