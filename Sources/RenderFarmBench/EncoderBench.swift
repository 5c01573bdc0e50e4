import Foundation

/// The PNG encoders alone (issue 47): RenderFarm's level 1 against libpng's level 1 (the C floor's writer)
/// and libdeflate's level 1, in megapixels per second on one thread, on frames RenderFarm rendered of the
/// 1080p opaque and 720p transparent reference jobs (`renderfarm-bench-floor encoders`).
struct EncoderBench {
    /// One encoder's result on one job's frames.
    struct Result {
        var encoder: String
        var megapixelsPerSecond: Double
        var bytesPerFrame: Double
    }

    var runner: Runner
    var packageRoot: URL
    var quick: Bool

    /// Each job's label and its encoders' results, RenderFarm's first.
    func run() throws -> [(label: String, results: [Result])] {
        try ReferenceJob.all(packageRoot: packageRoot).prefix(2).enumerated().map { number, job in
            note("encoders alone: \(job.label)")
            let count = quick ? 3 : 12
            let folder = runner.scratch.appendingPathComponent("out-encoders-\(number)").path
            _ = try runner.renderfarm(
                job: job.path, frames: job.frameSet(count: count), count: count, concurrency: 1, output: folder)
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let frames = Runner.pngFiles(in: folder).sorted().map { folder + "/" + $0 }
            let log = runner.scratch.appendingPathComponent("encoders.txt").path
            let run = ChildProcess.run([runner.floor, "encoders"] + frames, stdout: log)
            guard run.exitCode == 0, let text = try? String(contentsOfFile: log, encoding: .utf8) else {
                throw Runner.Failure.failed("renderfarm-bench-floor encoders exited \(run.exitCode)")
            }
            let results = text.split(separator: "\n").compactMap { line -> Result? in
                let fields = line.split(separator: " ")
                guard fields.count == 3, let speed = Double(fields[1]), let bytes = Double(fields[2]) else {
                    return nil
                }
                return Result(encoder: String(fields[0]), megapixelsPerSecond: speed, bytesPerFrame: bytes)
            }
            return (job.label, results)
        }
    }
}
