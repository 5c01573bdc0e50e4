import FileOutput
import Foundation
import RenderFarmJobs
import RenderFarmMedia
import StrictJSON

/// A file the mix was made from, for the video's provenance: where the job names it, the file
/// (relative to the job's folder) and the SHA-256 of its content.
package struct SoundInput: Sendable, Equatable {
    /// `music`, `sounds[0]`, or `sounds[0].events` for a sound's event log.
    package var use: String
    package var file: String
    package var sha256: String

    /// How the manifest's `encodes` entries list it.
    package var json: JSONValue { .object(["use": .string(use), "file": .string(file), "sha256": .string(sha256)]) }
}

/// A job's sound (its `audio` section and its clips' own sound) mixed for a span of its frames
/// (<doc:Sound>): 16-bit stereo at 48 kHz, the same samples for the same job and span on every run,
/// and a part's samples equal to the same samples of the whole.
package struct SoundTrack: Sendable {
    /// Interleaved stereo.
    package var samples: [Int16]
    package var inputs: [SoundInput]
    /// The job samples the track covers.
    package var span: Range<Int>
    /// Where the music is heard in the track, for timelines (`OTIOTimeline`); nil when not at all.
    package var music: MusicPlacement? = nil

    /// The part of the music file heard in a track: `count` samples from sample `source` of the file
    /// (at the mix rate), from sample `offset` of the track.
    package struct MusicPlacement: Sendable, Equatable {
        /// Absolute path of the music file.
        package var file: String
        package var offset: Int
        package var source: Int
        package var count: Int
    }

    /// The job samples under `count` frames from `first`, `step` apart: from frame `first`'s time to
    /// the time of frame `first + count × step`, each rounded to the nearest sample.
    package static func span(first: Int, count: Int, step: Int, fps: Double) -> Range<Int> {
        let start = SoundMixer.sample(at: Double(first) / fps)
        return start..<max(start, SoundMixer.sample(at: Double(first + count * step) / fps))
    }

    /// Mixes the `audio` section of `job` and the sound its layers play (`sounds`, by layer index: what their
    /// plugins declared) over `span`; nil when there is nothing to mix. `moments`: the layers' items' moments,
    /// which sounds may play at. Problems with its files are the job's issues, located in it (exit 65).
    package static func mix(
        _ job: JobSpec, sounds: [Int: [DeclaredSound]], moments: [Int: [DeclaredMoment]] = [:], jobFile: String,
        jobDirectory: String, span: Range<Int>, ffmpeg: FFmpeg
    ) throws(EncodeError) -> SoundTrack? {
        guard job.audio != nil || !sounds.isEmpty else { return nil }
        let audio = job.audio
        let (layerSounds, layerIssues) = try LayerSound.load(
            job, sounds: sounds, jobDirectory: jobDirectory, span: span, ffmpeg: ffmpeg)
        let jobEnd = SoundMixer.sample(at: job.duration)
        let rate = Double(SoundMixer.rate)
        var issues = layerIssues
        var inputs: [SoundInput] = []
        var bed: SoundMixer.Bed?
        var placement: MusicPlacement?
        // Every file decoded once, all at the same time; sounds need at most the job's length.
        let sounds = audio?.sounds ?? []
        let fileEnd = audio?.music.map { music in
            let heard = max(0, job.duration - music.start)
            return max(
                0.001, min(music.trimOut ?? .infinity, music.trimIn + min(heard, AudioSpec.Limits.maxMixSeconds)))
        }
        let soundSeconds = min(job.duration, AudioSpec.Limits.maxMixSeconds)
        let files = SoundFile.load(
            (audio?.music.map { [($0.file, fileEnd ?? 0)] } ?? []) + sounds.map { ($0.file, soundSeconds) },
            jobDirectory: jobDirectory, ffmpeg: ffmpeg)
        if let music = audio?.music, let fileEnd, let loaded = files[music.file] {
            switch loaded {
            case .failure(let message):
                issues.append(JobIssue(path: "audio.music.file", message.message))
            case .success(let file):
                inputs.append(SoundInput(use: "music", file: file.shown, sha256: file.sha256))
                let from = min(SoundMixer.sample(at: music.trimIn), file.samples.count / 2) * SoundMixer.channels
                let to = min(SoundMixer.sample(at: fileEnd), file.samples.count / 2) * SoundMixer.channels
                let start = SoundMixer.sample(at: music.start)
                let samples = Array(file.samples[from..<max(from, to)])
                bed = SoundMixer.Bed(
                    samples: samples, start: start, end: min(start + samples.count / SoundMixer.channels, jobEnd),
                    gain: SoundMixer.linear(music.gain), fadeIn: Int((music.fadeIn * rate).rounded()),
                    fadeOut: Int((music.fadeOut * rate).rounded()))
                let heard = SoundMixer.between(max(start, span.lowerBound), min(bed?.end ?? start, span.upperBound))
                if !heard.isEmpty {
                    placement = MusicPlacement(
                        file: file.path, offset: heard.lowerBound - span.lowerBound,
                        source: from / SoundMixer.channels + heard.lowerBound - start, count: heard.count)
                }
            }
        }
        inputs += layerSounds.map(\.input)
        var clips: [[Float]] = []
        var voices: [SoundMixer.Voice] = []
        for (index, sound) in sounds.enumerated() {
            let path = "audio.sounds[\(index)]"
            var starts: [(sample: Int, decibels: Double)] = []
            switch sound.times {
            case .at(let times):
                starts = times.map { (SoundMixer.sample(at: $0), sound.gain) }
            case .moment(let reference):
                switch MomentTimes.resolve(reference, path: path, job: job, moments: moments) {
                case .success(let times): starts = times.map { (SoundMixer.sample(at: $0), sound.gain) }
                case .failure(let issue): issues.append(issue)
                }
            case .events(let value):
                switch SoundEvents.resolve(value, path: path + ".events", jobDirectory: jobDirectory) {
                case .failure(let problems):
                    issues += problems.issues
                case .success(let (events, log)):
                    starts = events.map { (SoundMixer.sample(at: $0.time), sound.gain + $0.decibels) }
                    if let log {
                        inputs.append(SoundInput(use: "sounds[\(index)].events", file: log.name, sha256: log.sha256))
                    }
                }
            }
            guard let loaded = files[sound.file] else { continue }
            switch loaded {
            case .failure(let message):
                issues.append(JobIssue(path: path + ".file", message.message))
            case .success(let file):
                inputs.append(SoundInput(use: "sounds[\(index)]", file: file.shown, sha256: file.sha256))
                voices += SoundMixer.voices(
                    clip: clips.count, length: file.samples.count / SoundMixer.channels, starts: starts,
                    maxVoices: sound.maxVoices)
                clips.append(file.samples)
            }
        }
        guard issues.isEmpty else { throw .sound(file: jobFile, issues: issues) }
        guard audio != nil || !layerSounds.isEmpty else { return nil }
        return SoundTrack(
            samples: SoundMixer.mix(
                bed: bed, played: layerSounds.map(\.track), voices: voices, clips: clips, span: span, jobEnd: jobEnd),
            inputs: inputs, span: span, music: placement)
    }

    /// The track as a WAV file: 16-bit PCM, stereo, 48 kHz.
    package var wav: [UInt8] {
        let dataBytes = samples.count * 2
        var bytes: [UInt8] = []
        bytes.reserveCapacity(44 + dataBytes)
        func append32(_ value: Int) { withUnsafeBytes(of: UInt32(value).littleEndian) { bytes += $0 } }
        func append16(_ value: Int) { withUnsafeBytes(of: UInt16(value).littleEndian) { bytes += $0 } }
        bytes += Array("RIFF".utf8)
        append32(36 + dataBytes)
        bytes += Array("WAVEfmt ".utf8)
        append32(16)
        append16(1)  // PCM
        append16(SoundMixer.channels)
        append32(SoundMixer.rate)
        append32(SoundMixer.rate * SoundMixer.channels * 2)
        append16(SoundMixer.channels * 2)
        append16(16)
        bytes += Array("data".utf8)
        append32(dataBytes)
        // In one copy, not sample by sample (a minute's track is 5.8 million samples): WAV is little-endian.
        #if _endian(big)
            let samples = self.samples.map { $0.littleEndian }
        #endif
        samples.withUnsafeBytes { bytes += $0 }
        return bytes
    }

    /// Writes `wav` to `path` atomically.
    package func write(to path: String) throws(EncodeError) {
        do {
            try AtomicFile.write(wav, to: path)
        } catch {
            throw .output(error)
        }
    }
}
