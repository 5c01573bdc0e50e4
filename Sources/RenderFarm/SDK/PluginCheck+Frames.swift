import Foundation
import Locking
import RenderFarmJobs

/// `--frames all|SET`: the render check draws every checked frame once, in order, each announced first
/// (`FrameProgress`), so that a crash, an abort or a hang while drawing it fails the check naming the frame.
extension PluginCheck {
    /// Renders `setting.checkedFrames` with `instance` in order and keeps the pixels of `setting.frames`, which
    /// the pixel checks compare; the finding fails at the first frame that fails.
    func renderFrames(_ instance: PluginInstance) -> (serial: [Int: Frame], finding: PluginFinding) {
        let compared = Set(setting.frames)
        var serial: [Int: Frame] = [:]
        defer { setting.progress?.end() }
        for index in setting.checkedFrames {
            setting.progress?.begin("render", frame: index)
            switch draw(instance, index) {
            case .success(let frame):
                if compared.contains(index) { serial[index] = frame }
            case .failure(let error):
                return (serial, PluginFinding(.failure, "render", "frame \(index) at the defaults: \(error.message)"))
            }
        }
        return (serial, PluginFinding(.pass, "render", "\(checkedFramesDescription) at the defaults"))
    }

    /// "frames 0, 29, 59, 89, 119 of 120", "all 120 frames" or "frames 0-5,29 (7 of 120)".
    var checkedFramesDescription: String {
        let checked = setting.checkedFrames
        let count = setting.frameCount
        if checked == setting.frames { return "frames \(checked.map(String.init).joined(separator: ", ")) of \(count)" }
        if checked.count == count { return "all \(count) frames" }
        return "frames \(FrameSet(checked)) (\(checked.count) of \(count))"
    }
}

/// Hears which frame a check is drawing in its serial loops (`PluginCheck.Setting.progress`): the sandboxed
/// worker tells its parent, which times each frame; a check in this process runs a watchdog.
package final class FrameProgress: Sendable {
    private let began: @Sendable (_ check: String, _ frame: Int) -> Void
    private let ended: @Sendable () -> Void

    package init(began: @escaping @Sendable (String, Int) -> Void, ended: @escaping @Sendable () -> Void) {
        self.began = began
        self.ended = ended
    }

    /// The check `check` starts drawing `frame`.
    func begin(_ check: String, frame: Int) { began(check, frame) }

    /// The loop is over: what follows is not timed per frame.
    func end() { ended() }

    /// For a check in this process (`--sandbox off`): a thread that prints the failure on standard error and
    /// ends the process with status 1 when a frame takes more than `timeout` seconds (nothing else can stop a
    /// plugin call that never returns).
    package static func watchdog(timeout: Double) -> FrameProgress {
        let current = Locked<(check: String, frame: Int, started: ContinuousClock.Instant)?>(nil)
        let thread = Thread {
            while true {
                Thread.sleep(forTimeInterval: min(0.1, timeout / 4))
                guard let (check, frame, started) = current.withLock({ $0 }),
                    ContinuousClock.now - started > .seconds(timeout)
                else { continue }
                let line =
                    "  FAIL    \(check): frame \(frame) \(CheckWorkerProgress.hangText(timeout: timeout)); "
                    + "with --sandbox off the check ends here\n"
                FileHandle.standardError.write(Data(line.utf8))
                _exit(1)
            }
        }
        thread.start()
        return FrameProgress(
            began: { check, frame in current.withLock { $0 = (check, frame, .now) } },
            ended: { current.withLock { $0 = nil } })
    }
}

extension WorkerConnection {
    /// Progress lines to `plugin check`, which times each frame: `frame CHECK N` before frame N of a serial
    /// loop, `frame -` after the loop.
    package func frameProgress() -> FrameProgress {
        // Only the check's own thread sends these, while `PluginCheck.serve` waits for its findings; nothing
        // else uses the channel meanwhile.
        nonisolated(unsafe) let channel = channel
        return FrameProgress(
            began: { check, frame in try? channel.send("frame \(check) \(frame)") },
            ended: { try? channel.send("frame -") })
    }
}
