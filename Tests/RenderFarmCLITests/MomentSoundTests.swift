import Foundation
import RenderFarmJobs
import StrictJSON
import Testing

@testable import RenderFarm

/// Sounds at the moments things happen (ABI `moments`, RenderFarm article Sound): `"at": {"layer": …,
/// "moment": …}` plays a sound at each landing of a drop, whatever its seed or flight, through the layer's time.
@Suite(
    "Sounds at items' moments", .enabled(if: Tools.hasFFmpeg, "ffmpeg/ffprobe not installed: apt-get install ffmpeg"))
struct MomentSoundTests {
    /// A drop of three gifts (random flights) under a layer start and speed, a tick at each landing plus `offset`.
    static func job(seed: Int, start: Double, speed: Double, timing: String, offset: Double) -> String {
        """
        { "version": 1, "name": "landings", "seed": \(seed), "fps": 30, "duration": 4,
          "canvas": { "width": 375, "height": 667 },
          "layers": [ { "name": "drop", "effect": "parabolic-drop", "start": \(start), "speed": \(speed), "end": 4,
            "params": { "count": 3, "stagger": 0.45, "timing": "\(timing)",
              "from": { "x": 200, "y": 60, "width": 150, "height": 80 },
              "target": { "x": 60, "y": 560, "width": 220, "height": 60 } } } ],
          "audio": { "sounds": [ { "file": "tick.wav", "at": { "layer": "drop", "moment": "land", "offset": \(offset) } } ] } }
        """
    }

