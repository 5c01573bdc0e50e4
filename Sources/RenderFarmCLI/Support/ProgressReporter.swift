import Foundation
import RenderFarm
import StrictJSON
import Synchronization

/// How `render` shows progress on standard error.
enum ProgressMode: String, CaseIterable {
    /// A redrawn bar on a terminal, plain lines otherwise.
    case auto
    case plain, json, none
}

/// Turns render events into a progress bar, plain lines or JSON lines on standard error.
final class ProgressReporter: ProgressObserver {
    private let terminal: Terminal
    private let mode: ProgressMode
    private let state = Mutex(State())

    private struct State {
        var start = ContinuousClock.now
        var lastDraw = ContinuousClock.now - .seconds(10)
        var total = 0
    }

    init(terminal: Terminal, mode: ProgressMode) {
        self.terminal = terminal
        self.mode = mode == .auto ? (terminal.errIsTerminal ? .auto : .plain) : mode
    }

    func renderWillStart(totalFrames: Int, skippedFrames: Int, jobs: [PreparedJob]) {
        state.withLock {
            $0.start = .now
            $0.total = totalFrames
        }
        switch mode {
        case .none: break
        case .json:
            terminal.note(JSONValue.object([
                "event": "start", "frames": .number(Double(totalFrames)), "skipped": .number(Double(skippedFrames)),
                "jobs": .array(jobs.map { .string($0.job.spec.name) }),
            ]).serialized())
        case .auto, .plain:
            let resumed = skippedFrames > 0 ? " (\(skippedFrames) already done, skipped)" : ""
            terminal.note("rendering \(totalFrames) frames of \(jobs.count) job\(jobs.count == 1 ? "" : "s")\(resumed)")
        }
    }

    func frameDidFinish(_ event: FrameEvent) {
        // Failures are diagnostics, shown whatever the progress mode (JSON carries them itself).
        if event.status == .failed, mode != .json {
            clearLine()
            terminal.note("renderfarm: frame \(event.index) of \(event.job) failed after \(event.attempts) "
                + "attempt\(event.attempts == 1 ? "" : "s"): \(event.error ?? "unknown error")")
        }
        switch mode {
        case .none:
            return
        case .json:
            var object: JSONObject = [
                "event": "frame", "job": .string(event.job), "frame": .number(Double(event.index)),
                "status": .string(event.status.rawValue), "attempts": .number(Double(event.attempts)),
                "done": .number(Double(event.finished)), "total": .number(Double(event.total)),
                "ms": .number((event.timings.total * 100).rounded() / 100),
            ]
            if let error = event.error { object["error"] = .string(error) }
            terminal.note(JSONValue.object(object).serialized())
        case .auto, .plain:
            let now = ContinuousClock.now
            let line: String? = state.withLock { state in
                let interval: Duration = mode == .auto ? .milliseconds(100) : .seconds(2)
                guard event.finished == event.total || now - state.lastDraw >= interval else { return nil }
                state.lastDraw = now
                return status(finished: event.finished, total: event.total, elapsed: now - state.start)
            }
            guard let line else { return }
            if mode == .auto {
                terminal.noteRaw("\r\u{1B}[2K" + line + (event.finished == event.total ? "\n" : ""))
            } else {
                terminal.note(line)
            }
        }
    }

    func renderDidFinish(_ summary: RenderSummary) {
        guard mode == .json else { return }
        terminal.note(JSONValue.object([
            "event": "finish", "rendered": .number(Double(summary.rendered)), "skipped": .number(Double(summary.skipped)),
            "failed": .number(Double(summary.failedCount)), "interrupted": .bool(summary.interrupted),
            "seconds": .number((summary.elapsed * 1000).rounded() / 1000),
            // Summed over the frames rendered, per step (what `make bench` splits a frame into).
            "stepMs": .object([
                "draw": .number(summary.timings.draw), "convert": .number(summary.timings.convert),
                "encode": .number(summary.timings.encode), "write": .number(summary.timings.write),
            ]),
        ]).serialized())
    }

    /// Ends a half-drawn bar before another message.
    func clearLine() {
        if mode == .auto { terminal.noteRaw("\r\u{1B}[2K") }
    }

    private func status(finished: Int, total: Int, elapsed: Duration) -> String {
        let seconds = max(1e-9, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        let fps = Double(finished) / seconds
        let remaining = fps > 0 ? Double(total - finished) / fps : 0
        let percent = total > 0 ? finished * 100 / total : 100
        let counts = "\(finished)/\(total) frames  \(String(format: "%.1f", fps)) fps  ETA \(clock(remaining))"
        guard mode == .auto else { return "\(percent)%  " + counts }
        let width = 24
        let filled = total > 0 ? finished * width / total : width
        return "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
            + "] \(percent)%  " + counts
    }

    private func clock(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        return whole >= 3600
            ? String(format: "%d:%02d:%02d", whole / 3600, whole / 60 % 60, whole % 60)
            : String(format: "%d:%02d", whole / 60, whole % 60)
    }
}
