import Foundation
import Locking
import RenderFarm
import StrictJSON

/// How `render` shows progress on standard error.
enum ProgressMode: String, CaseIterable {
    /// A redrawn bar on a terminal, plain lines otherwise.
    case auto
    case plain, json
    /// Open Job Description's progress lines (`openjd_progress: 42.5`, `openjd_status: …`), which a farm
    /// monitor (Deadline Cloud, `openjd run`) shows as the task's progress and status.
    case openjd
    case none
}

/// Turns render events into a progress bar, plain lines or JSON lines on standard error.
final class ProgressReporter: ProgressObserver {
    private let terminal: Terminal
    private let mode: ProgressMode
    private let bar: ProgressBar
    /// Why frames an earlier run recorded are rendered again (nil: not looked at, e.g. `--force`).
    private let rerun: RerunReason?
    private let forced: Bool
    /// The slowest frames rendered so far, slowest first.
    private let slow = Locked<[SlowFrame]>([])
    /// Seconds after which a frame still drawing is named on standard error (nil: never).
    private let stuckAfter: Double?
    /// How frames are drawn (`--isolate`, with its `--frame-timeout`; nil: in this process), for the stuck
    /// frame's hint.
    private let isolation: Isolation?
    /// The frames named so far (`job#frame`): each is named once.
    private let named = Locked<Set<String>>([])

    /// A frame and its render time, for the summary.
    struct SlowFrame: Sendable {
        var job: String
        var index: Int
        var milliseconds: Double
    }

    /// How many of the slowest frames the summary names.
    static let slowestShown = 3

    init(
        terminal: Terminal, mode: ProgressMode, rerun: RerunReason? = nil, forced: Bool = false,
        stuckAfter: Double? = nil, isolation: Isolation? = nil
    ) {
        self.terminal = terminal
        self.stuckAfter = stuckAfter
        self.isolation = isolation
        self.mode = mode == .auto ? (terminal.errIsTerminal ? .auto : .plain) : mode
        bar = ProgressBar(terminal: terminal, mode: mode)
        self.rerun = rerun
        self.forced = forced
    }

    func warning(_ text: String) {
        bar.clear()
        terminal.note("renderfarm: warning: " + text)
    }

    /// The slowest frames of the run, slowest first.
    var slowest: [SlowFrame] { slow.withLock { $0 } }

    func renderWillStart(totalFrames: Int, skippedFrames: Int, jobs: [PlannedJob]) {
        bar.start()
        let reasons = forced ? [] : rerun?.explain(todo: totalFrames) ?? []
        switch mode {
        case .none: break
        case .json:
            terminal.note(
                JSONValue.object([
                    "event": "start", "frames": .number(Double(totalFrames)), "skipped": .number(Double(skippedFrames)),
                    "jobs": .array(jobs.map { .string($0.job.spec.name) }),
                    "why": .array(reasons.map(JSONValue.string)),
                ]).serialized())
        case .auto, .plain:
            let resumed = skippedFrames > 0 ? " (\(skippedFrames) already done, skipped)" : ""
            let why =
                forced
                ? " (--force: every frame again)"
                : totalFrames > 0 && !reasons.isEmpty ? ": " + reasons.joined(separator: ", ") : ""
            terminal.note(
                "rendering \(Plural.count(totalFrames, "frame")) of \(Plural.count(jobs.count, "job"))\(resumed)\(why)")
        case .openjd:
            let resumed = skippedFrames > 0 ? ", \(skippedFrames) already done" : ""
            terminal.note(
                "openjd_status: rendering \(Plural.count(totalFrames, "frame")) of "
                    + "\(Plural.count(jobs.count, "job"))\(resumed)")
        }
    }

    func frameDidFinish(_ event: FrameEvent) {
        if event.status == .ok, event.reusedFrom == nil {
            slow.withLock { slow in
                let frame = SlowFrame(job: event.job, index: event.index, milliseconds: event.timings.total)
                guard slow.count < Self.slowestShown || frame.milliseconds > (slow.last?.milliseconds ?? 0) else {
                    return
                }
                slow.append(frame)
                slow.sort { $0.milliseconds > $1.milliseconds }
                if slow.count > Self.slowestShown { slow.removeLast() }
            }
        }
        // Failures are diagnostics, shown whatever the progress mode (JSON carries them itself).
        if event.status == .failed, mode != .json {
            clearLine()
            terminal.note(
                "renderfarm: frame \(event.index) of \(event.job) failed after "
                    + "\(Plural.count(event.attempts, "attempt")): \(event.error ?? "unknown error")")
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
            if let source = event.reusedFrom { object["reusedFrom"] = .number(Double(source)) }
            terminal.note(JSONValue.object(object).serialized())
        case .auto, .plain, .openjd:
            bar.update(event.finished, of: event.total)
        }
    }

    func renderDidFinish(_ summary: RenderSummary) {
        bar.finish()
        if mode == .openjd {
            terminal.note(
                "openjd_status: \(summary.rendered) rendered, \(summary.reused) reused, "
                    + "\(summary.skipped) already done, \(summary.failedCount) failed")
        }
        guard mode == .json else { return }
        terminal.note(
            JSONValue.object([
                "event": "finish", "rendered": .number(Double(summary.rendered)),
                "reused": .number(Double(summary.reused)), "skipped": .number(Double(summary.skipped)),
                "failed": .number(Double(summary.failedCount)), "interrupted": .bool(summary.interrupted),
                "seconds": .number((summary.elapsed * 1000).rounded() / 1000),
                // Summed over the frames rendered, per step (what `make bench` splits a frame into).
                "stepMs": .object([
                    "draw": .number(summary.timings.draw), "convert": .number(summary.timings.convert),
                    "encode": .number(summary.timings.encode), "write": .number(summary.timings.write),
                ]),
            ]).serialized())
    }

    func framesInFlight(_ frames: [FrameInFlight]) {
        if mode == .auto || mode == .plain || mode == .openjd { bar.refresh() }
        guard let stuckAfter else { return }
        for frame in frames where frame.seconds >= stuckAfter {
            guard named.withLock({ $0.insert("\(frame.job)#\(frame.index)").inserted }) else { continue }
            let layer = frame.layer.map { " in layer \($0) (\(frame.effect ?? "?"))" } ?? ""
            let seconds = Int(frame.seconds)
            if mode == .json {
                var object: JSONObject = [
                    "event": "stuck", "job": .string(frame.job), "frame": .number(Double(frame.index)),
                    "seconds": .number(Double(seconds)),
                ]
                if let index = frame.layer { object["layer"] = .number(Double(index)) }
                if let effect = frame.effect { object["effect"] = .string(effect) }
                terminal.note(JSONValue.object(object).serialized())
                continue
            }
            clearLine()
            terminal.note(
                "renderfarm: frame \(frame.index) of \(frame.job) is still drawing after \(seconds) s\(layer); "
                    + stuckHint)
        }
    }

    /// What the stuck-frame notice suggests: in process, the options that fail a hung frame and go on; under
    /// `--isolate`, which always has a frame timeout, what happens at it.
    private var stuckHint: String {
        guard let isolation else {
            return "if a plugin hangs, render with --isolate --frame-timeout SECONDS to fail such frames and go on"
        }
        let timeout = isolation.frameTimeout ?? Isolation.defaultFrameTimeout
        return "if a plugin hangs, its worker is killed at --frame-timeout \(JSONValue.number(timeout).serialized()) s "
            + "and that attempt fails"
    }

    /// Ends a half-drawn bar before another message.
    func clearLine() { bar.clear() }
}
