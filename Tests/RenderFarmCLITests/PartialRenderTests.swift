import Foundation
import Testing

/// The determinism rule (the RenderFarm article JobFileReference, "Seeds and determinism"): the bytes of
/// frame k depend only on the job, the plugins and k, never on which run drew it, in which order, or what its
/// worker drew before. Checked on a job that draws through the host's compositor (groups with `start`,
/// `speed`, `loop` and `end`; opacity and a blend mode) with physics layers in colours that are not opaque,
/// rendered whole and in pieces: `--frames` subsets in a random order, shards of both modes, and a resume
/// after deleting frames, at -j 1 and -j 2. (Layer surfaces reused from frame to frame drew other bytes than
/// new ones: `ReusedSurfaceTests`.)
@Suite("Partial renders equal whole ones")
struct PartialRenderTests {
    /// Physics in a sped-up group and in a looping, ending group inside another; a shape beside it.
    static let job = """
        { "name": "bounce-in-groups", "version": 1, "fps": 30, "duration": 1, "seed": 43,
          "canvas": {"width": 90, "height": 72, "scale": 1, "background": "#28C9B477"},
          "output": {"compression": "fast"},
          "layers": [
            { "name": "sped", "start": 0.1, "speed": 1.5, "transform": {"rotation": 89.8, "position": [60, 10]},
              "group": [
                { "effect": "physics-bounce", "start": 0.08, "transform": {"anchor": [16.4, 39.5], "rotation": 46.1},
                  "params": {
                    "spawn": {"count": 3, "interval": 0.2, "area": {"x": 6, "y": -8, "width": 42, "height": 12}},
                    "size": 30, "color": "#FD4CBACF", "allowsRotation": true, "elasticity": 0.4, "bounds": true,
                    "barrier": {"from": [0, 60], "to": [90, 50]} } },
                { "effect": "shape", "opacity": 0.7,
                  "params": { "kind": "ellipse", "rect": {"x": 31.2, "y": 40.7, "width": 26.2, "height": 27.5},
                              "fill": "#8A2387C0" } } ] },
            { "name": "looped", "start": 0.2, "loop": 0.5, "end": 0.9, "opacity": 0.8,
              "group": [
                { "start": 0.05, "transform": {"scale": 1.2, "position": [3.3, 1.7]},
                  "group": [
                    { "effect": "physics-bounce", "blend": "multiply", "speed": 0.5,
                      "params": { "items": [ {"at": [30, 5], "velocity": [40, 0]}, {"at": [55, -10], "size": 34} ],
                                  "shape": "circle", "size": 26, "color": "#3080E0A0" } } ] } ] } ] }
        """
    static let frameCount = 30
    /// Each kind of partial render is tried this many times, with other pieces each time.
    static let rounds = 3

    @Test("whole renders, --frames pieces, shards and a resume write the same bytes", arguments: [1, 2])
    func piecesEqualWhole(workers: Int) throws {
        let folder = try TemporaryFolder()
        let job = try folder.write(Self.job, to: "job.json")
        let runs = Runs(job: job, folder: folder, workers: workers)
        let whole = try runs.render(named: "reference", workers: 1)
        try #require(whole.count == Self.frameCount, "the reference render wrote \(whole.count) frames")
        var random = FuzzRandom(seed: 43 + UInt64(workers))
        var differences: [String] = []
        func compare(_ label: String, _ frames: [String: String]) {
            let differing = frames.keys.filter { frames[$0] != whole[$0] }.sorted()
            if !differing.isEmpty { differences.append("\(label): \(differing.joined(separator: ", "))") }
        }
        for round in 0..<Self.rounds {
            compare("whole render \(round)", try runs.render(named: "whole-\(round)"))
            compare("--frames pieces \(round)", try runs.pieces(random: &random, round: round))
            compare("shards \(round)", try runs.shards(random: &random, round: round))
            compare("resume \(round)", try runs.resume(random: &random, round: round))
        }
        let list = differences.joined(separator: "\n")
        #expect(differences.isEmpty, "frames that differ from the whole render at -j 1:\n\(list)")
    }

    /// The renders of one test, each into a folder of its own.
    struct Runs {
        let job: String
        let folder: TemporaryFolder
        let workers: Int

        /// Renders into folder `name` (with `workers` frames in flight, the test's by default) and returns its
        /// frames' checksums by file name.
        func render(named name: String, workers: Int? = nil, extra: [String] = []) throws -> [String: String] {
            let out = folder.url.appendingPathComponent(name)
            let jobs = "\(workers ?? self.workers)"
            let arguments = ["render", job, "--out", out.path, "--progress", "none", "-j", jobs] + extra
            let result = CLI.run(arguments)
            try #require(result.status == 0, "\(arguments.joined(separator: " ")): \(result.stderr)")
            return try frameChecksums(out)
        }

        /// The frames split into two to four random subsets, one a single frame, rendered one after
        /// another in a random order, each in its own run.
        func pieces(random: inout FuzzRandom, round: Int) throws -> [String: String] {
            var frames = Array(0..<PartialRenderTests.frameCount)
            for index in frames.indices.reversed() { frames.swapAt(index, random.next(index + 1)) }
            let cuts = ([1] + (0..<random.integer(1...3)).map { _ in random.integer(2...(frames.count - 1)) })
            let bounds = Array(Set(cuts)).sorted()
            var pieces: [[Int]] = []
            var start = 0
            for end in bounds + [frames.count] {
                pieces.append(frames[start..<end].sorted())
                start = end
            }
            var drawn: [String: String] = [:]
            for (index, piece) in pieces.enumerated() {
                let set = piece.map(String.init).joined(separator: ",")
                drawn.merge(try render(named: "pieces-\(round)-\(index)", extra: ["--frames", set])) { $1 }
            }
            return drawn
        }

        /// Two to four shards of a random mode into one folder, the shards run in a random order.
        func shards(random: inout FuzzRandom, round: Int) throws -> [String: String] {
            let count = random.integer(2...4)
            let mode = random.pick(["contiguous", "interleaved"])
            var order = Array(0..<count)
            for index in order.indices.reversed() { order.swapAt(index, random.next(index + 1)) }
            var drawn: [String: String] = [:]
            for shard in order {
                drawn = try render(
                    named: "shards-\(round)", extra: ["--shard", "\(shard)/\(count)", "--shard-mode", mode])
            }
            return drawn
        }

        /// A whole render, then a run of middle frames and a few others deleted, then the same render again.
        func resume(random: inout FuzzRandom, round: Int) throws -> [String: String] {
            let name = "resume-\(round)"
            _ = try render(named: name)
            let first = random.integer(1...(PartialRenderTests.frameCount / 2))
            let deleted = Set(first..<(first + random.integer(2...8)))
                .union((0..<3).map { _ in random.next(PartialRenderTests.frameCount) })
            let out = folder.url.appendingPathComponent(name)
            for index in deleted {
                let frame = out.appendingPathComponent(String(format: "frame_%05d.png", index))
                try FileManager.default.removeItem(at: frame)
            }
            let drawn = try render(named: name)
            #expect(drawn.count == PartialRenderTests.frameCount, "the resume drew every deleted frame again")
            return drawn
        }
    }
}
