import EffectKit
import FileInput
import FootageTiming
import Foundation
import RenderFarmJobs
import RenderFarmOutput
import StrictJSON

/// The sound of the clips that `video` layers play (<doc:Sound>): each clip's first audio stream, decoded
/// by ffmpeg and heard where the layer shows the clip, by the rule the plugin picks its frames by
/// (`FootageClock`), so that picture and sound stay together through `trim`, `speed`, `loop` and the
/// layer's own timing.
struct FootageSound {
    /// How the video's provenance lists it: `layers[0]`, the clip and its hash.
    var input: SoundInput
    var track: SoundMixer.Footage

    /// The effect whose layers are heard.
    static let effect = "video"

    /// The sound of `job`'s `video` layers over job samples `span`, in layer order. A layer that is
    /// `muted`, whose clip has no audio stream, or that is not heard in `span` has none; a problem is a
    /// job issue located at the layer's parameter.
    static func load(
        _ job: JobSpec, jobDirectory: String, span: Range<Int>, ffmpeg: FFmpeg
    ) throws(EncodeError) -> (sounds: [FootageSound], issues: [JobIssue]) {
        let heard = SoundMixer.between(span.lowerBound, min(span.upperBound, SoundMixer.sample(at: job.duration)))
        let clocks = job.clocks
        var sounds: [FootageSound] = []
        var issues: [JobIssue] = []
        for (index, layer) in job.layers.enumerated() where layer.effect == effect {
            let params = layer.params
            guard params["muted"]?.boolValue != true, let name = params["file"]?.stringValue else { continue }
            // A layer whose own time first reaches 0 after the mix ends is not heard in it: it adds nothing, and
            // is not held to the mix's length limit.
            guard clocks[index].start * Double(SoundMixer.rate) < Double(heard.upperBound) else { continue }
            let clip = Clip(name: name, layer: layer.path)
            switch try clip.sound(
                index: index, params: params, clock: clocks[index], heard: heard, jobDirectory: jobDirectory,
                ffmpeg: ffmpeg)
            {
            case .success(let sound?): sounds.append(sound)
            case .success(nil): break
            case .failure(let issue): issues.append(issue)
            }
        }
        return (sounds, issues)
    }

    /// One layer's clip, as the job names it.
    private struct Clip {
        var name: String
        /// `layers[0]`: where it is in the job.
        var layer: String

        func issue(_ parameter: String, _ message: String) -> JobIssue {
            JobIssue(path: layer + ".params." + parameter, message)
        }

