import Synchronization

/// Set from a signal handler (or a test) to stop: a render takes no new frames, ffmpeg is stopped.
package final class StopSignal: Sendable {
    private let flag = Atomic<Bool>(false)

    package init() {}

    package func stop() { flag.store(true, ordering: .relaxed) }

    package var isStopped: Bool { flag.load(ordering: .relaxed) }
}
