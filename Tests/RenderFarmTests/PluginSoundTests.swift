import EffectKit
import Foundation
import StrictJSON
import Testing

@testable import RenderFarm
@testable import RenderFarmJobs
@testable import RenderFarmMedia
@testable import RenderFarmSound

/// Issue 46: sound is a plugin capability (ABI `sounds`). A C fixture plugin the engine has never heard of
/// (`Tests/Fixtures/sound_plugin.c`) declares the part of a file its layer plays; the engine mixes it by the ABI
/// alone, through the layer's and its group's time, gain and muting. Run in process on a ramp whose every sample
/// tells the file time it was taken from, against a model written from the header's words.
@Suite("sound as a plugin capability")
struct PluginSoundTests {
    static let pluginFolder = LazyCatalogTests.testPlugins + "/sound"
    /// The ramp: sample value = file seconds / 10, for `rampSeconds`.
    static let rampSeconds = 4.0
    static let rate = 48_000

    static func catalog() throws -> PluginCatalog {
        let library = pluginFolder + "/librenderfarm-test-sound.so"
        try #require(FileManager.default.fileExists(atPath: library), "run `make test-plugin` to build \(library)")
        return PluginCatalog.discover(searchPath: [pluginFolder])
    }

    /// A 16-bit stereo WAV at 48 kHz whose sample at s seconds is s / 10 on both channels.
    static func rampWAV() -> [UInt8] {
        let count = Int(rampSeconds) * rate
        var bytes: [UInt8] = []
        func add(_ text: String) { bytes += Array(text.utf8) }
        func add32(_ value: Int) { withUnsafeBytes(of: UInt32(value).littleEndian) { bytes += $0 } }
        func add16(_ value: Int) { withUnsafeBytes(of: UInt16(truncatingIfNeeded: value).littleEndian) { bytes += $0 } }
        add("RIFF")
        add32(36 + count * 4)
        add("WAVEfmt ")
        add32(16)
        add16(1)
        add16(2)
        add32(rate)
        add32(rate * 4)
        add16(4)
        add16(16)
        add("data")
        add32(count * 4)
        for index in 0..<count {
            let value = Int((Double(index) / Double(rate) / 10 * 32767).rounded())
            add16(value)
            add16(value)
        }
        return bytes
    }

    /// One generated case: the layer's host fields, an optional group around it, and the sound its plugin declares.
    struct Case: CustomStringConvertible {
        var layerStart: Double
        var layerSpeed: Double?
        var layerLoop: Double?
        var layerGain: Double
        var groupGain: Double?
        var start: Double
        var sourceStart: Double
        /// 0: to the file's end.
        var sourceLength: Double
        var speed: Double
        var loops: Bool
        var gain: Double

        init(_ random: inout SeededRandom) {
            layerStart = Double(random.below(10)) / 10
            layerSpeed = [nil, 0.5, 1.5, 2][random.below(4)]
            layerLoop = random.below(3) == 0 ? 0.7 + Double(random.below(9)) / 10 : nil
            layerGain = Double(random.below(7)) - 4
            groupGain = random.below(2) == 0 ? -Double(random.below(3)) : nil
            start = Double(random.below(11)) / 10 - 0.5
            sourceStart = Double(random.below(21)) / 10
            loops = random.below(2) == 0
            sourceLength = loops || random.below(2) == 0 ? 0.3 + Double(random.below(13)) / 10 : 0
            speed = [0.5, 0.75, 1, 1.25, 2][random.below(5)]
            gain = -Double(random.below(7))
        }

        var description: String { job }

