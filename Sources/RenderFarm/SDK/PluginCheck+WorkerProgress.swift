import Foundation

extension PluginCheck {
    /// Seconds a checked frame may take before it counts as a hang (`--frame-timeout`): far above the second
    /// past which the check already warns of a slow frame, far below what a stuck frame costs a farm.
    package static let frameTimeout = 30.0
}

/// The parent's side of a check worker's progress lines: the frame it is drawing now, so that a crash or a
/// hang there fails the check naming that frame rather than "the check did not finish".
struct CheckWorkerProgress {
    let frameTimeout: Double
    private var current: (check: String, frame: Int)?

    init(frameTimeout: Double) {
        self.frameTimeout = frameTimeout
    }

    /// How long to wait for the worker's next line: the frame timeout while it draws a frame, else no limit.
    var timeout: Double? { current == nil ? nil : frameTimeout }

    /// Takes `line` when it is a progress line (the worker's word, not a finding: it only names a frame).
    mutating func take(_ line: String) -> Bool {
        let words = line.split(separator: " ", omittingEmptySubsequences: false)
        guard words.first == "frame" else { return false }
        if words.count == 2, words[1] == "-" {
            current = nil
            return true
        }
        guard words.count == 3, let frame = Int(words[2]), frame >= 0, !words[1].isEmpty,
            words[1].utf8.allSatisfy({ (0x61...0x7A).contains($0) || $0 == 0x2D })
        else { return false }
        current = (String(words[1]), frame)
        return true
    }

    /// The failure of a worker that sent nothing for `frameTimeout` seconds while drawing a frame.
    func hang() -> PluginFinding? {
        current.map { PluginFinding(.failure, $0.check, "frame \($0.frame) \(Self.hangText(timeout: frameTimeout))") }
    }

    /// The failure of a worker that ended (wait status `status`) while drawing a frame.
    func ended(status: Int32) -> PluginFinding? {
        current.map {
            PluginFinding(.failure, $0.check, "frame \($0.frame) crashed: \(WorkerProcess.describe(status: status))")
        }
    }

    /// What a hang is told as, after "frame N".
    static func hangText(timeout: Double) -> String {
        "did not finish within \(String(format: "%g", timeout)) s: a hang (--frame-timeout SECONDS allows longer)"
    }
}
