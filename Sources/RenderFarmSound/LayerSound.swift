import FileInput
import Foundation
import RenderFarmJobs
import RenderFarmMedia
import RenderFarmOutput

/// The sound layers play (ABI `sounds`, <doc:Sound>): each source a plugin declared, its audio stream decoded
/// by ffmpeg and heard where the layer's time (its groups', `start`, `speed`, `loop`) and the source's own time
/// map put it, at the source's gain plus the layer's `gain`, unless the layer or a group holding it is `muted`.
/// Which plugin declared it does not matter.
package struct LayerSound {
    /// How the video's provenance lists it: `layers[0]`, the file and its hash.
    package var input: SoundInput
    package var track: SoundMixer.Played

    /// The sound `sounds` declares for `job`'s layers (by layer index) over job samples `span`, in layer order.
    /// A muted layer, or one not heard in `span`, has none; a problem is a job issue located at the layer.
    package static func load(
        _ job: JobSpec, sounds: [Int: [DeclaredSound]], jobDirectory: String, span: Range<Int>, ffmpeg: FFmpeg
    ) throws(EncodeError) -> (sounds: [LayerSound], issues: [JobIssue]) {
        let heard = SoundMixer.between(span.lowerBound, min(span.upperBound, SoundMixer.sample(at: job.duration)))
        let clocks = job.clocks
        var loaded: [LayerSound] = []
        var issues: [JobIssue] = []
        for index in sounds.keys.sorted() where job.layers.indices.contains(index) && !clocks[index].muted {
            // A layer whose own time first reaches 0 after the mix ends is not heard in it: it adds nothing, and
            // is not held to the mix's length limit.
            guard clocks[index].start * Double(SoundMixer.rate) < Double(heard.upperBound) else { continue }
            for sound in sounds[index] ?? [] {
                let source = Source(sound: sound, layer: job.layers[index].path, clock: clocks[index])
                let folder = job.layers[index].directory(in: jobDirectory)
                switch try source.load(
                    index: index, heard: heard, jobDirectory: jobDirectory, folder: folder, ffmpeg: ffmpeg)
                {
                case .success(let played?): loaded.append(played)
                case .success(nil): break
                case .failure(let issue): issues.append(issue)
                }
            }
        }
        return (loaded, issues)
    }

    /// One declared source of one layer.
    private struct Source {
        var sound: DeclaredSound
        /// `layers[0]`: where the layer is in the job.
        var layer: String
        var clock: LayerClock

        func issue(_ message: String) -> JobIssue { JobIssue(path: layer, message) }

        /// The file's sound where the layer plays it inside `heard`; nil when it plays none there.
        /// `folder`: where the layer's relative paths resolve (`LayerSpec.directory(in:)`).
        func load(index: Int, heard: Range<Int>, jobDirectory: String, folder: String, ffmpeg: FFmpeg)
            throws(EncodeError)
            -> Result<LayerSound?, JobIssue>
        {
            guard
                let hashed = LayerInput.hashing(
                    [sound.file], layer: index, reader: .plugin, jobDirectory: jobDirectory, folder: folder
                )
                .first, let absolute = hashed.read?.path
            else { return .success(nil) }
            // As the manifest lists it: relative to the job's folder when inside it.
            let name = hashed.file
            let mixRate = Double(SoundMixer.rate)
            let (sound, clock) = (sound, clock)
            let time: (Int) -> Double? = { sample in
                clock.localTime(at: Double(sample) / mixRate).flatMap(sound.sourceTime)
            }
            guard Double(heard.count) <= AudioSpec.Limits.maxMixSeconds * mixRate else {
                let seconds = Int((Double(heard.count) / mixRate).rounded(.up))
                return .failure(
                    issue(
                        "\(name) has sound, which joins the video's mix, and a mix holds at most "
                            + "\(Int(AudioSpec.Limits.maxMixSeconds)) s (this one \(seconds) s): set \"muted\": true "
                            + "on the layer, or make the video with --no-audio"))
            }
            var played: ClosedRange<Double>?
            for sample in heard {
                guard let at = time(sample) else { continue }
                played = played.map { min($0.lowerBound, at)...max($0.upperBound, at) } ?? at...at
            }
            guard let played else { return .success(nil) }
            // Opened here, without blocking and only if a regular file; ffmpeg reads this open file as its
            // standard input, so a file swapped in since is never read.
            let file: InputFile
            do {
                file = try InputFile(absolute)
            } catch {
                return .failure(issue(error.message(naming: name)))
            }
            // Played faster, the file is resampled to fewer samples per second first (ffmpeg's band-limited
            // resampler), so that the samples read one after another do not alias.
            let playback = clock.speed * sound.speed
            let rate = playback > 1 ? max(1, Int((mixRate / playback).rounded())) : SoundMixer.rate
            let from = max(0, Int((played.lowerBound * Double(rate)).rounded(.down)) - 1)
            let to = Int((played.upperBound * Double(rate)).rounded(.up)) + 2
            // With the file's timestamps kept (-copyts), silence is put before a sound that starts after 0 s and
            // into gaps, so that sample k of the stream is at k / rate seconds of the file's timeline.
            let filters =
                "aresample=\(rate):min_comp=0.001:min_hard_comp=0.001:first_pts=0,"
                + "atrim=start_sample=\(from):end_sample=\(to)"
            let decoded = SoundFile.decode(
                input: ["-copyts", "-i", "file:/dev/stdin"], stream: sound.stream.map { "0:\($0)" } ?? "0:a:0",
                filters: filters, rate: rate, reading: file, limit: (to - from + 1) * SoundMixer.channels * 4,
                ffmpeg: ffmpeg)
            let samples: [Float]
            switch decoded {
            case .success(let found): samples = found
            case .failure(let problem):
                return .failure(issue("\(name): its sound cannot be decoded: \(problem.message)"))
            }
            let gain = SoundMixer.linear(sound.gain + clock.gain)
            return .success(
                LayerSound(
                    input: SoundInput(use: layer, file: hashed.file, sha256: hashed.sha256),
                    track: SoundMixer.Played(samples: samples, first: from, rate: Double(rate), gain: gain, time: time)
                ))
        }
    }
}
