import Foundation

/// Mixes decoded sounds into 16-bit stereo at `rate` (<doc:Sound>), sample-accurately and
/// deterministically: every sum is made in the same order (music, then the clips' sound in layer order,
/// then the sounds in the job's order, each sound's voices in time order) in `Float`, then rounded and
/// clipped to 16 bits once.
package enum SoundMixer {
    /// Samples per second of every mix.
    package static let rate = 48_000
    package static let channels = 2
    /// A voice dropped by `maxVoices` fades out over 5 ms from the sample the newer voice starts at,
    /// instead of stopping with a click.
    package static let stealFade = 240

    /// The job sample of job time `seconds`: `round(seconds × rate)`.
    package static func sample(at seconds: Double) -> Int { Int((seconds * Double(rate)).rounded()) }

    /// A linear gain of `decibels`.
    package static func linear(_ decibels: Double) -> Float { Float(pow(10.0, decibels / 20)) }

    /// The bed: `samples` (interleaved stereo) heard from job sample `start` until `end` (exclusive),
    /// with linear fades of `fadeIn` samples after `start` (k/fadeIn at its k-th sample) and, mirrored,
    /// `fadeOut` samples before `end` (its last sample silent).
    package struct Bed {
        package var samples: [Float]
        package var start: Int
        package var end: Int
        package var gain: Float
        package var fadeIn: Int
        package var fadeOut: Int
    }

    /// One playing of a clip from job sample `start`, heard until `stop` (exclusive); a stolen voice
    /// fades out over the `stealFade` samples before `stop`.
    package struct Voice: Equatable {
        package var clip: Int
        package var start: Int
        package var gain: Float
        package var stop: Int
        package var stolen = false
    }

    /// The voices of one sound started at `starts` (job samples, each with its gain in dB), each
    /// `length` frames long, at most `maxVoices` heard at once. When a start would make one voice
    /// too many, the quietest of the sounding voices and the new one is dropped: the lowest gain;
    /// among equal gains the one that started first (it has played longest); among equal starts the
    /// one listed first. A new voice that is the quietest is not played; a sounding one fades out.
    package static func voices(
        clip: Int, length: Int, starts: [(sample: Int, decibels: Double)], maxVoices: Int?
    ) -> [Voice] {
        let ordered = starts.enumerated().sorted { ($0.element.sample, $0.offset) < ($1.element.sample, $1.offset) }
        var voices: [(voice: Voice, decibels: Double, order: Int)] = []
        var sounding: [Int] = []
        for (order, start) in ordered {
            let voice = Voice(
                clip: clip, start: start.sample, gain: linear(start.decibels), stop: start.sample + length)
            guard let limit = maxVoices else {
                voices.append((voice, start.decibels, order))
                continue
            }
            sounding.removeAll { voices[$0].voice.stop <= start.sample }
            if sounding.count >= limit {
                let quietest = sounding.min { a, b in
                    let (x, y) = (voices[a], voices[b])
                    return (x.decibels, x.voice.start, x.order) < (y.decibels, y.voice.start, y.order)
                }
                if let quietest,
                    (voices[quietest].decibels, voices[quietest].voice.start, voices[quietest].order)
                        < (start.decibels, voice.start, order)
                {
                    voices[quietest].voice.stop = min(voices[quietest].voice.stop, start.sample + stealFade)
                    voices[quietest].voice.stolen = true
                    sounding.removeAll { $0 == quietest }
                } else {
                    continue
                }
            }
            sounding.append(voices.count)
            voices.append((voice, start.decibels, order))
        }
        return voices.map(\.voice)
    }

    /// A sound a layer plays: `samples` (interleaved stereo at `rate`) hold the file's audio from
    /// its sample `first` on, sample k being at k / `rate` seconds of the file's timeline; `time` says
    /// which second of the file is heard at a job sample, or nil for none. Between two samples of
    /// the file, the sound heard is interpolated linearly; outside `samples`, it is silence.
    package struct Played {
        package var samples: [Float]
        package var first: Int
        package var rate: Double
        package var gain: Float
        package var time: (Int) -> Double?
    }

    /// `lower..<upper`, empty when `upper` is not above `lower`.
    package static func between(_ lower: Int, _ upper: Int) -> Range<Int> { lower..<max(lower, upper) }

    /// The job samples `span` of the mix, interleaved stereo 16-bit; nothing is heard at or after
    /// `jobEnd` (the job's duration).
    package static func mix(
        bed: Bed?, played: [Played] = [], voices: [Voice], clips: [[Float]], span: Range<Int>, jobEnd: Int
    ) -> [Int16] {
        var sum = [Float](repeating: 0, count: span.count * channels)
        let heard = between(span.lowerBound, min(span.upperBound, jobEnd))
        if let bed {
            let range = between(
                max(bed.start, heard.lowerBound),
                min(bed.end, heard.upperBound, bed.start + bed.samples.count / channels))
            for sample in range {
                var envelope = bed.gain
                let sinceStart = sample - bed.start
                let untilEnd = bed.end - sample
                if sinceStart < bed.fadeIn { envelope *= Float(sinceStart) / Float(bed.fadeIn) }
                if untilEnd <= bed.fadeOut { envelope *= Float(untilEnd - 1) / Float(bed.fadeOut) }
                let source = sinceStart * channels
                let target = (sample - span.lowerBound) * channels
                for channel in 0..<channels { sum[target + channel] += bed.samples[source + channel] * envelope }
            }
        }
        for track in played {
            let count = track.samples.count / channels
            for sample in heard {
                guard let time = track.time(sample) else { continue }
                // The position from the clip's start, not from `first`: the same weights in every span.
                let position = time * track.rate
                let whole = position.rounded(.down)
                guard whole.magnitude < 1e15 else { continue }
                let index = Int(whole) - track.first
                let weight = Float(position - whole)
                let target = (sample - span.lowerBound) * channels
                let (here, next) = (0..<count ~= index, 0..<count ~= index + 1 && weight > 0)
                for channel in 0..<channels {
                    var value: Float = 0
                    if here { value += track.samples[index * channels + channel] * (1 - weight) }
                    if next { value += track.samples[(index + 1) * channels + channel] * weight }
                    sum[target + channel] += value * track.gain
                }
            }
        }
        for voice in voices {
            let samples = clips[voice.clip]
            let end = min(voice.stop, voice.start + samples.count / channels, heard.upperBound)
            let begin = max(voice.start, heard.lowerBound)
            guard begin < end else { continue }
            for sample in begin..<end {
                var gain = voice.gain
                if voice.stolen {
                    let left = voice.stop - sample
                    if left <= stealFade { gain *= Float(left - 1) / Float(stealFade) }
                }
                let source = (sample - voice.start) * channels
                let target = (sample - span.lowerBound) * channels
                for channel in 0..<channels { sum[target + channel] += samples[source + channel] * gain }
            }
        }
        // NaN (from a float file) is silence; anything louder than full scale is clipped.
        return sum.map { value in
            let scaled = (value * 32767).rounded()
            return scaled.isNaN ? 0 : Int16(max(-32768, min(32767, scaled)))
        }
    }
}
