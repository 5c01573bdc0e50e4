import Dispatch
import Foundation
import RenderFarm

/// SIGINT / SIGTERM during a render: the first stops taking frames (those in flight finish,
/// the journal and manifest are written, exit 130); a second exits at once. Frames are only
/// ever renamed into place when complete, so even the hard exit leaves no half-written frame.
final class SignalHandling {
    private let sources: [any DispatchSourceSignal]

    init(stop: StopSignal, terminal: Terminal) {
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
                terminal.note("\nrenderfarm: stopping after the frames in flight (signal again to quit at once)")
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
