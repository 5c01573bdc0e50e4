import Dispatch
import Foundation
import Locking
import RenderFarm
import StrictJSON

/// SIGINT / SIGTERM during a command that runs long (`render`, `render --video`, `encode`): the
/// first sets `stop` (a render finishes the frames in flight and writes its journal and manifest;
/// an encode stops ffmpeg and removes the unfinished video), and the command exits 130 whichever
/// signal it was; a second exits at once. Files are only ever renamed into place when complete,
/// so even the hard exit leaves nothing half-written under a final name. `render --isolate` gives the
/// frames in flight `Isolation.stopGrace` seconds: then their workers are killed, and the render records
/// what was finished and exits 130 (a hung plugin cannot keep it waiting).
final class SignalHandling {
    private let sources: [any DispatchSourceSignal]

    /// `stopping` says what the first signal does; `workers` are the render's worker processes (nil: it has
    /// none).
    init(
        stop: StopSignal, terminal: Terminal, stopping: String = "stopping after the frames in flight",
        workers: WorkerGroup? = nil
    ) {
        let queue = DispatchQueue(label: "renderfarm.signals")
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                if stop.isStopped {
                    terminal.note("\nrenderfarm: second signal, exiting now")
                    // _exit runs no atexit handler: the workers' groups are killed here.
                    WorkerGroup.killEveryWorker()
                    _exit(ExitCode.interrupted.rawValue)
                }
                stop.stop()
                guard let workers else {
                    terminal.note("\nrenderfarm: \(stopping) (signal again to quit at once)")
                    return
                }
                let grace = JSONValue.number(Isolation.stopGrace).serialized()
                terminal.note("\nrenderfarm: \(stopping), for \(grace) s at most (signal again to quit at once)")
                queue.asyncAfter(deadline: .now() + Isolation.stopGrace) {
                    workers.halt()
                }
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
