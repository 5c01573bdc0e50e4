import Foundation
import Testing

/// A clip's own sound in the mix: heard where the layer shows the clip, by the footage rule, read back
/// sample by sample from the WAV files `renderfarm mix` writes and the videos `render --video` makes.
@Suite("Footage sound", .enabled(if: Tools.hasFFmpeg, "ffmpeg/ffprobe not installed: apt-get install ffmpeg"))
struct FootageSoundTests {
    static let rate = 48_000

    /// A clip (30 fps, 3.8 s) whose sound is a ramp telling its own time: at t seconds of the audio stream
    /// the sample is t / 10. In the container the video starts at 0.2 s and the audio at 0.5 s (clip time
    /// 0.3 s, as the rule counts from the first frame); the audio lasts 3 s, stored losslessly (FLAC in
    /// Matroska) at 44.1 kHz, so the mix must align it and resample it.
    static func rampClip(in folder: TemporaryFolder) throws -> String {
        let path = folder.path + "/ramp.mkv"
        try FootageFixture.ffmpeg([
            "-itsoffset", "0.2", "-f", "lavfi", "-i", "color=c=black:s=64x32:r=30:d=4", "-itsoffset", "0.5", "-f",
            "lavfi", "-i", "aevalsrc='t/10|t/10':s=44100:d=3", "-map", "0:v", "-map", "1:a", "-c:v", "libx264",
            "-qp", "0", "-c:a", "flac", "-t", "4", "-copyts", path,
        ])
        return path
    }

    /// A job of one `video` layer playing the ramp clip with `layer` (JSON members of the layer) and
    /// `params` (JSON members of its parameters).
    static func job(
        in folder: TemporaryFolder, duration: Double = 6, layer: String = #""start": 0.25"#, params: String = "",
        name: String = "clip.json"
    ) throws -> String {
        try folder.write(
            """
            {"name": "clip", "fps": 30, "duration": \(duration), "canvas": {"width": 64, "height": 32, "scale": 1},
             "output": {"dir": "out"},
             "layers": [{"effect": "video", \(layer), "params": {"file": "ramp.mkv", "fit": "fill"\(params)}}]}
            """, to: name)
    }

