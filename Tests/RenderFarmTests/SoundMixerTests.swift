import Foundation
import Testing

@testable import RenderFarm
@testable import RenderFarmJobs
@testable import RenderFarmSound

@Suite("Sound: the audio section and the mixer")
struct SoundMixerTests {
    private func decode(_ audio: String) -> Result<JobSpec, JobError> {
        let text = #"{"duration": 2, "layers": [{"effect": "gradient"}], "audio": "# + audio + "}"
        return Result { () throws(JobError) in
            try JobLoader.decode(Data(text.utf8), file: "job.json", defaultName: "job")
        }
    }

    private func issues(_ audio: String) -> [String] {
        guard case .failure(.invalid(_, let issues)) = decode(audio) else { return [] }
        return issues.map(\.description)
    }

    @Test("the issue's example decodes with every field, defaults filled")
    func example() throws {
        let spec = try decode(
            #"""
            {"music": {"file": "assets/bed.wav", "start": 0, "trim": {"in": 0, "out": 30}, "gain": -6,
                       "fadeIn": 0.5, "fadeOut": 1.0},
             "sounds": [{"file": "assets/ding.wav", "at": [0.5, 1.0, 1.5], "gain": -3},
                        {"file": "assets/coin.wav", "events": "assets/stream-gifts.jsonl", "gain": -9, "maxVoices": 8}]}
            """#
        ).get()
        let audio = try #require(spec.audio)
        #expect(
            audio.music
                == AudioSpec.Music(
                    file: "assets/bed.wav", start: 0, trimIn: 0, trimOut: 30, gain: -6, fadeIn: 0.5, fadeOut: 1))
        #expect(
            audio.sounds == [
                AudioSpec.Sound(file: "assets/ding.wav", times: .at([0.5, 1, 1.5]), gain: -3, maxVoices: nil),
                AudioSpec.Sound(
                    file: "assets/coin.wav", times: .events(.string("assets/stream-gifts.jsonl")), gain: -9,
                    maxVoices: 8),
            ])
        #expect(try decode("{}").get().audio == AudioSpec(music: nil, sounds: []))
    }

    @Test("every problem of the section is told at its path")
    func problems() {
        let found = issues(
            #"""
            {"musik": {}, "music": {"file": "", "gain": 40, "trim": {"in": 5, "out": 2}},
             "sounds": [{"file": "a.wav"}, {"file": "b.wav", "at": [1, "x"]}, {"file": "c.wav", "at": [1], "events": []},
                        {"file": "d.wav", "at": [1], "maxVoices": 0}, 3]}
            """#)
        let expected = [
            "audio.musik: unknown key (did you mean \"music\"?)",
            "audio.music.gain: 40 is out of range (allowed: -96…24)",
            "audio.music.trim.out: 2 must be after trim.in (5)",
            "audio.music.file: must not be empty",
            "audio.sounds[0]: missing \"at\" (a list of job seconds) or \"events\" (an event log)",
            "audio.sounds[1].at[1]: expected job seconds",
            "audio.sounds[2].events: give either \"at\" or \"events\", not both",
            "audio.sounds[3].maxVoices: 0 is out of range (allowed: 1…256)",
            "audio.sounds[4]: expected an object",
        ]
        for message in expected {
            #expect(found.contains { $0.hasPrefix(message) }, "missing: \(message)\nin: \(found)")
        }
        #expect(found.count == expected.count, "\(found)")
    }

    @Test("a job with sound longer than the mix limit is refused at audio")
    func tooLong() {
        let text = #"{"duration": 700, "fps": 1, "layers": [{"effect": "gradient"}], "audio": {}}"#
        #expect(throws: JobError.self) { try JobLoader.decode(Data(text.utf8), file: "job.json", defaultName: "job") }
    }

    @Test("times become samples by round(t × 48000); the span of frames is frame times rounded")
    func samples() {
        #expect(SoundMixer.sample(at: 0.5) == 24_000)
        #expect(SoundMixer.sample(at: 1.0 / 60) == 800)
        #expect(SoundMixer.sample(at: 1.0 / 30.0 * 7) == 11_200)
        #expect(SoundTrack.span(first: 30, count: 30, step: 1, fps: 60) == 24_000..<48_000)
        #expect(SoundTrack.span(first: 1, count: 2, step: 2, fps: 29.97) == 1602..<8008)
    }

    /// A clip of `frames` frames at full scale 0.5 on both channels.
    private func clip(_ frames: Int) -> [Float] { [Float](repeating: 0.5, count: frames * 2) }

    @Test("a voice starts at its sample, with its gain, and the mix is cut at the job's end")
    func voiceStart() {
        let voices = SoundMixer.voices(clip: 0, length: 10, starts: [(5, -6.0206)], maxVoices: nil)
        let mixed = SoundMixer.mix(bed: nil, voices: voices, clips: [clip(10)], span: 0..<20, jobEnd: 12)
        #expect(mixed.count == 40)
        #expect(mixed[0..<10].allSatisfy { $0 == 0 })
        // 0.5 × 10^(−6.0206/20) = 0.25 of full scale.
        #expect(mixed[10] == 8192 && mixed[11] == 8192)
        #expect(mixed[23] == 8192 && mixed[24] == 0, "cut at sample 12 (the job's end)")
    }

    @Test("a part of the mix is the same samples of the whole")
    func partOfWhole() {
        let voices = SoundMixer.voices(clip: 0, length: 50, starts: [(3, 0), (40, -3), (41, -1)], maxVoices: nil)
        let bed = SoundMixer.Bed(samples: clip(200), start: 10, end: 100, gain: 0.5, fadeIn: 20, fadeOut: 30)
        let whole = SoundMixer.mix(bed: bed, voices: voices, clips: [clip(50)], span: 0..<120, jobEnd: 110)
        let part = SoundMixer.mix(bed: bed, voices: voices, clips: [clip(50)], span: 37..<81, jobEnd: 110)
        #expect(Array(whole[74..<162]) == part)
        // A span before the bed starts or after the job ends is silence.
        #expect(
            SoundMixer.mix(bed: bed, voices: [], clips: [], span: 0..<5, jobEnd: 110) == Array(repeating: 0, count: 10))
        #expect(
            SoundMixer.mix(bed: bed, voices: voices, clips: [clip(50)], span: 115..<120, jobEnd: 110).allSatisfy {
                $0 == 0
            })
    }

    @Test("a clip's sound: read at the time its layer says, interpolated between samples, silent outside them")
    func footage() {
        // Samples 100… of the clip at 4 samples a second: sample k holds k / 1000 on both channels.
        let samples = (100..<110).flatMap { [Float($0) / 1000, Float($0) / 1000] }
        // Job sample n hears container time 25 + n / 8 s (clip sample 100 + n / 2); nothing from n = 16 on.
        let track = SoundMixer.Played(
            samples: samples, first: 100, rate: 4, gain: 0.5,
            time: { (n: Int) -> Double? in n < 16 ? 25 + Double(n) / 8 : nil })
        let mixed = SoundMixer.mix(bed: nil, played: [track], voices: [], clips: [], span: 0..<20, jobEnd: 20)
        func value(_ sample: Int) -> Int { Int(mixed[sample * 2]) }
        func level(_ fraction: Double) -> Int { Int((fraction * 32767).rounded()) }
        // n = 2: sample 101 (0.101 × 0.5 of full scale); n = 3: half way between 101 and 102.
        #expect(value(2) == level(0.101 * 0.5))
        #expect(value(3) == level(0.1015 * 0.5))
        #expect(value(15) == level(0.1075 * 0.5))
        #expect(value(16) == 0 && value(19) == 0, "the layer's time says nothing is heard")
        // Half a sample before the first held and after the last, the edge sample is heard at half its level
        // (silence beyond it); one and a half after the last, silence.
        let edge = SoundMixer.Played(
            samples: samples, first: 100, rate: 4, gain: 1, time: { 24.875 + Double($0) / 4 })
        let edges = SoundMixer.mix(bed: nil, played: [edge], voices: [], clips: [], span: 0..<12, jobEnd: 12)
        #expect(edges[0] == Int16((0.05 * 32767).rounded()), "\(edges)")
        #expect(edges[20] == Int16((0.0545 * 32767).rounded()) && edges[22] == 0, "\(edges)")
        // A part of the mix is the same samples of the whole.
        let part = SoundMixer.mix(bed: nil, played: [track], voices: [], clips: [], span: 5..<13, jobEnd: 20)
        #expect(Array(mixed[10..<26]) == part)
    }

    @Test("the bed fades in linearly from its start and out to silence at its end")
    func fades() {
        let bed = SoundMixer.Bed(samples: clip(100), start: 0, end: 100, gain: 1, fadeIn: 10, fadeOut: 10)
        let mixed = SoundMixer.mix(bed: bed, voices: [], clips: [], span: 0..<100, jobEnd: 100)
        // Samples 0, 5, 10 (interleaved: ×2), at 0.5 of full scale.
        #expect(mixed[0] == 0 && mixed[10] == 8192 && mixed[20] == 16384)
        #expect(mixed[100] == 16384 && mixed[178] == 16384)
        #expect(mixed[180] == 14745 && mixed[188] == 8192 && mixed[198] == 0)
    }

    @Test("maxVoices drops the quietest: the lowest gain, then the oldest; a quietest newcomer is not played")
    func maxVoices() {
        // Three voices overlap; at most two sound. The third (loudest) steals from the first (oldest, equal gain).
        let stolen = SoundMixer.voices(clip: 0, length: 1000, starts: [(0, -6), (100, -6), (200, 0)], maxVoices: 2)
        #expect(stolen.count == 3)
        #expect(stolen[0].stop == 200 + SoundMixer.stealFade && stolen[0].stolen)
        #expect(stolen[1].stop == 1100 && stolen[2].stop == 1200)
        // A newcomer quieter than every sounding voice is dropped.
        let dropped = SoundMixer.voices(clip: 0, length: 1000, starts: [(0, 0), (100, 0), (200, -12)], maxVoices: 2)
        #expect(dropped.map(\.start) == [0, 100])
        // Once a voice has ended, a new one has room again; starts are taken in time order.
        let later = SoundMixer.voices(clip: 0, length: 50, starts: [(100, 0), (0, 0), (200, 0)], maxVoices: 1)
        #expect(later.map(\.start) == [0, 100, 200] && later.allSatisfy { !$0.stolen })
    }

    @Test("the WAV header says 16-bit PCM stereo 48 kHz and the data size")
    func wavHeader() {
        let track = SoundTrack(samples: [1, -1, 2, -2], inputs: [], span: 0..<2)
        let wav = track.wav
        #expect(wav.count == 44 + 8)
        #expect(Array(wav[0..<4]) == Array("RIFF".utf8) && Array(wav[8..<16]) == Array("WAVEfmt ".utf8))
        #expect(wav[22] == 2 && wav[24] == 0x80 && wav[25] == 0xBB && wav[34] == 16 && wav[40] == 8)
        #expect(Array(wav[44..<48]) == [1, 0, 0xFF, 0xFF])
    }
}