        /// The clip's sound where `clock` (the layer's) plays it inside `heard`; nil when it has none there.
        func sound(
            index: Int, params: JSONObject, clock: LayerClock, heard: Range<Int>, jobDirectory: String,
            ffmpeg: FFmpeg
        ) throws(EncodeError) -> Result<FootageSound?, JobIssue> {
            let resolved: String
            do {
                resolved = try ConfinedPath.resolve(name, in: jobDirectory)
            } catch {
                return .failure(issue("file", error.description))
            }
            // Opened here, without blocking and only if a regular file; ffprobe and ffmpeg read this open
            // file as their standard input, so a file swapped in since is never read.
            let file: InputFile
            do {
                file = try InputFile(resolved, followLastLink: false)
            } catch {
                return .failure(issue("file", error.message(naming: name)))
            }
            let source = "file:/dev/stdin"
            let streams: Streams
            switch try Streams.probe(source, file: file, ffmpeg: ffmpeg) {
            case .success(let found): streams = found
            case .failure(let problem): return .failure(issue("file", "\(name) cannot be read: \(problem.message)"))
            }
            guard let audio = streams.audio else { return .success(nil) }
            guard let video = streams.video else { return .failure(issue("file", "\(name) has no video stream")) }
            let timeline: FootageTimeline
            switch try video.timeline(source, file: file, ffmpeg: ffmpeg) {
            case .success(let found): timeline = found
            case .failure(let problem): return .failure(issue("file", "\(name): \(problem.message)"))
            }
            // Checked as the plugin checks them: the commands check the job by its plugins first
            // (`SoundTrack.mix(checkedBy:)`), but the mix reads these values itself, from any job it is given.
            let speed = params["speed"]?.doubleValue ?? 1
            let decibels = params["gain"]?.doubleValue ?? 0
            for (parameter, value, range) in [
                ("speed", speed, FootageClock.speeds), ("gain", decibels, FootageClock.gains),
            ]
            where !range.contains(value) {
                return .failure(issue(parameter, "\(value) is outside \(range.lowerBound)…\(range.upperBound)"))
            }
            let footage: FootageClock
            do throws(EffectError) {
                footage = try FootageClock(
                    trim: params["trim"], duration: timeline.duration, speed: speed,
                    loop: params["loop"]?.boolValue ?? false)
            } catch {
                return .failure(issue(error.parameter ?? "trim", error.message))
            }
            // Clip time in the container's seconds: the rule counts from the first frame.
            let first = Double(timeline.timestamps.first ?? 0) * video.timeBase
            let mixRate = Double(SoundMixer.rate)
            let time: (Int) -> Double? = { sample in
                clock.localTime(at: Double(sample) / mixRate).flatMap(footage.sourceTime).map { first + $0 }
            }
            guard Double(heard.count) <= AudioSpec.Limits.maxMixSeconds * mixRate else {
                let seconds = Int((Double(heard.count) / mixRate).rounded(.up))
                return .failure(
                    issue(
                        "file",
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
            // A day of container time is far more than any clip the plugin plays holds.
            guard played.lowerBound >= 0, played.upperBound < 86_400 else {
                return .failure(issue("file", "\(name): its timestamps are out of range (\(played.upperBound) s)"))
            }
            // Played faster, the clip is resampled to fewer samples per second first (ffmpeg's band-limited
            // resampler), so that the samples read one after another do not alias.
            let playback = clock.links.reduce(speed) { $0 * $1.fields.speed }
            let rate = playback > 1 ? max(1, Int((mixRate / playback).rounded())) : SoundMixer.rate
            let from = max(0, Int((played.lowerBound * Double(rate)).rounded(.down)) - 1)
            let to = Int((played.upperBound * Double(rate)).rounded(.up)) + 2
            // With the container's timestamps kept (-copyts), silence is put before a sound that starts after
            // 0 s and into gaps, so that sample k of the stream is at k / rate seconds of the container.
            let filters =
                "aresample=\(rate):min_comp=0.001:min_hard_comp=0.001:first_pts=0,"
                + "atrim=start_sample=\(from):end_sample=\(to)"
            let decoded = SoundFile.decode(
                input: ["-copyts", "-i", source], stream: "0:\(audio)", filters: filters, rate: rate, reading: file,
                limit: (to - from + 1) * SoundMixer.channels * 4, ffmpeg: ffmpeg)
            let samples: [Float]
            switch decoded {
            case .success(let found): samples = found
            case .failure(let problem):
                return .failure(issue("file", "\(name): its sound cannot be decoded: \(problem.message)"))
            }
            guard
                let hashed = LayerInput.hashing([resolved], layer: index, reader: .plugin, jobDirectory: jobDirectory)
                    .first
            else { return .success(nil) }
            let gain = SoundMixer.linear(decibels)
            return .success(
                FootageSound(
                    input: SoundInput(use: layer, file: hashed.file, sha256: hashed.sha256),
                    track: SoundMixer.Footage(samples: samples, first: from, rate: Double(rate), gain: gain, time: time)
                ))
        }
    }

    /// The streams of a clip that matter: the video the plugin shows (the first that is not a cover
    /// picture) and the first audio stream.
    private struct Streams {
        var video: VideoStream?
        /// The audio stream's index.
        var audio: Int?

        struct VideoStream {
            var index: Int
            /// Seconds per timestamp tick.
            var timeBase: Double
            var ratio: (num: Int32, den: Int32)

            /// Its frames' timestamps, listed by ffprobe from the packets as the plugin lists them: those an
            /// edit list discards left out.
            func timeline(
                _ source: String, file: InputFile, ffmpeg: FFmpeg
            ) throws(EncodeError) -> Result<FootageTimeline, DataProblem> {
                let arguments = [
                    "-v", "error", "-select_streams", "\(index)", "-show_entries", "packet=pts,duration,flags",
                    "-of", "csv=p=0", source,
                ]
                let listed = try ffmpeg.probe(arguments, reading: file)
                return listed.flatMap { text in
                    var timestamps: [Int64] = []
                    var lastDuration: Int64 = 0
                    for line in text.split(whereSeparator: \.isNewline) {
                        let fields = line.split(separator: ",", omittingEmptySubsequences: false)
                        guard fields.count >= 3, !fields[2].contains("D") else { continue }
                        guard let pts = Int64(fields[0]) else {
                            return .failure(DataProblem("frame \(timestamps.count) has no presentation time"))
                        }
                        timestamps.append(pts)
                        lastDuration = Int64(fields[1]) ?? 0
                    }
                    guard !timestamps.isEmpty else { return .failure(DataProblem("it has no video frames")) }
                    return .success(
                        FootageTimeline(
                            timestamps: timestamps.sorted(), keyframes: [], lastDuration: lastDuration,
                            timeBase: ratio))
                }
            }
        }

        static func probe(
            _ source: String, file: InputFile, ffmpeg: FFmpeg
        ) throws(EncodeError) -> Result<Streams, DataProblem> {
            let arguments = [
                "-v", "error", "-show_entries", "stream=index,codec_type,time_base:stream_disposition=attached_pic",
                "-of", "json", source,
            ]
            let listed = try ffmpeg.probe(arguments, reading: file)
            return listed.flatMap { text in
                guard let streams = (try? JSONParser.parse(text))?.objectValue?["streams"]?.arrayValue else {
                    return .failure(DataProblem("ffprobe did not list its streams"))
                }
                var found = Streams()
                for stream in streams.compactMap(\.objectValue) {
                    guard let index = stream["index"]?.doubleValue.map({ Int($0) }) else { continue }
                    switch stream["codec_type"]?.stringValue {
                    case "audio" where found.audio == nil:
                        found.audio = index
                    case "video" where found.video == nil:
                        let cover = stream["disposition"]?.objectValue?["attached_pic"]?.doubleValue == 1
                        let parts = (stream["time_base"]?.stringValue ?? "").split(separator: "/").compactMap {
                            Int32($0)
                        }
                        guard !cover, parts.count == 2, parts[0] > 0, parts[1] > 0 else { continue }
                        found.video = VideoStream(
                            index: index, timeBase: Double(parts[0]) / Double(parts[1]), ratio: (parts[0], parts[1]))
                    default:
                        continue
                    }
                }
                return .success(found)
            }
        }
    }
}
