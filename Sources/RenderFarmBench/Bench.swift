import Foundation

/// `renderfarm-bench [--quick] [--rounds N]`: renders the reference jobs with RenderFarm and
/// the C programs, interleaved round by round, and prints one table.
struct Bench {
    var quick: Bool
    var rounds: Int
    var packageRoot: URL
    var runner: Runner
    var cores = ProcessInfo.processInfo.activeProcessorCount

    /// One row of the table: a job at one `-j`.
    struct Row {
        var label: String
        var concurrency: Int
        var naiveTarget: Double?
        var results: [Variant: [Measurement]] = [:]
        var note: String?
        /// RenderFarm's frames against the C floor's with RenderFarm's encoder: the first round
        /// that differed, else the last; nil when the row was skipped.
        var identity: (round: Int, frames: FrameIdentity)?

        /// Why the row fails the identity check, naming the job, `-j`, round and first differing frame.
        var identityFailure: String? {
            guard let identity, let problem = identity.frames.problem else { return nil }
            return "\(label), -j \(concurrency), round \(identity.round): RenderFarm's frames are not byte-identical "
                + "to the C floor's (\(identity.frames.same)/\(identity.frames.total)); \(problem)"
        }
    }

    /// Every row's identity failure: frames are deterministic, so any difference fails the bench.
    static func identityFailures(_ rows: [Row]) -> [String] { rows.compactMap(\.identityFailure) }

    func run() throws -> [Row] {
        var rows: [Row] = []
        let concurrencies = cores > 1 ? [1, cores] : [1]
        for (number, job) in ReferenceJob.all(packageRoot: packageRoot).enumerated() {
            guard FileManager.default.fileExists(atPath: job.path) else {
                rows.append(
                    Row(
                        label: job.label, concurrency: 0,
                        note: "skipped: \(job.path.replacingOccurrences(of: packageRoot.path + "/", with: "")) "
                            + "does not exist yet"))
                continue
            }
            let count = quick ? job.quickFrames : job.frames
            let frames = job.frameSet(count: count)
            // The hand-written C drawing where it exists (stronger evidence), else the plugin ABI host:
            // the same plugin libraries driven by the smallest C host (Sources/RenderFarmBenchFloor).
            let scene = try FloorScene(jobFile: job.path)
            let kind = scene.unsupported == nil ? "bin" : "txt"
            let plan = runner.scratch.appendingPathComponent("plan-\(number).\(kind)")
            if scene.unsupported == nil {
                try FloorPlan.write(
                    scene: scene, job: job.path, frames: frames, renderfarm: runner.renderfarm,
                    scratch: runner.scratch, to: plan.path)
            } else {
                try HostPlan.write(job: job.path, frames: frames, scratch: runner.scratch, to: plan.path)
            }
            let floorNote = scene.unsupported.map { "C floor: plugin ABI host (\($0)); " } ?? ""
            for concurrency in concurrencies {
                var row = Row(label: job.label, concurrency: concurrency, naiveTarget: job.naiveTarget)
                let variants = Variant.allCases
                for round in 0..<rounds {
                    note("\(job.label), -j \(concurrency): round \(round + 1) of \(rounds)")
                    var folders: [Variant: String] = [:]
                    for variant in rotation(of: variants.count, round: round).map({ variants[$0] }) {
                        let folder = runner.scratch.appendingPathComponent("out-\(variant.rawValue)").path
                        try? FileManager.default.removeItem(atPath: folder)
                        folders[variant] = folder
                        let measured =
                            variant == .renderfarm
                            ? try runner.renderfarm(
                                job: job.path, frames: frames, count: count,
                                concurrency: concurrency, output: folder)
                            : try runner.floor(
                                variant, plan: plan.path, count: count, concurrency: concurrency,
                                output: folder)
                        row.results[variant, default: []].append(measured)
                    }
                    // Every round: the same frames must come out whatever the load and the order.
                    if let mine = folders[.renderfarm], let theirs = folders[.floorEngine],
                        row.identity?.frames.isIdentical ?? true
                    {
                        let check = FrameIdentity(renderfarm: mine, floor: theirs, expected: count)
                        row.identity = (round + 1, check)
                        row.note =
                            floorNote + "content \(check.isIdentical ? "identical" : "NOT identical"): "
                            + "\(check.same)/\(check.total) frames byte-identical to the C floor using RenderFarm's "
                            + "encoder" + (check.problem.map { " (round \(round + 1)); \($0)" } ?? "")
                    }
                    for folder in folders.values { try? FileManager.default.removeItem(atPath: folder) }
                }
                rows.append(row)
            }
        }
        return rows
    }