    /// The moments `trace --moments` lists for `file`, in order: the item, the moment's name, its job time.
    static func moments(_ file: String) throws -> [(item: Int, name: String, time: Double)] {
        let traced = CLI.run(["trace", file, "--moments"])
        try #require(traced.status == 0, "\(traced.stderr)")
        return traced.stdout.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let item = object["item"] as? Int, let name = object["moment"] as? String,
                let time = (object["time"] as? NSNumber)?.doubleValue
            else { return nil }
            return (item, name, time)
        }
    }

    /// Mixes `file` into `folder` and expects one onset within 1 ms of each of `times`, in order.
    static func expectOnsets(
        _ file: String, in folder: TemporaryFolder, at times: [Double], label: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let wav = folder.url.appendingPathComponent("mix.wav")
        let mix = CLI.run(["mix", file, "-o", wav.path])
        try #require(mix.status == 0, "\(label): \(mix.stderr)", sourceLocation: sourceLocation)
        let onsets = SoundTests.onsets(try SoundTests.decodeSound(wav.path)).map(\.time)
        #expect(
            onsets.count == times.count, "\(label): onsets \(onsets), moments \(times)", sourceLocation: sourceLocation)
        for (onset, time) in zip(onsets, times) {
            #expect(
                abs(onset - time) < 0.001, "\(label): onset \(onset) s, moment \(time) s",
                sourceLocation: sourceLocation)
        }
    }

    @Test("6 generated jobs: the mix's onsets fall within 1 ms of the traced landings, at any seed, start and speed")
    func onsetsAtLandings() throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["RENDERFARM_MOMENT_SEED"] ?? "") ?? 0x6D6F_6D
        var durations: Set<Double> = []
        for run in 0..<6 {
            var random = FuzzRandom(seed: seed &+ UInt64(run))
            let label = "RENDERFARM_MOMENT_SEED=\(seed &+ UInt64(run))"
            let folder = try TemporaryFolder()
            try SoundTests.tone(1000, amplitude: 0.8, seconds: 0.05).write(
                to: folder.url.appendingPathComponent("tick.wav"))
            let offset = random.chance(0.5) ? 0 : random.uniform(-0.1, 0.2)
            let file = try folder.write(
                Self.job(
                    seed: random.integer(1...100_000), start: random.uniform(0, 0.6),
                    speed: random.pick([0.75, 1, 1.5]),
                    timing: random.pick(["linear", "easeIn", "easeOutCubic"]), offset: offset), to: "job.json")
            let moments = try Self.moments(file)
            #expect(moments.count == 6, "\(label): \(moments)")
            let landings = moments.filter { $0.name == "land" }.map(\.time)
            let launches = moments.filter { $0.name == "launch" }.map(\.time)
            #expect(landings.count == 3 && launches.count == 3)
            for (launch, landing) in zip(launches, landings) { durations.insert(((landing - launch) * 1000).rounded()) }
            try Self.expectOnsets(
                file, in: folder, at: landings.map { $0 + offset }.filter { $0 >= 0 && $0 < 4 - 0.05 }, label: label)
        }
        // The flights differ (0.6, 0.64, 0.68 s at speed 1, and the layer's speed scales them).
        #expect(durations.count >= 3, "\(durations)")
    }

    @Test("floating hearts: a tick at each heart's spawn or fade's end, within 1 ms, for generated rates and lifetimes")
    func hearts() throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["RENDERFARM_MOMENT_SEED"] ?? "") ?? 0x6D6F_6D
        for run in 0..<3 {
            var random = FuzzRandom(seed: seed &+ UInt64(run) &+ 100)
            let label = "RENDERFARM_MOMENT_SEED=\(seed &+ UInt64(run)) (hearts)"
            let folder = try TemporaryFolder()
            try SoundTests.tone(1000, amplitude: 0.8, seconds: 0.05).write(
                to: folder.url.appendingPathComponent("tick.wav"))
            let (rate, lifetime) = (random.uniform(0.8, 2.5), random.uniform(0.6, 2))
            let (start, moment) = (random.uniform(0, 0.5), random.pick(["spawn", "faded"]))
            let file = try folder.write(
                """
                { "version": 1, "name": "hearts", "fps": 30, "duration": 4, "canvas": { "width": 375, "height": 667 },
                  "layers": [ { "name": "likes", "effect": "floating-heart", "start": \(start),
                    "params": { "rate": \(rate), "lifetime": \(lifetime) } } ],
                  "audio": { "sounds": [ { "file": "tick.wav", "at": { "layer": "likes", "moment": "\(moment)" } } ] } }
                """, to: "job.json")
            // Heart i spawns at start + i / rate and is removed a lifetime later.
            let spawns = (0..<Int(((4 - start) * rate).rounded(.up))).map { start + Double($0) / rate }.filter {
                $0 < 4
            }
            let times = try Self.moments(file).filter { $0.name == moment }.map(\.time)
            let expected = moment == "spawn" ? spawns : spawns.map { $0 + lifetime }
            #expect(
                times.count == expected.count && zip(times.sorted(), expected).allSatisfy { abs($0 - $1) < 1e-9 },
                "\(label): \(times) vs \(expected)")
            try Self.expectOnsets(file, in: folder, at: expected.filter { $0 < 4 - 0.05 }, label: label)
        }
    }

    @Test("an unknown layer or moment is refused by validate, with a suggestion and what there is")
    func refusals() throws {
        let folder = try TemporaryFolder()
        try SoundTests.tone(1000, amplitude: 0.8, seconds: 0.05).write(
            to: folder.url.appendingPathComponent("tick.wav"))
        let job = Self.job(seed: 1, start: 0, speed: 1, timing: "linear", offset: 0)
        for (from, to, message) in [
            (
                "\"layer\": \"drop\"", "\"layer\": \"drp\"",
                "no effect layer named \"drp\" (did you mean \"drop\"?); named layers: drop"
            ),
            (
                "\"moment\": \"land\"", "\"moment\": \"lnd\"",
                "layer \"drop\" (parabolic-drop) has no moment \"lnd\" (did you mean \"land\"?); its moments: launch, land"
            ),
            ("\"moment\": \"land\"", "\"moment\": \"Land\"", "\"Land\" is not a moment's name"),
            ("\"offset\": 0", "\"offset\": 90", "offset"),
        ] {
            let file = try folder.write(job.replacingOccurrences(of: from, with: to), to: "job.json")
            let validate = CLI.run(["validate", file])
            #expect(validate.status == 65, "\(to)")
            #expect(validate.stderr.contains(message), "\(to): \(validate.stderr)")
        }
    }

    @Test("moments cross the planning worker's protocol (render --isolate, the studio) as the plugin declared them")
    func plannerProtocol() throws {
        let moments = [
            try #require(DeclaredMoment(json: .object(["item": 0, "name": "launch", "time": 0.25]))),
            try #require(DeclaredMoment(json: .object(["item": 7, "name": "land", "time": 1.5]))),
        ]
        let reply: [Int: [Int: CreatedLayer]] = [0: [1: .created(warnings: [], inputFiles: [], moments: moments)]]
        var lines = IsolatedPlanner.lines(reply)[...]
        let read = try IsolatedPlanner.read { () throws(WorkerChannel.Failure) -> String in lines.popFirst() ?? "" }
        #expect(read == reply)
        #expect(DeclaredMoment(json: .object(["item": 0, "name": "Land", "time": 1])) == nil)
        #expect(DeclaredMoment(json: .object(["item": 0, "name": "land", "time": 1e9])) == nil)
    }
}
