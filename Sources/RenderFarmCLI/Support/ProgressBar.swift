import Foundation
import Locking
import RenderFarm

/// A progress line for work counted in frames (renders, ffmpeg encodes): a redrawn bar with
/// frames, fps and ETA on a terminal, a plain line every two seconds otherwise, nothing with
/// `none`. With `json`, `jsonEvent` names the event lines it prints (none when nil).
///
/// fps and ETA are measured from the first count above zero, not from the start: the time before the
/// first frame (ffmpeg starting and probing, plugins warming up) says nothing of the pace (counted in, it
/// made a 7 s encode's first line say "0.8 fps ETA 4:22"). Until there is a pace (half a second after that
/// first count, with frames done since), the line says "– fps  ETA –".
final class ProgressBar: Sendable {
    private let terminal: Terminal
    private let mode: ProgressMode
    private let label: String?
    private let jsonEvent: String?
    private let now: @Sendable () -> ContinuousClock.Instant
    private let state: Locked<State>

    private struct State {
        var start: ContinuousClock.Instant
        var last: ContinuousClock.Instant
        var drawn = -1
        var latest = (done: -1, total: 0)
        /// The first count above zero and when it came: where the pace is measured from.
        var first: (done: Int, time: ContinuousClock.Instant)?
    }

    /// The least time after the first count over which a pace is told.
    static let paceWindow = Duration.milliseconds(500)

    init(
        terminal: Terminal, mode: ProgressMode, label: String? = nil, jsonEvent: String? = nil,
        now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }
    ) {
        self.terminal = terminal
        self.mode = mode == .auto ? (terminal.errIsTerminal ? .auto : .plain) : mode
        self.label = label
        self.jsonEvent = jsonEvent
        self.now = now
        let start = now()
        state = Locked(State(start: start, last: start - .seconds(10)))
    }

    /// Starts the clock that fps and ETA are measured from.
    func start() {
        let start = now()
        state.withLock {
            $0.start = start
            $0.first = nil
        }
    }

    /// Shows `done` of `total`, unless the line was drawn too recently (every 100 ms on a terminal,
    /// every two seconds otherwise); `refresh` draws what was held back.
    func update(_ done: Int, of total: Int) {
        draw(done, of: total, waited: false)
    }

    /// Draws the last count given to `update` if it is not shown yet (a render calls it once a second,
    /// so the line catches up when frames stop finishing).
    func refresh() {
        let latest = state.withLock { $0.latest }
        if latest.done >= 0 { draw(latest.done, of: latest.total, waited: true) }
    }

    private func draw(_ done: Int, of total: Int, waited: Bool) {
        let now = self.now()
        let pace: (fps: Double?, remaining: Double?)? = state.withLock { state in
            let interval: Duration = mode == .auto ? .milliseconds(100) : .seconds(2)
            if !waited { state.latest = (done, total) }
            if state.first == nil, done > 0 { state.first = (done, now) }
            guard done != state.drawn, waited || done >= total || now - state.last >= interval else { return nil }
            state.last = now
            state.drawn = done
            return Self.pace(done: done, total: total, first: state.first, start: state.start, now: now)
        }
        guard let pace else { return }
        let (fps, remaining) = pace
        let counts = "\(done)/\(total) frames  \(Self.rate(fps))  ETA \(remaining.map(Self.clock) ?? "–")"
        let prefix = label.map { $0 + " " } ?? ""
        let percent = total > 0 ? min(100, done * 100 / total) : 100
        switch mode {
        case .none:
            return
        case .json:
            if let jsonEvent { terminal.note("{\"event\":\"\(jsonEvent)\",\"done\":\(done),\"total\":\(total)}") }
        case .plain:
            terminal.note("\(prefix)\(percent)%  \(counts)")
        case .openjd:
            let exact = total > 0 ? min(100, Double(done) * 100 / Double(total)) : 100
            terminal.note(String(format: "openjd_progress: %.1f", exact))
            terminal.note("openjd_status: \(prefix)\(counts)")
        case .auto:
            let line = Self.line(
                label: label, done: done, total: total, fps: fps, remaining: remaining,
                columns: terminal.columns ?? Self.defaultColumns)
            terminal.noteRaw("\r\u{1B}[2K" + Terminal.escaped(line))
        }
    }

    /// The frames per second since the first count and the seconds left at that pace; nil while there is no
    /// pace yet. Done, the whole run's average from the start.
    static func pace(
        done: Int, total: Int, first: (done: Int, time: ContinuousClock.Instant)?, start: ContinuousClock.Instant,
        now: ContinuousClock.Instant
    ) -> (fps: Double?, remaining: Double?) {
        if done >= total { return (Double(done) / max(1e-9, (now - start).seconds), 0) }
        guard let first, done > first.done, now - first.time >= paceWindow else { return (nil, nil) }
        let fps = Double(done - first.done) / (now - first.time).seconds
        return (fps, Double(total - done) / fps)
    }

    /// "12.3 fps", or "– fps" without a pace.
    static func rate(_ fps: Double?) -> String { fps.map { String(format: "%.1f fps", $0) } ?? "– fps" }

    /// The width assumed when the terminal does not say.
    static let defaultColumns = 80

    /// The redrawn line, at most `columns − 1` characters so it never wraps (a line that fills the last
    /// column leaves some terminals about to wrap): the bar narrows first, then the words go, then fps,
    /// the ETA and the label, down to the bare percentage.
    static func line(label: String?, done: Int, total: Int, fps: Double?, remaining: Double?, columns: Int) -> String {
        let limit = max(1, columns - 1)
        let percent = "\(total > 0 ? min(100, done * 100 / total) : 100)%"
        let rate = rate(fps)
        let eta = "ETA \(remaining.map(clock) ?? "–")"
        let prefix = label.map { $0 + " " } ?? ""
        let variants: [(prefix: String, tail: String)] = [
            (prefix, "\(percent)  \(done)/\(total) frames  \(rate)  \(eta)"),
            (prefix, "\(percent) \(done)/\(total) \(rate) \(eta)"),
            (prefix, "\(percent) \(done)/\(total) \(eta)"),
            ("", "\(percent) \(done)/\(total) \(eta)"),
            ("", "\(percent) \(done)/\(total)"),
            ("", percent),
        ]
        let bar = { (width: Int) -> String in
            let filled = total > 0 ? min(width, done * width / total) : width
            return "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "] "
        }
        // The bar takes 8 to 24 cells plus "[] "; without room for it, the longest text that fits.
        for (prefix, tail) in variants {
            let room = limit - prefix.count - tail.count - 3
            if room >= 8 { return prefix + bar(min(24, room)) + tail }
        }
        for (prefix, tail) in variants where prefix.count + tail.count <= limit { return prefix + tail }
        return String(percent.prefix(limit))
    }

    /// Clears a half-drawn bar before another message.
    func clear() {
        if mode == .auto { terminal.noteRaw("\r\u{1B}[2K") }
    }

    /// Ends a redrawn line.
    func finish() {
        if mode == .auto, state.withLock({ $0.drawn >= 0 }) { terminal.noteRaw("\n") }
    }

    /// `m:ss`, or `h:mm:ss` from an hour.
    static func clock(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        return whole >= 3600
            ? String(format: "%d:%02d:%02d", whole / 3600, whole / 60 % 60, whole % 60)
            : String(format: "%d:%02d", whole / 60, whole % 60)
    }
}