        /// The job file's text.
        var job: String {
            var fields = #""start": \#(layerStart), "gain": \#(layerGain)"#
            if let layerSpeed { fields += #", "speed": \#(layerSpeed)"# }
            if let layerLoop { fields += #", "loop": \#(layerLoop)"# }
            let params =
                #"{"file": "ramp.wav", "start": \#(start), "sourceStart": \#(sourceStart), "sourceLength": "#
                + #"\#(sourceLength), "speed": \#(speed), "loop": \#(loops), "gain": \#(gain)}"#
            var layer = #"{"effect": "test-sound", \#(fields), "params": \#(params)}"#
            if let groupGain { layer = #"{"group": [\#(layer)], "gain": \#(groupGain)}"# }
            return #"""
                {"name": "sound", "fps": 30, "duration": 2, "canvas": {"width": 8, "height": 8, "scale": 1},
                 "layers": [\#(layer)]}
                """#
        }

        /// The file seconds heard at job time `t` by the header's rule (renderfarm_plugin.h, `rf_sound`, and the
        /// ComposingLayers article's layer time), nil for silence.
        func heard(at t: Double) -> Double? {
            let elapsed = t - layerStart
            var local = elapsed
            if layerSpeed != nil || layerLoop != nil {
                guard elapsed >= 0 else { return nil }
                local = elapsed * (layerSpeed ?? 1)
                if let layerLoop { local = local.truncatingRemainder(dividingBy: layerLoop) }
            }
            let since = local - start
            guard since >= 0 else { return nil }
            var played = since * speed
            if loops {
                played = played.truncatingRemainder(dividingBy: sourceLength)
            } else if sourceLength > 0 && played >= sourceLength {
                return nil
            }
            let file = sourceStart + played
            return file >= 0 && file < rampSeconds ? file : nil
        }

        var decibels: Double { gain + layerGain + (groupGain ?? 0) }
    }

    @Test("40 generated layers: the mix plays the file seconds the declared time map and the layer's time give")
    func generated() throws {
        let catalog = try Self.catalog()
        let ffmpeg = try FFmpeg.locate()
        let folder = try TemporaryFolder("sound")
        try folder.write(Self.rampWAV(), to: "ramp.wav")
        var random = SeededRandom(seed: 46)
        for number in 0..<40 {
            let generated = Case(&random)
            try folder.write(Array(generated.job.utf8), to: "sound.json")
            let job = try JobLoader.load(folder.file("sound.json"))
            let track = try #require(
                try SoundTrack.mix(of: job, checkedBy: catalog, ffmpeg: ffmpeg), "case \(number): \(generated)")
            #expect(track.samples.count == 2 * Self.rate * 2)
            #expect(track.inputs.map(\.file) == ["ramp.wav"])
            let scale = pow(10, generated.decibels / 20)
            var wrong: [String] = []
            for t in Self.times(awayFromJumpsOf: generated.heard, upTo: 2) {
                let left = Double(track.samples[2 * Int((t * Double(Self.rate)).rounded())]) / 32767
                if let file = generated.heard(at: t) {
                    if abs(left / scale * 10 - file) > 0.004 {
                        wrong.append("\(t) s: \(left / scale * 10), not \(file)")
                    }
                } else if abs(left) > 1e-3 {
                    wrong.append("\(t) s: \(left), not silence")
                }
            }
            #expect(wrong.isEmpty, "case \(number): \(generated)\n\(wrong.prefix(5).joined(separator: "\n"))")
        }
    }

    /// Job times up to `end`, more than 10 ms away from where `heard` jumps (starts, stops, wraps): there the
    /// resampler's filter blurs the ramp.
    static func times(awayFromJumpsOf heard: (Double) -> Double?, upTo end: Double) -> [Double] {
        let jumps = (0..<Int(end * 1000)).map { Double($0) / 1000 }.filter { t in
            let (now, next) = (heard(t), heard(t + 0.001))
            guard let now, let next else { return (now == nil) != (next == nil) }
            return abs(next - now) > 0.01
        }
        return stride(from: 0.013, to: end, by: 0.0371).filter { t in jumps.allSatisfy { abs($0 - t) > 0.01 } }
    }

    @Test("a muted layer or group, and a layer whose plugin plays nothing, add no sound")
    func muted() throws {
        let catalog = try Self.catalog()
        let folder = try TemporaryFolder("muted")
        try folder.write(Self.rampWAV(), to: "ramp.wav")
        for layers in [
            #"{"effect": "test-sound", "muted": true, "params": {"file": "ramp.wav"}}"#,
            #"{"group": [{"effect": "test-sound", "params": {"file": "ramp.wav"}}], "muted": true}"#,
            #"{"effect": "test-sound", "params": {}}"#,
        ] {
            try folder.write(
                Array(
                    #"{"name": "m", "fps": 30, "duration": 1, "canvas": {"width": 8, "height": 8}, "layers": [\#(layers)]}"#
                        .utf8), to: "m.json")
            let job = try JobLoader.load(folder.file("m.json"))
            #expect(try SoundTrack.mix(of: job, checkedBy: catalog, ffmpeg: try FFmpeg.locate()) == nil, "\(layers)")
        }
    }

    @Test(
        "a plugin's bad sound refuses its layer with a located problem, never a crash",
        arguments: [
            ("nan-speed", "plays at speed nan; a sound's speed is 0.01…100"),
            ("infinite-loop", "plays inf s of the file; it must be > 0, and finite as it loops"),
            ("unnamed-file", "is not a file its input_files names; name it there too"),
            ("no-file", "its sound names no file"),
            ("short-struct", "its sound: struct_size is 8; set it to sizeof(rf_sound)"),
            ("many", "it declares more than 64 sounds"),
            ("null-sound", "its sound: the plugin passed none (NULL)"),
            ("fails", "its sounds call failed (status 3)"),
        ])
    func refused(defect: String, message: String) throws {
        let catalog = try Self.catalog()
        let folder = try TemporaryFolder("bad")
        try folder.write(Self.rampWAV(), to: "ramp.wav")
        try folder.write(
            Array(
                #"""
                {"name": "b", "fps": 30, "duration": 1, "canvas": {"width": 8, "height": 8},
                 "layers": [{"effect": "test-sound", "params": {"file": "ramp.wav", "defect": "\#(defect)"}}]}
                """#.utf8), to: "b.json")
        let job = try JobLoader.load(folder.file("b.json"))
        do {
            _ = try SoundTrack.mix(of: job, checkedBy: catalog, ffmpeg: try FFmpeg.locate())
            Issue.record("\(defect): mixed")
        } catch {
            guard case .sound(_, let issues) = error else {
                Issue.record("\(defect): \(error)")
                return
            }
            #expect(issues.map(\.path) == ["layers[0].params"], "\(issues)")
            #expect(issues.first?.message.contains(message) == true, "\(issues)")
        }
        // What a planning worker sends is checked by the same rules: none of these reads back.
        let options = PlanOptions(outputOverride: folder.path, warmUp: .none)
        #expect(RenderEngine(catalog: catalog, options: options).plan([job]).jobs.isEmpty)
    }

    @Test("a planning worker's sound lines read back only when every number is in range and the file is named")
    func planningReply() throws {
        let good =
            #"{"file":"a.wav","gain":-3,"loop":true,"sourceLength":1.5,"sourceStart":0.5,"speed":2,"start":0,"stream":1}"#
        let read = { (lines: [String]) -> [Int: [Int: CreatedLayer]]? in
            var remaining = lines + ["planned"]
            return try? IsolatedPlanner.read { remaining.removeFirst() }
        }
        let sound = try #require(DeclaredSound(json: try JSONParser.parse(good)))
        #expect(
            read(["job 0", "layer 0", #"input "a.wav""#, "sound " + good])
                == [0: [0: .created(warnings: [], inputFiles: ["a.wav"], sounds: [sound])]])
        #expect(
            IsolatedPlanner.lines([0: [0: .created(warnings: [], inputFiles: ["a.wav"], sounds: [sound])]])
                == ["job 0", "layer 0", #"input "a.wav""#, "sound " + good, "planned"])
        for bad in [
            good.replacingOccurrences(of: #""speed":2"#, with: #""speed":0"#),
            good.replacingOccurrences(of: #""sourceLength":1.5,"#, with: ""),
            good.replacingOccurrences(of: #""stream":1"#, with: #""stream":1.5"#),
            good.replacingOccurrences(of: #""gain":-3"#, with: #""gain":"loud""#),
            good.replacingOccurrences(of: "a.wav", with: "b.wav"),
            "{}", "[]", "nan",
        ] {
            #expect(read(["job 0", "layer 0", #"input "a.wav""#, "sound " + bad]) == nil, "\(bad)")
        }
    }
}
