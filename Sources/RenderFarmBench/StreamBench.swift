import Foundation
import Locking

/// Issue 15's rows: stream-length jobs whose cost must follow what is on screen, not their length.
///
/// - validate time and peak RSS of one layer set (hearts at 5/s, a physics gift every 0.54 s with an
///   8 s lifetime) at 1 minute, 1 hour and 3 hours: flat;
/// - render throughput of 300 frames at the start and at the end of the 3-hour job: equal;
/// - a 3-hour replay driven by CSV event logs (100,000 hearts, 20,000 physics gifts) rendered as
///   `--shard 0/100` and `--shard 99/100` (the last shard, which simulates the whole job before its
///   first frame) at `-j 2`: planning (until the render's `start` event) under 2 s, peak RSS under
///   200 MB; then the cluster's way, `renderfarm prepare` once (the Slurm job before the array) and the
///   last shard again, starting from the checkpoints it left in the output folder's cache.
///
/// `--quick` (CI) renders and replays 10 minutes instead of 3 hours, with as many events a second.
struct StreamBench {
    var runner: Runner
    var quick: Bool

    /// How long the long jobs run: 3 hours, or 10 minutes with `--quick`, where CI only checks that the
    /// rows run (the physics layer of the last frames simulates the whole span, 20 s a run for 3 hours).
    private var span: (seconds: Double, label: String) { quick ? (600, "10 min") : (10_800, "3 h") }

    /// The lines of the section, ready to print.
    func run() throws -> [String] {
        var lines = ["", "stream-length jobs (issue 15; goals: flat, equal, planning < 2 s, peak RSS < 200 MB)"]
        for (label, seconds) in [("1 min", 60.0), ("1 h", 3600.0), ("3 h", 10_800.0)] {
            note("stream: validate \(label)")
            let job = try write(Self.layered(duration: seconds), name: "layered-\(Int(seconds))")
            let run = ChildProcess.run([runner.renderfarm, "validate", job])
            try check(run, "validate \(label)")
            lines.append(Self.row("validate \(label)", String(format: "%.2f s", run.seconds), run.peakKiB))
        }
        let long = try write(Self.layered(duration: span.seconds), name: "layered-\(Int(span.seconds))")
        let count = quick ? 60 : 300
        let last = Int(span.seconds) * 60 - 1
        for (label, frames) in [("start", "0-\(count - 1)"), ("end", "\(last - count + 1)-\(last)")] {
            note("stream: render \(count) frames at the \(label) of \(span.label)")
            let timed = try render(long, ["--frames", frames, "-j", "2"])
            // Drawing only: the planning (a physics layer simulates up to the last frame) is its own figure.
            let fps = Double(count) / max(timed.run.seconds - timed.planning, 1e-9)
            lines.append(
                Self.row(
                    "render \(span.label), \(count) frames at \(label), -j 2",
                    String(format: "%.1f fps (%.2f s, planning %.2f s)", fps, timed.run.seconds, timed.planning),
                    timed.run.peakKiB))
        }
        // The first shard and the last, which simulates the whole job before its first frame;
        // --quick renders a tenth of their frames (the same simulated spans).
        let shards = quick ? 1000 : 100
        let replay = try writeReplay()
        let name = "replay \(span.label)"
        for index in [0, shards - 1] {
            let part = "\(index)/\(shards)"
            note("stream: \(name), --shard \(part)")
            let shard = try render(replay.job, ["--shard", part, "-j", "2"])
            lines.append(
                Self.row(
                    "\(name) (\(replay.events)) --shard \(part), -j 2",
                    String(format: "planning %.2f s, total %.1f s", shard.planning, shard.run.seconds),
                    shard.run.peakKiB))
        }
        note("stream: \(name), renderfarm prepare, then --shard \(shards - 1)/\(shards)")
        try? FileManager.default.removeItem(atPath: output)
        let prepare = ChildProcess.run([runner.renderfarm, "prepare", replay.job, "--out", output])
        try check(prepare, "prepare")
        lines.append(
            Self.row(
                "\(name): renderfarm prepare (once, before the shards)",
                String(format: "%.1f s", prepare.seconds), prepare.peakKiB))
        let warm = try render(replay.job, ["--shard", "\(shards - 1)/\(shards)", "-j", "2"], keepingCache: true)
        lines.append(
            Self.row(
                "\(name) --shard \(shards - 1)/\(shards) after prepare, -j 2",
                String(format: "planning %.2f s, total %.1f s", warm.planning, warm.run.seconds), warm.run.peakKiB))
        return lines
    }

    /// A row of the sections after the main table: the label, the figure and the peak RSS in columns
    /// (a label too long for its column keeps a space before the figure).
    static func row(_ label: String, _ value: String, _ peakKiB: Int) -> String {
        label.padding(toLength: max(62, label.count + 1), withPad: " ", startingAt: 0)
            + value.padding(toLength: 44, withPad: " ", startingAt: 0)
            + "peak RSS \(peakKiB / 1024) MB"
    }

