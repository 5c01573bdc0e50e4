import Foundation
import Testing

/// Videos with sound, decoded back with ffmpeg: onsets, levels, fades, cuts and the mix itself.
@Suite("Sound in videos", .enabled(if: Tools.hasFFmpeg, "ffmpeg/ffprobe not installed: apt-get install ffmpeg"))
struct SoundTests {
    static let rate = 48_000

    /// A stereo 16-bit WAV of `seconds` of a sine at `frequency` Hz and peak `amplitude` (full scale 1).
    static func tone(_ frequency: Double, amplitude: Double, seconds: Double) -> Data {
        let frames = Int(seconds * Double(rate))
        var data = Data()
        func append32(_ value: Int) { withUnsafeBytes(of: UInt32(value).littleEndian) { data.append(contentsOf: $0) } }
        func append16(_ value: Int) { withUnsafeBytes(of: UInt16(value).littleEndian) { data.append(contentsOf: $0) } }
        data.append(contentsOf: Array("RIFF".utf8))
        append32(36 + frames * 4)
        data.append(contentsOf: Array("WAVEfmt ".utf8))
        append32(16)
        append16(1)
        append16(2)
        append32(rate)
        append32(rate * 4)
        append16(4)
        append16(16)
        data.append(contentsOf: Array("data".utf8))
        append32(frames * 4)
        for index in 0..<frames {
            let value = Int(
                (amplitude * 32767 * sin(2 * Double.pi * frequency * Double(index) / Double(rate))).rounded())
            let sample = UInt16(bitPattern: Int16(value))
            append16(Int(sample))
            append16(Int(sample))
        }
        return data
    }

    /// The first audio stream of `file` as float stereo at 48 kHz, left channel only.
    static func decodeSound(_ file: String) throws -> [Float] {
        let output = try Tools.run(
            Tools.find("ffmpeg") ?? "ffmpeg",
            ["-v", "error", "-i", file, "-map", "0:a:0", "-ac", "2", "-ar", "\(rate)", "-f", "f32le", "-"])
        guard output.status == 0 else { throw ToolError(message: output.stderr) }
        let floats = output.stdout.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        return stride(from: 0, to: floats.count, by: 2).map { floats[$0] }
    }

    /// The 16-bit samples of the first audio stream (both channels), as ffmpeg decodes them.
    static func decodePCM(_ file: String) throws -> Data {
        let output = try Tools.run(
            Tools.find("ffmpeg") ?? "ffmpeg", ["-v", "error", "-i", file, "-map", "0:a:0", "-f", "s16le", "-"])
        guard output.status == 0 else { throw ToolError(message: output.stderr) }
        return output.stdout
    }

    /// Where sound starts after silence (above `threshold`), and the peak of the 30 ms after it.
    static func onsets(_ samples: [Float], threshold: Float = 0.02) -> [(time: Double, peak: Float)] {
        var found: [(Double, Float)] = []
        var index = 0
        while index < samples.count {
            guard abs(samples[index]) > threshold else {
                index += 1
                continue
            }
            let window = samples[index..<min(samples.count, index + rate * 30 / 1000)]
            found.append((Double(index) / Double(rate), window.map(abs).max() ?? 0))
            index += rate / 5
        }
        return found
    }

    static func decibels(_ value: Float) -> Double { 20 * log10(Double(value)) }

