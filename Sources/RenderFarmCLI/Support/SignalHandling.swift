import Dispatch
import Foundation
import RenderFarm

/// SIGINT / SIGTERM during a command that runs long (`render`, `render --video`, `encode`): the
/// first sets `stop` (a render finishes the frames in flight and writes its journal and manifest;
/// an encode stops ffmpeg and removes the unfinished video), and the command exits 130 whichever
/// signal it was; a second exits at once. Files are only ever renamed into place when complete,
/// so even the hard exit leaves nothing half-written under a final name.
final class SignalHandling {
    private let sources: [any DispatchSourceSignal]

    /// `stopping` says what the first signal does.
    init(stop: StopSignal, terminal: Terminal, stopping: String = "stopping after the frames in flight") {
        let queue = DispatchQueue(label: "renderfarm.signals")
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                if stop.isStopped {
                    terminal.note("\nrenderfarm: second signal, exiting now")
                    _exit(ExitCode.interrupted.rawValue)
                }
                stop.stop()
                terminal.note("\nrenderfarm: \(stopping) (signal again to quit at once)")
            }
            source.resume()
            return source
        }
    }

    /// Restores the default signal behaviour.
    func cancel() {
        sources.forEach { $0.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}
