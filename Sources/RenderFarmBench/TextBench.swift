import Foundation

/// Issue 28's rows: a 10-minute gift replay with 1,000 text banners (names in six scripts and emoji, a
/// counting `{{count}}`), against the same job without the text layer, at `-j 2`: fps and peak RSS, medians of
/// `rounds` rounds that run both jobs in turn (the order rotated each round, so that drift in the machine's load
/// falls on both), and the text layer's cost against issue 47's goal. `--quick` renders the first minute of each.
struct TextBench {
    var runner: Runner
    var quick: Bool
    var rounds: Int

    static let duration = 600.0
    static let fps = 30.0
    /// The most the text layer may cost, as any kind of layer: the job with it takes at most this times the job
    /// without it.
    static let goal = CompositionBench.goal

    /// The lines of the section, ready to print.
    func run() throws -> [String] {
        try writeLog()
        let count = Int(Self.duration * Self.fps) / (quick ? 10 : 1)
        let variants = [("with the text layer", true), ("without the text layer", false)]
        var runs: [[ChildRun]] = variants.map { _ in [] }
        for round in 0..<rounds {
            for index in rotation(of: variants.count, round: round) {
                let (label, withText) = variants[index]
                note("text: 10 min replay \(label), round \(round + 1) of \(rounds)")
                runs[index].append(try render(count: count, withText: withText))
            }
        }
        let seconds = runs.map { median($0.map(\.seconds)) }
        let cpu = runs.map { median($0.map(\.cpuSeconds)) }
        var lines = [
            "",
            "text banners (issues 28, 47): \(quick ? "the first minute of " : "")a 10-minute replay with 1,000 gift "
                + "banners, -j 2, medians of \(rounds) "
                + "round\(rounds == 1 ? "" : "s"); goal: at most \(Self.goal)× the time without the text layer",
        ]
        for (index, (label, _)) in variants.enumerated() {
            lines.append(
                StreamBench.row(
                    "\(count) frames \(label)",
                    String(
                        format: "%.1f fps (%.1f s, CPU %.1f s)", Double(count) / max(seconds[index], 1e-9),
                        seconds[index], cpu[index]),
                    Int(median(runs[index].map { Double($0.peakKiB) }))))
        }
        let ratio = seconds[0] / max(seconds[1], 1e-9)
        // The first minute alone weighs the text plugin's start (reading the fonts) against 1,800 frames: the
        // goal is for the whole replay.
        let verdict = quick ? "not judged with --quick" : ratio <= Self.goal ? "met" : "NOT met"
        lines.append(
            String(
                format: "  the text layer: %.2f× the time without it (%.2f× by CPU time): %@", ratio,
                cpu[0] / max(cpu[1], 1e-9), verdict))
        return lines
    }

    private func render(count: Int, withText: Bool) throws -> ChildRun {
        let job = try write(Self.job(withText: withText), name: withText ? "banners" : "no-banners")
        let output = runner.scratch.appendingPathComponent("out-text").path
        try? FileManager.default.removeItem(atPath: output)
        defer { try? FileManager.default.removeItem(atPath: output) }
        let run = ChildProcess.run([
            runner.renderfarm, "render", job, "--out", output, "--progress", "none", "-j", "2", "--frames",
            "0-\(count - 1)",
        ])
        guard run.exitCode == 0 else { throw Runner.Failure.failed("text bench render exited \(run.exitCode)") }
        return run
    }

    /// Hearts at 5/s over a gradient, with or without the banners of gifts.csv.
    static func job(withText: Bool) -> String {
        let text = """
            , { "effect": "text", "params": { "text": "<b>{{user}}</b> sent {{gift}} ×{{count}}", "markup": true,
                "events": "gifts.csv", "size": 16, "maxLines": 1, "direction": "ltr",
                "rect": {"x": 16, "y": 300, "width": 260, "height": 300},
                "background": {"color": "#00000099", "padding": 8, "radius": 18},
                "banner": {"hold": 2, "count": {"duration": 0.6}} } }
            """
        return """
            { "name": "text-replay", "seed": 28, "fps": \(fps), "duration": \(duration),
              "canvas": {"width": 375, "height": 667, "scale": 1}, "output": {"compression": "fast"},
              "layers": [
                { "effect": "gradient", "params": {"from": "#241734", "to": "#7A2048", "angle": 90} },
                { "effect": "floating-heart", "params": {"rate": 5, "emitter": [330, 630], "lifetime": 3} }
                \(withText ? text : "") ] }
            """
    }

    /// 1,000 gifts at seeded random times over the 10 minutes.
    private func writeLog() throws {
        var random = ReplayRandom(state: 28)
        let users = ["aiko", "أحمد", "דוד", "さくら", "李小龙", "Zoë 🦄", "mika", "Олег"]
        let gifts = ["Rose 🌹", "Heart 💖", "Rocket 🚀", "Crown 👑"]
        let times = (0..<1000).map { _ in random.unit() * Self.duration }.sorted()
        let rows = times.map { time in
            String(format: "%.3f,", time) + users[Int(random.next() % UInt64(users.count))] + ","
                + gifts[Int(random.next() % UInt64(gifts.count))] + ",\(1 + random.next() % 99)"
        }
        try ("time,user,gift,count\n" + rows.joined(separator: "\n") + "\n").write(
            to: runner.scratch.appendingPathComponent("gifts.csv"), atomically: true, encoding: .utf8)
    }

    private func write(_ text: String, name: String) throws -> String {
        let url = runner.scratch.appendingPathComponent("\(name).json")
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }
}
