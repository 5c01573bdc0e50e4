import Foundation
import Locking
import RenderFarm

/// A progress line for work counted in frames (renders, ffmpeg encodes): a redrawn bar with
/// frames, fps and ETA on a terminal, a plain line every two seconds otherwise, nothing with
/// `none`. With `json`, `jsonEvent` names the event lines it prints (none when nil).
final class ProgressBar: Sendable {
    private let terminal: Terminal
    private let mode: ProgressMode
    private let label: String?
    private let jsonEvent: String?
    private let state = Locked(
        (start: ContinuousClock.now, last: ContinuousClock.now - .seconds(10), drawn: -1, latest: (done: -1, total: 0)))

    init(terminal: Terminal, mode: ProgressMode, label: String? = nil, jsonEvent: String? = nil) {
        self.terminal = terminal
        self.mode = mode == .auto ? (terminal.errIsTerminal ? .auto : .plain) : mode
        self.label = label
        self.jsonEvent = jsonEvent
    }

    /// Starts the clock that fps and ETA are measured from.
    func start() { state.withLock { $0.start = .now } }

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
        let now = ContinuousClock.now
        let elapsed: Duration? = state.withLock { state in
            let interval: Duration = mode == .auto ? .milliseconds(100) : .seconds(2)
            if !waited { state.latest = (done, total) }
            guard done != state.drawn, waited || done >= total || now - state.last >= interval else { return nil }
            state.last = now
            state.drawn = done
            return now - state.start
        }
        guard let elapsed else { return }
        let fps = Double(done) / max(1e-9, elapsed.seconds)
        let remaining = fps > 0 ? Double(max(0, total - done)) / fps : 0
        let counts = "\(done)/\(total) frames  \(String(format: "%.1f", fps)) fps  ETA \(Self.clock(remaining))"
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

    /// The width assumed when the terminal does not say.
    static let defaultColumns = 80

    /// The redrawn line, at most `columns − 1` characters so it never wraps (a line that fills the last
    /// column leaves some terminals about to wrap): the bar narrows first, then the words go, then fps,
    /// the ETA and the label, down to the bare percentage.
    static func line(label: String?, done: Int, total: Int, fps: Double, remaining: Double, columns: Int) -> String {
        let limit = max(1, columns - 1)
        let percent = "\(total > 0 ? min(100, done * 100 / total) : 100)%"
        let rate = String(format: "%.1f fps", fps)
        let eta = "ETA \(clock(remaining))"
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