    /// A 2 s job at 30 fps on a tiny canvas, with a tick at 0.5 and 1.5 s (−6 dB) and one per event
    /// of a log (at 1.0 s, −12 dB with the event's −6 dB).
    static func tickJob(in folder: TemporaryFolder) throws -> String {
        try tone(1000, amplitude: 0.5, seconds: 0.04).write(to: folder.url.appendingPathComponent("tick.wav"))
        try folder.write(#"{"time": 1.0, "gift": "rose", "gain": -6}"# + "\n", to: "gifts.jsonl")
        return try folder.write(
            #"""
            {"name": "ticks", "fps": 30, "duration": 2, "canvas": {"width": 16, "height": 16, "scale": 1},
             "layers": [{"effect": "gradient"}],
             "audio": {"sounds": [{"file": "tick.wav", "at": [0.5, 1.5], "gain": -6},
                                  {"file": "tick.wav", "events": "gifts.jsonl", "gain": -6}]}}
            """#, to: "ticks.json")
    }

    @Test(
        "render --video: each tick starts within one frame of its time at its level (AAC, Opus, PCM)",
        arguments: ["mp4", "webm", "mov"])
    func onsetsAndLevels(ext: String) throws {
        let folder = try TemporaryFolder()
        let job = try Self.tickJob(in: folder)
        let video = folder.path + "/ticks." + ext
        let result = CLI.run(["render", job, "--video", video, "--progress", "none"])
        try #require(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("sound:  sounds[1].events gifts.jsonl sha256 "))
        let onsets = Self.onsets(try Self.decodeSound(video))
        try #require(onsets.count == 3, "\(onsets)")
        // Peak 0.5 at −6 dB, and at −12 dB (the sound's −6 and the event's −6).
        for (onset, (time, decibels)) in zip(onsets, [(0.5, -12.0), (1.0, -18.0), (1.5, -12.0)]) {
            #expect(abs(onset.time - time) < 1.0 / 30, "onset \(onset.time) s, expected \(time) s")
            #expect(abs(Self.decibels(onset.peak) - decibels) < 1, "level \(Self.decibels(onset.peak)) dB")
        }
        let silent = folder.path + "/silent." + ext
        let without = CLI.run(["render", job, "--video", silent, "--progress", "none", "--no-audio"])
        try #require(without.status == 0, "\(without.stderr)")
        #expect(throws: ToolError.self) { try Self.decodeSound(silent) }
    }

    @Test("a 5 s job with a 30 s bed: cut at 5 s, faded in over 0.5 s and out over the last 1 s")
    func musicBed() throws {
        let folder = try TemporaryFolder()
        try Self.tone(440, amplitude: 0.5, seconds: 30).write(to: folder.url.appendingPathComponent("bed.wav"))
        let job = try folder.write(
            #"""
            {"name": "bed", "fps": 10, "duration": 5, "canvas": {"width": 16, "height": 16, "scale": 1},
             "layers": [{"effect": "gradient"}],
             "audio": {"music": {"file": "bed.wav", "trim": {"in": 2}, "fadeIn": 0.5, "fadeOut": 1.0}}}
            """#, to: "bed.json")
        let video = folder.path + "/bed.mov"
        let result = CLI.run(["render", job, "--video", video, "--progress", "none"])
        try #require(result.status == 0, "\(result.stderr)")
        let samples = try Self.decodeSound(video)
        #expect(samples.count == 5 * Self.rate)
        func peak(at time: Double) -> Double {
            let start = Int(time * Double(Self.rate))
            return Double(samples[start..<start + Self.rate / 100].map(abs).max() ?? 0)
        }
        // Linear in amplitude: half way through each fade, half the level; between them, all of it.
        for (time, expected) in [(0.005, 0.005), (0.25, 0.25), (2.5, 0.5), (4.0, 0.5), (4.5, 0.25), (4.985, 0.0075)] {
            #expect(abs(peak(at: time) - expected) < 0.01, "peak at \(time) s: \(peak(at: time)), expected \(expected)")
        }
    }

    @Test("mix equals the PCM sound track of encode, for a part of the job too, and the manifest lists the inputs")
    func mixEqualsTrack() throws {
        let folder = try TemporaryFolder()
        let job = try Self.tickJob(in: folder)
        let whole = folder.path + "/whole.wav"
        let mixed = CLI.run(["mix", job, "-o", whole])
        try #require(mixed.status == 0, "\(mixed.stderr)")
        let out = folder.path + "/out"
        let render = CLI.run(["render", job, "--out", out, "--frames", "15-44", "--progress", "none"])
        try #require(render.status == 0, "\(render.stderr)")
        let part = folder.path + "/part.wav"
        let partMix = CLI.run(["mix", out, "-o", part])
        try #require(partMix.status == 0, "\(partMix.stderr)")
        let encode = CLI.run(["encode", out, "--preset", "prores4444", "--progress", "none"])
        try #require(encode.status == 0, "\(encode.stderr)")

        let wholeSamples = try Data(contentsOf: URL(fileURLWithPath: whole)).dropFirst(44)
        let partSamples = try Data(contentsOf: URL(fileURLWithPath: part)).dropFirst(44)
        #expect(wholeSamples.count == 2 * Self.rate * 4)
        // Frames 15–44 at 30 fps: 0.5 s to 1.5 s, samples 24 000 to 72 000.
        #expect(partSamples.count == Self.rate * 4)
        #expect(Data(partSamples) == Data(wholeSamples.dropFirst(24_000 * 4).prefix(48_000 * 4)))
        #expect(try Self.decodePCM(out + "/ticks.mov") == Data(partSamples))

        // A job whose own `frames` are that part: `mix JOB` covers what `render JOB --video` renders.
        let text = try String(contentsOfFile: job, encoding: .utf8)
        let partJob = try folder.write(
            text.replacingOccurrences(of: #""duration": 2,"#, with: #""duration": 2, "frames": "15-44","#),
            to: "part.json")
        let partVideo = folder.path + "/part.mov"
        let video = CLI.run(["render", partJob, "--video", partVideo, "--progress", "none"])
        try #require(video.status == 0, "\(video.stderr)")
        let jobMix = folder.path + "/job-part.wav"
        try #require(CLI.run(["mix", partJob, "-o", jobMix]).status == 0)
        let jobMixSamples = try Data(contentsOf: URL(fileURLWithPath: jobMix)).dropFirst(44)
        #expect(Data(jobMixSamples) == Data(partSamples))
        #expect(try Self.decodePCM(partVideo) == Data(partSamples))

        let manifest = try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: out + "/manifest.json")))
        let encodes = (manifest as? [String: Any])?["encodes"] as? [[String: Any]]
        let sound = encodes?.first?["sound"] as? [[String: String]]
        let tick = sha256(try Data(contentsOf: folder.url.appendingPathComponent("tick.wav")))
        #expect(sound?.map { $0["use"] ?? "" } == ["sounds[0]", "sounds[1].events", "sounds[1]"])
        #expect(sound?.first?["file"] == "tick.wav" && sound?.first?["sha256"] == tick)
        #expect((encodes?.first?["command"] as? String)?.contains("-i mix.wav -map 0:v -map 1:a") == true)
    }

    @Test(
        "export-otio carries the mix and the music as audio clips that opentimelineio reads",
        .enabled(
            if: Tools.hasOpenTimelineIO || Tools.inCI,
            "Python package opentimelineio not installed (make otio-venv, or pip install opentimelineio)"))
    func otioAudio() throws {
        try #require(Tools.hasOpenTimelineIO, "opentimelineio cannot be imported by \(Tools.otioPython ?? "python3")")
        let folder = try TemporaryFolder()
        try Self.tone(440, amplitude: 0.5, seconds: 3).write(to: folder.url.appendingPathComponent("bed.wav"))
        let job = try folder.write(
            #"""
            {"name": "cut", "fps": 10, "duration": 4, "canvas": {"width": 16, "height": 16, "scale": 1},
             "layers": [{"effect": "gradient"}],
             "audio": {"music": {"file": "bed.wav", "start": 1.5, "trim": {"in": 0.5}}}}
            """#, to: "cut.json")
        // Frames 10–29: job time 1 s to 3 s; the music is heard from 1.5 s, 0.5 s into the file.
        let out = folder.path + "/out"
        let render = CLI.run(["render", job, "--out", out, "--frames", "10-29", "--progress", "none"])
        try #require(render.status == 0, "\(render.stderr)")
        let file = folder.path + "/edit/cut.otio"
        let export = CLI.run(["export-otio", out, "-o", file])
        try #require(export.status == 0, "\(export.stderr)")
        #expect(try Self.decodePCM(folder.path + "/edit/cut.mix.wav").count == 2 * Self.rate * 4)
        let script = """
            import sys, opentimelineio as otio
            timeline = otio.adapters.read_from_file(sys.argv[1])
            for track in timeline.tracks[1:]:
                print(track.name, track.kind, [(type(i).__name__, i.source_range.start_time.value,
                      i.source_range.duration.value, getattr(getattr(i, "media_reference", None), "target_url", ""))
                      for i in track])
            """
        let python = try Tools.run(Tools.otioPython ?? "python3", ["-c", script, file])
        #expect(python.status == 0, "\(python.stderr)")
        #expect(
            python.text.split(separator: "\n") == [
                "A1 Audio [('Clip', 0.0, 96000.0, 'cut.mix.wav')]",
                "A2 Audio [('Gap', 0.0, 24000.0, ''), ('Clip', 24000.0, 72000.0, '../bed.wav')]",
            ], "\(python.text)")
    }

    @Test("sound is no part of a frame: removing the audio section re-renders nothing")
    func notInFingerprints() throws {
        let folder = try TemporaryFolder()
        let job = try Self.tickJob(in: folder)
        let out = folder.path + "/out"
        let first = CLI.run(["render", job, "--out", out, "--progress", "none"])
        try #require(first.status == 0, "\(first.stderr)")
        // The same job without its audio section.
        try folder.write(
            #"{"name": "ticks", "fps": 30, "duration": 2, "canvas": {"width": 16, "height": 16, "scale": 1}, "#
                + #""layers": [{"effect": "gradient"}]}"#, to: "ticks.json")
        let second = CLI.run(["render", job, "--out", out, "--progress", "none"])
        try #require(second.status == 0, "\(second.stderr)")
        #expect(second.stdout.contains("0 frames rendered, 60 already done"), "\(second.stdout)")
    }

    @Test("a sound file that is not sound, missing or a named pipe is a located error (65), nothing written")
    func badFiles() throws {
        let folder = try TemporaryFolder()
        try folder.write("this is not a sound\n", to: "bad.wav")
        #expect(mkfifo(folder.path + "/pipe.wav", 0o644) == 0)
        let job = try folder.write(
            #"""
            {"name": "bad", "fps": 10, "duration": 1, "canvas": {"width": 16, "height": 16, "scale": 1},
             "layers": [{"effect": "gradient"}],
             "audio": {"music": {"file": "gone.wav"},
                       "sounds": [{"file": "bad.wav", "at": [0.5]}, {"file": "pipe.wav", "at": [0.5]}]}}
            """#, to: "bad.json")
        let video = folder.path + "/bad.mp4"
        for arguments in [["render", job, "--video", video, "--progress", "none"], ["mix", job, "-o", video]] {
            let result = CLI.run(arguments)
            #expect(result.status == 65)
            for expected in [
                "bad.json: audio.music.file: gone.wav not found in the job's folder",
                "bad.json: audio.sounds[0].file: bad.wav cannot be decoded as sound",
                "bad.json: audio.sounds[1].file: pipe.wav is a named pipe, not a file",
            ] {
                #expect(result.stderr.contains(expected), "missing: \(expected)\nin: \(result.stderr)")
            }
            #expect(!FileManager.default.fileExists(atPath: video))
        }
    }

    @Test(
        "encode --verbose prints each ffmpeg line as run, the mix as its sound input, as the manifest records it",
        arguments: ["mp4", "apng"])
    func verboseNamesTheMix(preset: String) throws {
        let folder = try TemporaryFolder()
        let job = try Self.tickJob(in: folder)
        let out = folder.path + "/out"
        try #require(CLI.run(["render", job, "--out", out, "--progress", "none"]).status == 0)
        let encode = CLI.run(["encode", out, "--preset", preset, "--verbose", "--progress", "none"])
        try #require(encode.status == 0, "\(encode.stderr)")
        let told = encode.stderr.split(separator: "\n").filter { $0.hasPrefix("(cd ") && $0.contains("ffmpeg") }
            .map { line in String(line.drop { $0 != "&" }.dropFirst(3).dropLast()) }
        let manifest = try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: out + "/manifest.json")))
        let recorded = ((manifest as? [String: Any])?["encodes"] as? [[String: Any]])?.first?["command"] as? String
        #expect(told.joined(separator: " && ") == recorded, "told: \(told)\nrecorded: \(recorded ?? "none")")
        // An mp4 carries the sound (the mix is ffmpeg's second input); an APNG has none.
        let hasMix = told.contains { $0.contains("-i mix.wav") && $0.contains("-map 1:a") }
        #expect(hasMix == (preset == "mp4"), "\(told)")
        #expect(encode.stderr.contains("renderfarm mix") == (preset == "mp4"), "\(encode.stderr)")
    }

    @Test("validate refuses exactly the sound-file problems render --video refuses, located alike (seeded cases)")
    func validateAgrees() throws {
        var random = FuzzRandom(seed: 50)
        // What a file the job names may be: each but the first is refused, before anything is decoded.
        let kinds = ["good", "missing", "pipe", "folder", "outside"]
        for run in 0..<12 {
            let folder = try TemporaryFolder()
            var names: [String] = []
            for index in 0..<3 {
                let kind = run == 0 ? "good" : random.pick(kinds)
                let name = kind == "outside" ? "../up\(index).wav" : "s\(index).wav"
                switch kind {
                case "good":
                    try Self.tone(440, amplitude: 0.2, seconds: 0.2).write(to: folder.url.appendingPathComponent(name))
                case "pipe": #expect(mkfifo(folder.path + "/" + name, 0o644) == 0)
                case "folder":
                    try FileManager.default.createDirectory(
                        atPath: folder.path + "/" + name, withIntermediateDirectories: false)
                default: break
                }
                names.append(name)
            }
            let log = run == 0 || random.chance(0.5) ? "events.csv" : "gone.csv"
            try folder.write("time\n0.2\n", to: "events.csv")
            let job = try folder.write(
                #"""
                {"name": "v", "fps": 10, "duration": 1, "canvas": {"width": 16, "height": 16, "scale": 1},
                 "layers": [{"effect": "gradient"}],
                 "audio": {"music": {"file": "\#(names[0])"},
                           "sounds": [{"file": "\#(names[1])", "at": [0.5]}, {"file": "\#(names[2])", "events": "\#(log)"}]}}
                """#, to: "v.json")
            let validate = CLI.run(["validate", job])
            let render = CLI.run(["render", job, "--video", folder.path + "/v.mp4", "--progress", "none"])
            let located = { (text: String) in Set(text.split(separator: "\n").filter { $0.contains("v.json: audio.") })
            }
            #expect(
                validate.status == render.status, "run \(run) \(names) \(log): \(validate.stderr) / \(render.stderr)")
            #expect(located(validate.stderr) == located(render.stderr), "run \(run) \(names) \(log)")
            #expect(
                (validate.status == 0)
                    == (names.allSatisfy { !$0.hasPrefix("..") } && log == "events.csv"
                        && located(render.stderr).isEmpty),
                "run \(run)")
        }
    }
}
