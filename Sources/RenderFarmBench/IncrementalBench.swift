import Foundation

/// The incremental re-render row: a replay of hearts driven by a CSV event log is rendered, one
/// event's colour is edited, and the job is rendered again into the same folder. Frame keys let
/// the second run draw only the frames on which that heart is visible: the goal is at most
/// `lifetime × fps + 1` frames.
struct IncrementalBench {
    var runner: Runner
    var quick: Bool

    static let fps = 60.0
    static let lifetime = 4.0

    func run() throws -> String {
        let minutes = quick ? 1 : 10
        let duration = Double(minutes) * 60
        let job = try writeReplay(duration: duration)
        let output = runner.scratch.appendingPathComponent("out-incremental").path
        try? FileManager.default.removeItem(atPath: output)
        defer { try? FileManager.default.removeItem(atPath: output) }
        let render = [runner.renderfarm, "render", job, "--out", output, "-j", "2", "--progress", "json"]
        note("incremental: first render of \(minutes) min")
        let first = ChildProcess.run(render)
        guard first.exitCode == 0 else { throw Runner.Failure.failed("first render exited with \(first.exitCode)") }

        try writeEvents(duration: duration, edited: true)
        note("incremental: render again after a one-event edit")
        let log = runner.scratch.appendingPathComponent("incremental.log").path
        let second = ChildProcess.run(render, stderr: log)
        guard second.exitCode == 0 else { throw Runner.Failure.failed("re-render exited with \(second.exitCode)") }
        let finish = try Self.finishEvent(log)
        let goal = Int(Self.lifetime * Self.fps) + 1
        let value = String(
            format: "%d drawn + %d reused (goal <= %d), %.2f s", finish.rendered, finish.reused, goal, second.seconds)
        let label = String(format: "edit 1 event of a %d min replay (first run %.1f s)", minutes, first.seconds)
        return StreamBench.row(label, value, second.peakKiB)
    }

    /// Hearts from `likes.csv`, at half scale so that the first render stays short.
    private func writeReplay(duration: Double) throws -> String {
        try writeEvents(duration: duration, edited: false)
        let url = runner.scratch.appendingPathComponent("incremental.json")
        try """
        { "name": "incremental", "seed": 3, "fps": \(Self.fps), "duration": \(duration),
          "canvas": {"width": 375, "height": 667, "scale": 0.5}, "output": {"compression": "fast"},
          "layers": [ { "effect": "floating-heart",
            "params": {"events": "incremental-likes.csv", "emitter": [330, 630], "lifetime": \(Self.lifetime)} } ] }
        """.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    /// A like every 0.4 s with a colour from a small palette; `edited` changes the colour of the
    /// like in the middle.
    private func writeEvents(duration: Double, edited: Bool) throws {
        let colors = ["#FF4D6D", "#3A86FF", "#FFB703"]
        let count = Int(duration / 0.4)
        let rows = (0..<count).map { index in
            let color = edited && index == count / 2 ? "#00FF00" : colors[index % colors.count]
            return String(format: "%.2f,", Double(index) * 0.4) + color
        }
        try ("time,color\n" + rows.joined(separator: "\n") + "\n").write(
            to: runner.scratch.appendingPathComponent("incremental-likes.csv"), atomically: true, encoding: .utf8)
    }

    /// `rendered` and `reused` of the render's `finish` event.
    static func finishEvent(_ log: String) throws -> (rendered: Int, reused: Int) {
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        for line in text.split(separator: "\n") where line.contains(#""event":"finish""#) {
            guard let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any],
                let rendered = object["rendered"] as? Int, let reused = object["reused"] as? Int
            else { break }
            return (rendered, reused)
        }
        throw Runner.Failure.failed("the re-render printed no finish event")
    }
}
