import FileInput
import FileOutput
import Foundation
import Locking
import RenderFarmJobs
import RenderFarmMedia
import RenderFarmOutput

/// A sound file a job names, read like every input (confined to the job's folder, a regular file,
/// at most `maxBytes`), hashed, and decoded by ffmpeg from those same bytes on its standard input
/// to 32-bit float stereo at the mix rate. WAV, FLAC, MP3 and Ogg (Vorbis, Opus) decode this way.
package struct SoundFile {
    /// The largest sound file read.
    package static let maxBytes = 256 << 20

    /// As the job wrote it.
    package var name: String
    /// Relative to the job's folder when inside it (always, as it is confined), for the manifest.
    package var shown: String
    /// Absolute, links resolved.
    package var path: String
    package var sha256: String
    /// Interleaved stereo at `SoundMixer.rate`, at most the `seconds` asked for.
    package var samples: [Float]

    /// What `render --video` would refuse in the files of `audio` before it decodes any, located in the job:
    /// a music or sound file not in the job's folder, not a regular file or too large (it is opened, not read),
    /// and an event log that does not read. For `validate` and the studio, which decode nothing.
    package static func issues(of audio: AudioSpec, jobDirectory: String) -> [JobIssue] {
        let named =
            (audio.music.map { [("audio.music.file", $0.file)] } ?? [])
            + audio.sounds.enumerated().map { ("audio.sounds[\($0)].file", $1.file) }
        var issues = named.compactMap { path, name in
            check(name, jobDirectory: jobDirectory).map { JobIssue(path: path, $0.message) }
        }
        for (index, sound) in audio.sounds.enumerated() {
            guard case .events(let value) = sound.times else { continue }
            if case .failure(let problems) = SoundEvents.resolve(
                value, path: "audio.sounds[\(index)].events", jobDirectory: jobDirectory)
            {
                issues += problems.issues
            }
        }
        return issues
    }

    /// Why `name` (relative to `jobDirectory`) cannot be loaded as a sound file, found without reading it; nil
    /// when it can be opened.
    static func check(_ name: String, jobDirectory: String) -> DataProblem? {
        switch open(name, jobDirectory: jobDirectory) {
        case .failure(let problem): problem
        case .success(let opened):
            opened.file.size <= maxBytes
                ? nil
                : DataProblem(
                    InputFileError.tooLarge(path: name, bytes: opened.file.size, limit: maxBytes).message(naming: name))
        }
    }

    /// `name` resolved in the job's folder (`ConfinedPath`) and opened as a regular file, unread: the way in of
    /// every sound file, for `check` and `load`.
    private static func open(_ name: String, jobDirectory: String) -> Result<
        (file: InputFile, path: String), DataProblem
    > {
        let resolved: String
        do {
            resolved = try ConfinedPath.resolve(name, in: jobDirectory)
        } catch {
            return .failure(DataProblem(error.description))
        }
        do {
            return .success((try InputFile(resolved, followLastLink: false), resolved))
        } catch {
            return .failure(DataProblem(error.message(naming: name)))
        }
    }

    /// `load` of each file named (a file named twice is decoded once, for the longer time), all at once.
    package static func load(_ requests: [(name: String, seconds: Double)], jobDirectory: String, ffmpeg: FFmpeg)
        -> [String: Result<SoundFile, DataProblem>]
    {
        var longest: [String: Double] = [:]
        for request in requests { longest[request.name] = max(longest[request.name] ?? 0, request.seconds) }
        let names = longest.sorted { $0.key < $1.key }
        let loaded = Locked([String: Result<SoundFile, DataProblem>]())
        DispatchQueue.concurrentPerform(iterations: names.count) { index in
            let (name, seconds) = names[index]
            let file = load(name, jobDirectory: jobDirectory, seconds: seconds, ffmpeg: ffmpeg)
            loaded.withLock { $0[name] = file }
        }
        return loaded.withLock { $0 }
    }

    /// Reads and decodes `name` (relative to `jobDirectory`); at most `seconds` of it are decoded.
    /// A problem is one line naming the file, for a job issue at `path`.
    package static func load(_ name: String, jobDirectory: String, seconds: Double, ffmpeg: FFmpeg) -> Result<
        SoundFile, DataProblem
    > {
        let opened: (file: InputFile, path: String)
        switch open(name, jobDirectory: jobDirectory) {
        case .failure(let problem): return .failure(problem)
        case .success(let file): opened = file
        }
        let resolved = opened.path
        let bytes: [UInt8]
        do {
            bytes = try opened.file.readAll(limit: maxBytes)
        } catch {
            return .failure(DataProblem(error.message(naming: name)))
        }
        let folder = (try? ConfinedPath.resolve(".", in: jobDirectory)) ?? jobDirectory
        let prefix = folder.hasSuffix("/") ? folder : folder + "/"
        let shown = resolved.hasPrefix(prefix) ? String(resolved.dropFirst(prefix.count)) : resolved
        let sha256 = bytes.withUnsafeBytes { SHA256.hex($0) }
        let key = DecodedSounds.Key(sha256: sha256, seconds: seconds, ffmpeg: ffmpeg.executable)
        switch DecodedSounds.samples(key, decode: { decode(bytes, seconds: seconds, ffmpeg: ffmpeg) }) {
        case .success(let samples):
            return .success(SoundFile(name: name, shown: shown, path: resolved, sha256: sha256, samples: samples))
        case .failure(let reason):
            return .failure(
                DataProblem("\(name) cannot be decoded as sound (WAV, FLAC, MP3, Ogg/Opus): \(reason.message)"))
        }
    }

    /// ffmpeg's decoding of `bytes`: resampled to the mix rate, stereo, float, at most `seconds`.
    private static func decode(_ bytes: [UInt8], seconds: Double, ffmpeg: FFmpeg) -> Result<[Float], DataProblem> {
        let decoded = decode(
            input: ["-i", "pipe:0"], stream: "0:a:0", filters: "aresample=\(SoundMixer.rate)",
            rate: SoundMixer.rate, output: ["-t", String(format: "%.6f", seconds)], feeding: bytes,
            limit: (Int(seconds.rounded(.up)) + 1) * SoundMixer.rate * SoundMixer.channels * 4, ffmpeg: ffmpeg)
        return decoded.flatMap { samples in
            samples.isEmpty ? .failure(DataProblem("it holds no sound")) : .success(samples)
        }
    }

    /// One audio `stream` of an ffmpeg `input`, through `filters` and then to interleaved 32-bit float
    /// stereo at `rate`, with `output` options; `feeding` is sent to ffmpeg's standard input, or `file` is
    /// its standard input; at most `limit` bytes are read back. A problem is ffmpeg's last error lines, or the
    /// first when it went on: ffmpeg decodes past a damaged packet (a gap in the sound) and past damage a
    /// demuxer skips, saying so at the error level and exiting 0, and such a sound is refused too.
    package static func decode(
        input: [String], stream: String, filters: String, rate: Int, output: [String] = [], feeding: [UInt8]? = nil,
        reading file: InputFile? = nil, limit: Int, ffmpeg: FFmpeg
    ) -> Result<[Float], DataProblem> {
        let scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("renderfarm-sound-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).f32").path
        defer { unlink(scratch) }
        let format = "aformat=sample_fmts=flt:sample_rates=\(rate):channel_layouts=stereo"
        let command = FFmpegCommand(
            arguments: ["-hide_banner", "-loglevel", "error", "-nostats", "-y"] + input
                + ["-map", stream, "-af", filters + "," + format] + output + ["-f", "f32le", scratch])
        let process: FFmpegProcess
        do {
            process = try ffmpeg.start(command, in: "/", feedsInput: feeding != nil, reading: file)
        } catch {
            return .failure(DataProblem(error.description))
        }
        // ffmpeg writes to a file, so it never waits on us while we send: no deadlock. It stops
        // reading once it has what it needs (the send then fails): only its own status counts.
        if let feeding { _ = feeding.withUnsafeBytes { process.input?.send($0) } }
        let ending = process.wait()
        let errors = FFmpegLog.messages(in: ending.log)
        guard ending.succeeded else {
            let lines = errors.suffix(3)
            return .failure(
                DataProblem(lines.isEmpty ? "ffmpeg exited \(ending.status)" : lines.joined(separator: "; ")))
        }
        guard errors.isEmpty else {
            let said = errors.prefix(2).map { $0.hasSuffix(".") ? String($0.dropLast()) : $0 }
            return .failure(DataProblem("it is damaged: " + said.joined(separator: "; ")))
        }
        let raw: [UInt8]
        do {
            raw = try InputFile.read(scratch, limit: limit)
        } catch {
            return .failure(DataProblem(error.reason))
        }
        var samples = [Float](repeating: 0, count: raw.count / 8 * 2)
        samples.withUnsafeMutableBytes { target in
            raw.withUnsafeBytes { source in
                target.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[..<target.count]))
            }
        }
        return .success(samples.map { $0.isFinite ? $0 : 0 })
    }
}