    /// The left channel of a WAV file `renderfarm mix` wrote, full scale 1.
    static func samples(ofWAV path: String) throws -> [Float] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path)).dropFirst(44)
        let values = data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        return stride(from: 0, to: values.count, by: 2).map { Float(values[$0]) / 32767 }
    }

    /// `renderfarm mix JOB`, left channel.
    static func mix(_ job: String, in folder: TemporaryFolder) throws -> [Float] {
        let wav = folder.path + "/mix-\(UUID().uuidString).wav"
        let result = CLI.run(["mix", job, "-o", wav])
        try #require(result.status == 0, "\(result.stderr)")
        return try samples(ofWAV: wav)
    }

    /// Checks that the mix plays, at each job time of `times`, the audio time `expected` says (nil: silence),
    /// reading the ramp: the audio time is 10 × the sample, scaled back by `gain` dB.
    static func check(
        _ samples: [Float], at times: [Double], gain: Double = 0, expected: (Double) -> Double?,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let scale = Float(pow(10, gain / 20))
        for time in times {
            let index = Int((time * Double(rate)).rounded())
            guard index < samples.count else {
                Issue.record(
                    "the mix ends at \(samples.count) samples, before \(time) s", sourceLocation: sourceLocation)
                continue
            }
            let heard = Double(samples[index] / scale) * 10
            if let audio = expected(time) {
                #expect(
                    abs(heard - audio) < 0.003, "at \(time) s: audio time \(heard), expected \(audio)",
                    sourceLocation: sourceLocation)
            } else {
                #expect(
                    abs(samples[index]) < 1e-4, "at \(time) s: \(samples[index]), expected silence",
                    sourceLocation: sourceLocation)
            }
        }
    }

    /// The audio time the rule plays at job time `t`: layer time t − start, clip time in + (t − start) × speed
    /// (wrapped in [in, out) with loop, nothing from out on without), audio time = clip time − 0.3; nil
    /// before the layer starts, before the audio starts and after it ends (3 s).
    static func rule(start: Double, in trimIn: Double, out: Double, speed: Double, loop: Bool) -> (Double) -> Double? {
        { t in
            guard t >= start else { return nil }
            var elapsed = (t - start) * speed
            if loop {
                elapsed = elapsed.truncatingRemainder(dividingBy: out - trimIn)
            } else if elapsed >= out - trimIn {
                return nil
            }
            let audio = trimIn + elapsed - 0.3
            return audio >= 0 && audio < 3 ? audio : nil
        }
    }

    /// Job times up to `end`, more than 10 ms away from where `rule` jumps (the audio starts or stops, a
    /// loop wraps): there the resampler's filter blurs the ramp.
    static func times(awayFromJumpsOf rule: (Double) -> Double?, upTo end: Double) -> [Double] {
        let jumps = (0..<Int(end * 1000)).map { Double($0) / 1000 }.filter { t in
            let (now, next) = (rule(t), rule(t + 0.001))
            guard let now, let next else { return (now == nil) != (next == nil) }
            return abs(next - now) > 0.01
        }
        return stride(from: 0.05, to: end, by: 0.0931).filter { t in jumps.allSatisfy { abs($0 - t) > 0.01 } }
    }

    @Test(
        "the clip's sound follows the footage rule: start, trim, speed 0.5, 1 and 2, loop, gain",
        arguments: [
            (speed: 1.0, trimIn: 0.0, out: 3.5, loop: false),
            (speed: 2.0, trimIn: 1.0, out: 3.0, loop: true),
            (speed: 0.5, trimIn: 0.75, out: 3.5, loop: false),
            (speed: 1.0, trimIn: 1.0, out: 2.5, loop: true),
        ])
    func followsTheRule(speed: Double, trimIn: Double, out: Double, loop: Bool) throws {
        let folder = try TemporaryFolder()
        _ = try Self.rampClip(in: folder)
        let job = try Self.job(
            in: folder, layer: #""start": 0.25, "gain": -6"#,
            params: #", "trim": {"in": \#(trimIn), "out": \#(out)}, "speed": \#(speed), "loop": \#(loop)"#)
        let samples = try Self.mix(job, in: folder)
        #expect(samples.count == 6 * Self.rate)
        let rule = Self.rule(start: 0.25, in: trimIn, out: out, speed: speed, loop: loop)
        Self.check(samples, at: Self.times(awayFromJumpsOf: rule, upTo: 6), gain: -6, expected: rule)
    }

    @Test("the layer's own speed and loop (host-level fields) carry the clip's sound with its picture")
    func layerTiming() throws {
        let folder = try TemporaryFolder()
        _ = try Self.rampClip(in: folder)
        // The layer's time runs at 2× and starts again every 1.5 layer seconds: clip time ((t − 1) × 2) mod 1.5.
        let job = try Self.job(in: folder, layer: #""start": 1, "speed": 2, "loop": 1.5"#)
        let samples = try Self.mix(job, in: folder)
        let rule: (Double) -> Double? = { t in
            guard t >= 1 else { return nil }
            let audio = ((t - 1) * 2).truncatingRemainder(dividingBy: 1.5) - 0.3
            return audio >= 0 ? audio : nil
        }
        Self.check(samples, at: Self.times(awayFromJumpsOf: rule, upTo: 6), expected: rule)
    }

    /// The amplitude of the `frequency` Hz component of `samples` (at 48 kHz), by Goertzel's algorithm.
    static func amplitude(of frequency: Double, in samples: ArraySlice<Float>) -> Double {
        let coefficient = 2 * cos(2 * Double.pi * frequency / Double(rate))
        var (previous, beforeThat) = (0.0, 0.0)
        for sample in samples {
            (previous, beforeThat) = (Double(sample) + coefficient * previous - beforeThat, previous)
        }
        let power = previous * previous + beforeThat * beforeThat - coefficient * previous * beforeThat
        return 2 * sqrt(max(0, power)) / Double(samples.count)
    }

    @Test("at the layer's speed 2, a 5 kHz tone is heard at 10 kHz and a 15 kHz one filtered out, not folded to 18 kHz")
    func fastWithoutAliasing() throws {
        let folder = try TemporaryFolder()
        let tones = "0.25*sin(2*PI*5000*t)+0.25*sin(2*PI*15000*t)"
        try FootageFixture.ffmpeg([
            "-f", "lavfi", "-i", "color=c=black:s=64x32:r=30:d=2", "-f", "lavfi", "-i",
            "aevalsrc='\(tones)|\(tones)':s=48000:d=2", "-map", "0:v", "-map", "1:a",
            "-c:v", "libx264", "-qp", "0", "-c:a", "flac", folder.path + "/ramp.mkv",
        ])
        let job = try Self.job(in: folder, duration: 1, layer: #""speed": 2"#)
        let samples = try Self.mix(job, in: folder)
        let heard = samples[4800..<43_200]
        #expect(abs(Self.amplitude(of: 10_000, in: heard) - 0.25) < 0.02, "\(Self.amplitude(of: 10_000, in: heard))")
        for frequency in [18_000.0, 15_000, 5_000] {
            #expect(
                Self.amplitude(of: frequency, in: heard) < 0.005,
                "\(frequency) Hz: \(Self.amplitude(of: frequency, in: heard))")
        }
    }

    @Test("a part of the job mixes the same samples as the whole (--frames renders); merged shards mix the whole")
    func partsEqualTheWhole() throws {
        let folder = try TemporaryFolder()
        _ = try Self.rampClip(in: folder)
        let job = try Self.job(in: folder, params: #", "speed": 2, "loop": true, "trim": {"in": 0.6, "out": 2.1}"#)
        let whole = folder.path + "/whole.wav"
        try #require(CLI.run(["mix", job, "-o", whole]).status == 0)
        let wholeBytes = try Data(contentsOf: URL(fileURLWithPath: whole)).dropFirst(44)
        for (frames, first, count) in [("37-98", 37, 62), ("150-179", 150, 30), ("0-179", 0, 180)] {
            let out = folder.path + "/part-\(first)"
            if first > 0 {
                let render = CLI.run(["render", job, "--out", out, "--frames", frames, "--progress", "none"])
                try #require(render.status == 0, "\(render.stderr)")
            } else {
                // The whole job in three shards, merged.
                for shard in 0..<3 {
                    let render = CLI.run(["render", job, "--out", out, "--shard", "\(shard)/3", "--progress", "none"])
                    try #require(render.status == 0, "\(render.stderr)")
                }
                try #require(CLI.run(["merge", out]).status == 0)
            }
            let part = folder.path + "/part-\(first).wav"
            let mixed = CLI.run(["mix", out, "-o", part])
            try #require(mixed.status == 0, "\(mixed.stderr)")
            let partBytes = try Data(contentsOf: URL(fileURLWithPath: part)).dropFirst(44)
            // Frame k at k / 30 s: sample 1600 k.
            #expect(partBytes.count == count * 1600 * 4)
            #expect(Data(partBytes) == Data(wholeBytes.dropFirst(first * 1600 * 4).prefix(count * 1600 * 4)))
        }
    }

    @Test("render --video and encode carry the clip's sound (PCM: the mix) and list the clip; muted, --no-audio do not")
    func inVideos() throws {
        let folder = try TemporaryFolder()
        let clip = try Self.rampClip(in: folder)
        let job = try Self.job(in: folder, duration: 3, layer: #""start": 0.25, "gain": -3"#)
        let video = folder.path + "/clip.mov"
        let render = CLI.run(["render", job, "--video", video, "--progress", "none"])
        try #require(render.status == 0, "\(render.stderr)")
        let hash = sha256(try Data(contentsOf: URL(fileURLWithPath: clip)))
        #expect(render.stdout.contains("sound:  layers[0] ramp.mkv sha256 \(hash)"), "\(render.stdout)")
        let wav = folder.path + "/mix.wav"
        try #require(CLI.run(["mix", job, "-o", wav]).status == 0)
        let mixed = try Data(contentsOf: URL(fileURLWithPath: wav)).dropFirst(44)
        #expect(try SoundTests.decodePCM(video) == Data(mixed))
        let rule = Self.rule(start: 0.25, in: 0, out: 3.5, speed: 1, loop: false)
        Self.check(
            try Self.samples(ofWAV: wav), at: Self.times(awayFromJumpsOf: rule, upTo: 3), gain: -3, expected: rule)

        // `encode` of the rendered folder lists the clip in the manifest's encode entry. The job's own output.dir
        // is outside its folder, so the render needs --out: encode and mix check the job as validate does, but
        // not where its frames would go.
        let inside = try String(contentsOfFile: job, encoding: .utf8)
        let outside = inside.replacingOccurrences(of: #""dir": "out""#, with: #""dir": "/nonexistent/out""#)
        try outside.write(toFile: job, atomically: true, encoding: .utf8)
        let out = folder.path + "/out"
        try #require(CLI.run(["render", job, "--out", out, "--progress", "none"]).status == 0)
        let encode = CLI.run(["encode", out, "--preset", "prores4444", "--progress", "none"])
        try #require(encode.status == 0, "\(encode.stderr)")
        #expect(try SoundTests.decodePCM(out + "/clip.mov") == Data(mixed))
        #expect(CLI.run(["mix", out, "-o", folder.path + "/out.wav"]).status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder.path + "/out.wav")).dropFirst(44) == mixed)
        try inside.write(toFile: job, atomically: true, encoding: .utf8)
        let manifest = try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: out + "/manifest.json")))
        let sound =
            ((manifest as? [String: Any])?["encodes"] as? [[String: Any]])?.first?["sound"] as? [[String: String]]
        #expect(sound == [["use": "layers[0]", "file": "ramp.mkv", "sha256": hash]])

        let silent = folder.path + "/silent.mov"
        let noAudio = CLI.run(["render", job, "--video", silent, "--progress", "none", "--no-audio"])
        try #require(noAudio.status == 0, "\(noAudio.stderr)")
        #expect(throws: ToolError.self) { try SoundTests.decodePCM(silent) }
        let muted = try Self.job(in: folder, duration: 3, layer: #""start": 0.25, "muted": true"#, name: "muted.json")
        let mutedVideo = folder.path + "/muted.mov"
        let mutedRender = CLI.run(["render", muted, "--video", mutedVideo, "--progress", "none"])
        try #require(mutedRender.status == 0, "\(mutedRender.stderr)")
        #expect(throws: ToolError.self) { try SoundTests.decodePCM(mutedVideo) }
        let nothing = CLI.run(["mix", muted, "-o", folder.path + "/nothing.wav"])
        #expect(nothing.status == 65 && nothing.stderr.contains("nothing to mix"), "\(nothing.stderr)")
    }

    @Test("the clip's sound is no part of a frame: changing its gain or muting it re-renders nothing")
    func notInFingerprints() throws {
        let folder = try TemporaryFolder()
        _ = try Self.rampClip(in: folder)
        let job = try Self.job(in: folder, duration: 1)
        let out = folder.path + "/out"
        try #require(CLI.run(["render", job, "--out", out, "--progress", "none"]).status == 0)
        for layer in [#""start": 0.25, "gain": -12"#, #""start": 0.25, "muted": true"#] {
            _ = try Self.job(in: folder, duration: 1, layer: layer)
            let again = CLI.run(["render", job, "--out", out, "--progress", "none"])
            try #require(again.status == 0, "\(again.stderr)")
            #expect(again.stdout.contains("0 frames rendered, 30 already done"), "\(again.stdout)")
        }
    }

    @Test("a clip without sound makes no sound track; a mix too long is a located error (65)")
    func silentAndTooLong() throws {
        let folder = try TemporaryFolder()
        try FootageFixture.make(folder.path + "/ramp.mkv", fps: 30, frames: 30)
        let job = try Self.job(in: folder, duration: 1)
        let video = folder.path + "/silent.mp4"
        let render = CLI.run(["render", job, "--video", video, "--progress", "none"])
        try #require(render.status == 0, "\(render.stderr)")
        #expect(throws: ToolError.self) { try SoundTests.decodeSound(video) }

        _ = try Self.rampClip(in: folder)
        let long = try Self.job(in: folder, duration: 601, params: #", "loop": true"#, name: "long.json")
        let mixed = CLI.run(["mix", long, "-o", folder.path + "/long.wav"])
        #expect(mixed.status == 65)
        #expect(
            mixed.stderr.contains(
                "long.json: layers[0]: ramp.mkv has sound, which joins the video's mix, and a mix holds at "
                    + "most 600 s (this one 601 s)"), "\(mixed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/long.wav"))
        // A layer that starts after the job ends is never heard: nothing to mix, not a mix too long.
        let late = try Self.job(
            in: folder, duration: 601, layer: #""start": 700"#, params: #", "loop": true"#, name: "late.json")
        let unheard = CLI.run(["mix", late, "-o", folder.path + "/late.wav"])
        #expect(unheard.status == 65)
        #expect(unheard.stderr.contains("clip: nothing is heard in the frames mixed"), "\(unheard.stderr)")
        #expect(!unheard.stderr.contains("at most 600 s"), "\(unheard.stderr)")
    }

    @Test("encode checks the job by its plugins before it mixes its sound (65); with --no-audio it encodes the frames")
    func encodeChecksBeforeMixing() throws {
        let folder = try TemporaryFolder()
        _ = try Self.rampClip(in: folder)
        let withSound = try Self.job(in: folder, duration: 1)
        func plain(_ params: String) throws -> String {
            try folder.write(
                """
                {"name": "plain", "fps": 30, "duration": 1, "canvas": {"width": 64, "height": 32, "scale": 1},
                 "output": {"dir": "plain"}, "layers": [{"effect": "gradient", "params": {\(params)}}]}
                """, to: "plain.json")
        }
        // Both rendered valid, then edited: a parameter no plugin accepts (in no frame key, so nothing is stale).
        try #require(CLI.run(["render", withSound, "--progress", "none"]).status == 0)
        try #require(CLI.run(["render", try plain(""), "--progress", "none"]).status == 0)
        try String(contentsOfFile: withSound, encoding: .utf8)
            .replacingOccurrences(of: #""params": {"#, with: #""params": {"bogus": 1, "#)
            .write(toFile: withSound, atomically: true, encoding: .utf8)
        _ = try plain(#""bogus": 1"#)
        // Which layers play sound only their plugins tell (ABI `sounds`), so a job they refuse is refused, whatever
        // its effects.
        for (folderName, job, video) in [("out", "clip.json", "clip.mp4"), ("plain", "plain.json", "plain.mp4")] {
            let refused = CLI.run(["encode", folder.path + "/" + folderName, "--progress", "none"])
            #expect(refused.status == 65)
            #expect(refused.stderr.contains("\(job): layers[0].params.bogus:"), "\(refused.stderr)")
            #expect(!FileManager.default.fileExists(atPath: folder.path + "/\(folderName)/\(video)"))
            let encoded = CLI.run(["encode", folder.path + "/" + folderName, "--progress", "none", "--no-audio"])
            #expect(encoded.status == 0, "\(encoded.stderr)")
            #expect(FileManager.default.fileExists(atPath: folder.path + "/\(folderName)/\(video)"))
        }
    }

    @Test("a clip whose sound is damaged in a few packets is refused (65), not mixed with a gap; its pictures are fine")
    func damagedSound() throws {
        let folder = try TemporaryFolder()
        let clip = try Self.rampClip(in: folder)
        let ffprobe = try #require(Tools.find("ffprobe"))
        let listed = try Tools.run(
            ffprobe,
            ["-v", "error", "-select_streams", "a:0", "-show_entries", "packet=pos,size", "-of", "csv=p=0", clip])
        // "size,pos" per packet; three packets mid-stream get their payload overwritten, their headers left whole.
        let packets = listed.text.split(whereSeparator: \.isNewline).map { line in
            line.split(separator: ",").compactMap { Int($0) }
        }
        try #require(packets.count > 20 && packets.allSatisfy { $0.count == 2 })
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: clip)))
        for packet in packets[10..<13] {
            for offset in (packet[1] + 8)..<(packet[1] + packet[0] - 4) { bytes[offset] ^= 0x5A }
        }
        try Data(bytes).write(to: URL(fileURLWithPath: clip))
        let job = try Self.job(in: folder)
        #expect(CLI.run(["validate", job]).status == 0, "the pictures are whole")
        let mixed = CLI.run(["mix", job, "-o", folder.path + "/clip.wav"])
        #expect(mixed.status == 65)
        #expect(
            mixed.stderr.contains(
                "clip.json: layers[0]: ramp.mkv: its sound cannot be decoded: it is damaged: "),
            "\(mixed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/clip.wav"))
    }

    @Test("a named pipe, a layer gain out of range, muted not a boolean, gain as a parameter: located errors (65)")
    func badClips() throws {
        let folder = try TemporaryFolder()
        _ = try Self.rampClip(in: folder)
        try folder.write("not a video\n", to: "text.mkv")
        #expect(mkfifo(folder.path + "/pipe.mkv", 0o644) == 0)
        let job = try folder.write(
            """
            {"name": "bad", "fps": 30, "duration": 1, "canvas": {"width": 64, "height": 32, "scale": 1},
             "layers": [{"effect": "video", "params": {"file": "pipe.mkv"}},
                        {"effect": "video", "params": {"file": "text.mkv"}},
                        {"effect": "video", "params": {"file": "ramp.mkv", "trim": {"out": 9}}},
                        {"effect": "video", "gain": 40, "params": {"file": "ramp.mkv"}},
                        {"effect": "video", "muted": "yes", "params": {"file": "ramp.mkv"}},
                        {"effect": "video", "params": {"file": "ramp.mkv", "gain": -3}}]}
            """, to: "bad.json")
        // mix checks the job as validate does, by the plugins: each parameter against its table, then
        // each layer's create step.
        let mixed = CLI.run(["mix", job, "-o", folder.path + "/bad.wav"])
        #expect(mixed.status == 65)
        for expected in [
            "bad.json: layers[0].params.file: pipe.mkv is a named pipe, not a file",
            "bad.json: layers[3].gain: 40 is out of range (allowed: -96…24)",
            "bad.json: layers[4].muted: expected true or false, got \"yes\"",
            "bad.json: layers[5].params.gain: \"video\" has no parameter \"gain\"; \"gain\" is a field of the layer: "
                + "write it beside \"effect\", not in \"params\"",
        ] {
            #expect(mixed.stderr.contains(expected), "missing: \(expected)\nin: \(mixed.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/bad.wav"))
        let validated = CLI.run(["validate", job])
        #expect(validated.status == 65)
        #expect(validated.stderr == mixed.stderr, "mix refuses the job with validate's words")
    }
}
