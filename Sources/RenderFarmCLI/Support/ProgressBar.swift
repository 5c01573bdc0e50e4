import Foundation
import Synchronization

/// A progress line for work counted in frames (ffmpeg encodes), drawn like `render`'s: a redrawn
/// bar on a terminal, a plain line every two seconds otherwise, nothing with `none`.
final class ProgressBar: Sendable {
    private let terminal: Terminal
    private let mode: ProgressMode
    private let label: String
    private let state = Mutex((start: ContinuousClock.now, last: ContinuousClock.now - .seconds(10), drawn: -1))

    init(terminal: Terminal, mode: ProgressMode, label: String) {
        self.terminal = terminal
        self.mode = mode == .auto ? (terminal.errIsTerminal ? .auto : .plain) : mode
        self.label = label
    }

    func update(_ done: Int, of total: Int) {
        let now = ContinuousClock.now
        let elapsed: Duration? = state.withLock { state in
            let interval: Duration = mode == .auto ? .milliseconds(100) : .seconds(2)
            guard done != state.drawn, done >= total || now - state.last >= interval else { return nil }
            state.last = now
            state.drawn = done
            return now - state.start
        }
        guard let elapsed else { return }
        let seconds = max(1e-9, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        let percent = total > 0 ? min(100, done * 100 / total) : 100
        let counts = "\(done)/\(total) frames  \(String(format: "%.1f", Double(done) / seconds)) fps"
        switch mode {
        case .none:
            return
        case .json:
            terminal.note("{\"event\":\"encode\",\"done\":\(done),\"total\":\(total)}")
        case .plain:
            terminal.note("\(label) \(percent)%  \(counts)")
        case .auto:
            let width = 24
            let filled = total > 0 ? min(width, done * width / total) : width
            terminal.noteRaw("\r\u{1B}[2K\(label) [" + String(repeating: "#", count: filled)
                + String(repeating: ".", count: width - filled) + "] \(percent)%  \(counts)")
        }
    }

    /// Ends a redrawn line.
    func finish() {
        if mode == .auto, state.withLock({ $0.drawn >= 0 }) { terminal.noteRaw("\n") }
    }
}
