import Foundation

/// Issue 29's rows: a 1080p30 H.264 clip with 50 hearts on top at `-j 2`, against the same job without the
/// footage and against `ffmpeg -i clip -f null -` (decoding alone): fps and peak RSS. The goal is at least
/// 0.8× the slower of the two. The renders run with the PNG level of the other benchmarks ("fast"), then with
/// level 0 (stored, no deflate), which shows what footage costs besides compressing its busy pictures, then at
/// `-j 1`, where the second core is free for the layer's decoding ahead. `--quick` uses a 2-second clip instead
/// of 10 seconds. Each row also states the CPU time (user + system) and the ratio by CPU time, which another
/// build on the same cores disturbs far less than the fps.
///
/// The ceiling line says how close `-j 2` can come on this machine: with both cores busy drawing, decoding is
/// added CPU time, so the footage job takes at least the CPU time of the job without it plus that of decoding
/// on one thread (`ffmpeg -threads 1`), even if converting and painting the pictures cost nothing.
struct FootageBench {
    var runner: Runner
    var quick: Bool

    static let fps = 30

    /// How one pair of renders (with and without the footage) runs.
    private struct Setting {
        var compression: String
        var concurrency: Int
    }

    private static let settings = [
        Setting(compression: "\"fast\"", concurrency: 2), Setting(compression: "0", concurrency: 2),
        Setting(compression: "\"fast\"", concurrency: 1),
    ]

    /// The lines of the section, ready to print.
    func run() throws -> [String] {
        let seconds = quick ? 2 : 10
        let frames = seconds * Self.fps
        var lines = ["", "footage (issue 29): a \(seconds)-second 1080p30 H.264 clip, 50 hearts on top"]
        let clip = runner.scratch.appendingPathComponent("footage.mp4").path
        note("footage: encoding the clip")
        let made = ChildProcess.run([
            "/usr/bin/ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i",
            "testsrc2=s=1920x1080:r=\(Self.fps):d=\(seconds)", "-c:v", "libx264", "-preset", "veryfast", "-crf", "20",
            "-g", "60", "-pix_fmt", "yuv420p", clip,
        ])
        guard made.exitCode == 0 else { throw Runner.Failure.failed("ffmpeg could not encode the footage clip") }
        note("footage: ffmpeg decoding alone")
        let decode = try Self.decode(clip, threads: [])
        let alone = Double(frames) / max(decode.seconds, 1e-9)
        lines.append(Self.row("ffmpeg -i clip -f null - (decoding alone)", frames, decode))
        let oneThread = try Self.decode(clip, threads: ["-threads", "1"])
        lines.append(Self.row("ffmpeg -threads 1 -i clip -f null -", frames, oneThread))
        for setting in Self.settings {
            let name = "PNG level \(setting.compression), -j \(setting.concurrency)"
            var rates: [Bool: Double] = [:]
            var cpu: [Bool: Double] = [:]
            for withFootage in [true, false] {
                let label = "\(frames) frames \(withFootage ? "with" : "without") the footage, \(name)"
                note("footage: \(label)")
                let run = try render(frames: frames, withFootage: withFootage, setting)
                rates[withFootage] = Double(frames) / max(run.seconds, 1e-9)
                cpu[withFootage] = run.cpuSeconds
                lines.append(Self.row(label, frames, run))
            }
            guard let footage = rates[true], let hearts = rates[false], let footageCPU = cpu[true],
                let heartsCPU = cpu[false], footageCPU > 0
            else { continue }
            let ratio = footage / min(hearts, alone)
            let goal = setting.concurrency == 2 ? " (goal ≥ 0.8×: \(ratio >= 0.8 ? "met" : "not met"))" : ""
            lines.append(
                "  \(name): with footage / the slower of the other two: " + String(format: "%.2f", ratio) + "×\(goal)")
            let byCPU = String(format: "%.2f", heartsCPU / footageCPU)
            lines.append("  \(name): CPU time without / with footage: \(byCPU)×")
            if setting.concurrency == 2 {
                let ceiling = heartsCPU / (heartsCPU + oneThread.cpuSeconds)
                lines.append(
                    "  \(name): ceiling by CPU time, without / (without + decoding on one thread): "
                        + String(format: "%.2f", ceiling) + "×")
            }
        }
        return lines
    }

    private static func decode(_ clip: String, threads: [String]) throws -> ChildRun {
        let run = ChildProcess.run(["/usr/bin/ffmpeg", "-v", "error"] + threads + ["-i", clip, "-f", "null", "-"])
        guard run.exitCode == 0 else { throw Runner.Failure.failed("ffmpeg could not decode the footage clip") }
        return run
    }

    private func render(frames: Int, withFootage: Bool, _ setting: Setting) throws -> ChildRun {
        let job = runner.scratch.appendingPathComponent("footage.json")
        try Self.job(frames: frames, withFootage: withFootage, compression: setting.compression).write(
            to: job, atomically: true, encoding: .utf8)
        let output = runner.scratch.appendingPathComponent("out-footage").path
        try? FileManager.default.removeItem(atPath: output)
        defer { try? FileManager.default.removeItem(atPath: output) }
        let run = ChildProcess.run([
            runner.renderfarm, "render", job.path, "--out", output, "--progress", "none",
            "-j", "\(setting.concurrency)",
        ])
        guard run.exitCode == 0 else { throw Runner.Failure.failed("footage bench render exited \(run.exitCode)") }
        return run
    }

    static func row(_ label: String, _ frames: Int, _ run: ChildRun) -> String {
        StreamBench.row(
            label,
            String(
                format: "%.1f fps (%.2f s, CPU %.2f s)", Double(frames) / max(run.seconds, 1e-9), run.seconds,
                run.cpuSeconds), run.peakKiB)
    }

    /// 1080p30 with about 50 hearts on screen (10 a second living 5 s), over the clip or over black.
    static func job(frames: Int, withFootage: Bool, compression: String) -> String {
        let footage = """
            { "effect": "video", "params": { "file": "footage.mp4", "fit": "cover" } },
            """
        return """
            { "name": "footage", "seed": 29, "fps": \(fps), "duration": \(Double(frames) / Double(fps)),
              "canvas": {"width": 1920, "height": 1080, "scale": 1, "background": "#000000"},
              "output": {"compression": \(compression)},
              "layers": [
                \(withFootage ? footage : "")
                { "effect": "floating-heart", "params": {"rate": 10, "emitter": [1700, 1000], "size": 72, "lifetime": 5} } ] }
            """
    }
}
