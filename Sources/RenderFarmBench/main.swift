import Foundation

// renderfarm-bench [--quick] [--rounds N] [--main] [--stream] [--text] [--layers] [--particles] [--footage] [--startup]:
// see Bench.swift and the RenderFarm article Performance.
let arguments = Array(CommandLine.arguments.dropFirst())
let quick = arguments.contains("--quick")
var rounds = quick ? 1 : 3
if let index = arguments.firstIndex(of: "--rounds"), index + 1 < arguments.count, let value = Int(arguments[index + 1]),
    (1...50).contains(value)
{
    rounds = value
}
// --main: only the main table (the reference jobs against the C floor, memory, start-up, isolation, encoders).
let mainOnly = arguments.contains("--main")
// --stream: only the stream-length rows (StreamBench.swift), the incremental and the text rows.
let streamOnly = arguments.contains("--stream")
// --text: only the text banner rows (TextBench.swift).
let textOnly = arguments.contains("--text")
// --layers: only the composing-layer rows (CompositionBench.swift).
let layersOnly = arguments.contains("--layers")
// --particles: only the particle rows (ParticleBench.swift).
let particlesOnly = arguments.contains("--particles")
// --footage: only the footage rows (FootageBench.swift).
let footageOnly = arguments.contains("--footage")
// --startup: only start-up, `validate`'s time and peak RSS, and the 480-frame render's peak RSS (Bench.startup).
let startupOnly = arguments.contains("--startup")
let options = [
    "--quick", "--rounds", "--main", "--stream", "--text", "--layers", "--particles", "--footage", "--startup",
]
if arguments.contains(where: { !options.contains($0) && Int($0) == nil }) {
    FileHandle.standardError.write(
        Data(
            ("usage: renderfarm-bench [--quick] [--rounds N] [--main] [--stream] [--text] [--layers] [--particles] [--footage] "
                + "[--startup]\n").utf8))
    exit(64)
}

// The programs sit beside this one in the build folder; the jobs are read from the source tree.
let binaries = URL(fileURLWithPath: Bundle.main.executablePath ?? CommandLine.arguments[0]).deletingLastPathComponent()
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("renderfarm-bench-\(getpid())")
do {
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: scratch) }
    let runner = Runner(
        renderfarm: binaries.appendingPathComponent("renderfarm").path,
        floor: binaries.appendingPathComponent("renderfarm-bench-floor").path, scratch: scratch)
    let stream = StreamBench(runner: runner, quick: quick)
    let text = TextBench(runner: runner, quick: quick, rounds: rounds)
    let layers = CompositionBench(runner: runner, packageRoot: packageRoot, quick: quick)
    let footage = FootageBench(runner: runner, quick: quick)
    let particles = ParticleBench(runner: runner, quick: quick)
    if startupOnly {
        let startup = try Bench(quick: quick, rounds: rounds, packageRoot: packageRoot, runner: runner).startup()
        print(Report.line(startup) + "\n" + Report.check(startup))
    } else if layersOnly {
        print(try layers.run().joined(separator: "\n"))
    } else if particlesOnly {
        print(try particles.run().joined(separator: "\n"))
    } else if footageOnly {
        print(try footage.run().joined(separator: "\n"))
    } else if textOnly {
        print(try text.run().joined(separator: "\n"))
    } else if streamOnly {
        print(
            try (stream.run() + [IncrementalBench(runner: runner, quick: quick).run()] + text.run()).joined(
                separator: "\n"))
    } else {
        let bench = Bench(quick: quick, rounds: rounds, packageRoot: packageRoot, runner: runner)
        let rows = try bench.run()
        let memory = try bench.memory()
        let startup = try bench.startup()
        let isolation = try bench.isolation()
        let encoders = try EncoderBench(runner: runner, packageRoot: packageRoot, quick: quick).run()
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let counts = ReferenceJob.all(packageRoot: packageRoot).map { String(quick ? $0.quickFrames : $0.frames) }
        let header =
            "renderfarm-bench\(quick ? " --quick" : ""): \(cores) cores, "
            + "\(rounds) round\(rounds == 1 ? "" : "s"), frames per run: \(counts.joined(separator: "/")), "
            + "frames written to \(scratch.path) (\(fileSystem(of: scratch.path)))"
        print(
            Report(
                rows: rows, memory: memory, startup: startup, isolation: isolation, encoders: encoders,
                header: header
            ).text)
        if !mainOnly {
            print(
                try
                    (stream.run() + [IncrementalBench(runner: runner, quick: quick).run()] + text.run() + layers.run()
                    + particles.run() + footage.run())
                    .joined(separator: "\n"))
        }
        // After the table, so that a failure comes with everything measured; thrown, so scratch is removed.
        let failures = Bench.identityFailures(rows)
        if !failures.isEmpty {
            throw Runner.Failure.failed(failures.map { "FAILED: " + $0 }.joined(separator: "\nrenderfarm-bench: "))
        }
    }
} catch {
    FileHandle.standardError.write(Data("renderfarm-bench: \(error)\n".utf8))
    exit(1)
}