    /// Hearts at 5/s and a physics gift every 0.54 s that lives 8 s: the same layers at any length.
    static func layered(duration: Double) -> String {
        let gifts = Int(duration / 0.54)
        return """
            { "name": "stream-\(Int(duration))", "fps": 60, "duration": \(duration),
              "canvas": {"width": 375, "height": 667, "scale": 1}, "output": {"compression": "fast"},
              "layers": [
                { "effect": "physics-bounce", "params": { "bounds": true, "size": 36, "lifetime": 8,
                  "spawn": {"count": \(gifts), "interval": 0.54, "area": {"x": 40, "y": 20, "width": 295, "height": 60}} } },
                { "effect": "floating-heart", "params": {"rate": 5, "emitter": [330, 630], "lifetime": 4} } ] }
            """
    }

    /// The replay: CSV event logs of likes and gifts at seeded random times, 100,000 likes and 20,000
    /// gifts in 3 hours (as many a second over a shorter span); the job file and what its logs hold.
    func writeReplay() throws -> (job: String, events: String) {
        var random = ReplayRandom(state: 15)
        let duration = span.seconds
        let likeCount = Int(100_000 * duration / 10_800)
        let giftCount = Int(20_000 * duration / 10_800)
        let colors = ["", "#FF4D6D", "#3A86FF", "#FFB703"]
        let likes = (0..<likeCount).map { _ in random.unit() * duration }.sorted()
        let likeRows = likes.map { String(format: "%.3f,", $0) + colors[Int(random.next() % 4)] }
        try ("time,color\n" + likeRows.joined(separator: "\n") + "\n").write(
            to: runner.scratch.appendingPathComponent("likes.csv"), atomically: true, encoding: .utf8)
        let shapes = ["gift", "coin", "box"]
        let gifts = (0..<giftCount).map { _ in random.unit() * duration }.sorted()
        let giftRows = gifts.map { String(format: "%.3f,", $0) + shapes[Int(random.next() % 3)] }
        try ("time,shape\n" + giftRows.joined(separator: "\n") + "\n").write(
            to: runner.scratch.appendingPathComponent("gifts.csv"), atomically: true, encoding: .utf8)
        let job = try write(
            """
            { "name": "replay-\(span.label.filter { $0 != " " })", "seed": 5, "fps": 60, "duration": \(duration),
              "canvas": {"width": 375, "height": 667, "scale": 1}, "output": {"compression": "fast"},
              "layers": [
                { "effect": "physics-bounce", "params": {"events": "gifts.csv", "lifetime": 8, "bounds": true, "size": 36} },
                { "effect": "floating-heart", "params": {"events": "likes.csv", "emitter": [330, 630], "lifetime": 4} } ] }
            """, name: "replay")
        let short = { (count: Int) in count % 1000 == 0 ? "\(count / 1000)k" : "\(count)" }
        return (job, "\(short(likeCount)) hearts, \(short(giftCount)) gifts")
    }

    private func write(_ text: String, name: String) throws -> String {
        let url = runner.scratch.appendingPathComponent("\(name).json")
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    private func check(_ run: ChildRun, _ what: String) throws {
        guard run.exitCode == 0 else { throw Runner.Failure.failed("\(what) exited with \(run.exitCode)") }
    }

    /// The output folder of the renders.
    private var output: String { runner.scratch.appendingPathComponent("out-stream").path }

    /// A render with `--progress json` into a fresh output folder (or one whose cache `prepare` filled,
    /// `keepingCache`), and how long it took until its `start` event (the planning).
    private func render(_ job: String, _ arguments: [String], keepingCache: Bool = false) throws
        -> (run: ChildRun, planning: Double)
    {
        if !keepingCache { try? FileManager.default.removeItem(atPath: output) }
        defer { try? FileManager.default.removeItem(atPath: output) }
        let log = runner.scratch.appendingPathComponent("stream-progress.log").path
        try? FileManager.default.removeItem(atPath: log)
        let command = [runner.renderfarm, "render", job, "--out", output, "--progress", "json"] + arguments
        let finished = Locked<ChildRun?>(nil)
        let done = DispatchSemaphore(value: 0)
        let clock = ContinuousClock()
        let started = clock.now
        Thread.detachNewThread {
            let run = ChildProcess.run(command, stderr: log)
            finished.withLock { $0 = run }
            done.signal()
        }
        var planning: Double?
        // Polls the progress log for the start event while the render runs (every 5 ms).
        while done.wait(timeout: .now() + .milliseconds(5)) == .timedOut {
            if planning == nil, let text = try? String(contentsOfFile: log, encoding: .utf8),
                text.contains(#""event":"start""#)
            {
                let elapsed = clock.now - started
                planning = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            }
        }
        guard let run = finished.withLock({ $0 }) else { throw Runner.Failure.failed("render did not finish") }
        try check(run, "render \(arguments.joined(separator: " "))")
        return (run, planning ?? run.seconds)
    }
}

/// A 64-bit linear congruential generator (Knuth's MMIX constants): the replay's event times, the
/// same on every run of the bench.
struct ReplayRandom {
    var state: UInt64

    mutating func next() -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return state >> 11
    }

    /// A double in [0, 1).
    mutating func unit() -> Double { Double(next()) / Double(1 << 53) }
}