    /// Peak RSS of RenderFarm for a short and a ten times longer run of the first reference job.
    func memory() throws -> (short: (frames: Int, kib: Int), long: (frames: Int, kib: Int), concurrency: Int) {
        let job = ReferenceJob.all(packageRoot: packageRoot)[0]
        let short = quick ? 60 : 600
        var peaks: [Int] = []
        for count in [short, short * 10] {
            note("memory: \(count) frames of \(job.label), -j \(cores)")
            let folder = runner.scratch.appendingPathComponent("out-memory").path
            let measured = try runner.renderfarm(
                job: job.path, frames: job.frameSet(count: count), count: count,
                concurrency: cores, output: folder)
            try? FileManager.default.removeItem(atPath: folder)
            peaks.append(measured.peakKiB)
        }
        return ((short, peaks[0]), (short * 10, peaks[1]), cores)
    }

    /// `render --isolate` (frames drawn in sandboxed worker processes) and `--isolate --sandbox off`
    /// against in-process rendering of the first reference job at -j cores, in a rotated order
    /// round by round: median fps of each.
    func isolation() throws -> Isolation {
        let job = ReferenceJob.all(packageRoot: packageRoot)[0]
        let count = quick ? job.quickFrames : job.frames
        let modes: [[String]] = [[], ["--isolate"], ["--isolate", "--sandbox", "off"]]
        var fps: [[Double]] = modes.map { _ in [] }
        for round in 0..<rounds {
            note("isolation: \(job.label), -j \(cores): round \(round + 1) of \(rounds)")
            for mode in rotation(of: modes.count, round: round) {
                let folder = runner.scratch.appendingPathComponent("out-isolation").path
                let measured = try runner.renderfarm(
                    job: job.path, frames: job.frameSet(count: count), count: count, concurrency: cores,
                    output: folder, extra: modes[mode])
                try? FileManager.default.removeItem(atPath: folder)
                fps[mode].append(measured.fps)
            }
        }
        return Isolation(
            label: job.label, frames: count, concurrency: cores, inProcess: median(fps[0]),
            isolated: median(fps[1]), unsandboxed: median(fps[2]),
            ratio: median(zip(fps[1], fps[0]).map { $0 / max($1, 1e-9) }))
    }

    /// What `isolation()` measured.
    struct Isolation {
        var label: String
        var frames: Int
        var concurrency: Int
        var inProcess: Double
        /// Sandboxed workers (`--sandbox strict`, the default).
        var isolated: Double
        /// Workers without the sandbox (`--sandbox off`).
        var unsandboxed: Double
        /// Median of per-round sandboxed isolated / in-process fps.
        var ratio: Double

        /// The time `--isolate` takes against in-process rendering.
        var timeRatio: Double { 1 / max(ratio, 1e-9) }
    }

    /// Start-up: `renderfarm validate jobs/live-hearts.json` over `runs` runs; and the memory of rendering that
    /// job whole (480 frames) at `-j 2`.
    struct Startup {
        /// Median wall time, in ms.
        var milliseconds: Double
        /// Median peak RSS, in KiB: what a command that loads one plugin and draws nothing holds.
        var peakKiB: Int
        /// Median peak RSS, in KiB, of `render jobs/live-hearts.json -j 2` (its 480 frames).
        var renderPeakKiB: Int
    }

    func startup(runs: Int = 11) throws -> Startup {
        let job = packageRoot.appendingPathComponent("jobs/live-hearts.json").path
        // Timed without GNU time's own start; its memory measured through it, in three more runs.
        let timed = (0..<runs).map { _ in
            ChildProcess.run([runner.renderfarm, "validate", job], measuringMemory: false).seconds * 1000
        }
        let peaks = (0..<3).map { _ in Double(ChildProcess.run([runner.renderfarm, "validate", job]).peakKiB) }
        let output = runner.scratch.appendingPathComponent("out-startup").path
        let renders = try (0..<3).map { _ in
            defer { try? FileManager.default.removeItem(atPath: output) }
            let run = ChildProcess.run([
                runner.renderfarm, "render", job, "--out", output, "--progress", "none", "-j", "2",
            ])
            guard run.exitCode == 0 else { throw Runner.Failure.failed("render of \(job) exited \(run.exitCode)") }
            return Double(run.peakKiB)
        }
        return Startup(milliseconds: median(timed), peakKiB: Int(median(peaks)), renderPeakKiB: Int(median(renders)))
    }
}

/// A progress line on standard error (the table itself goes to standard output).
func note(_ text: String) {
    FileHandle.standardError.write(Data(("renderfarm-bench: " + text + "\n").utf8))
}
