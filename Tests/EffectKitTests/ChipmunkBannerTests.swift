import CChipmunk
import Foundation
import Synchronization
import Testing

/// Chipmunk's debug banner is absorbed once by every copy of EffectKit in a process (the host's, one per plugin
/// library), at its first physics space, while other threads may be printing: it must leave the C `stdout` stream
/// as it was. It once pointed `stdout` at a /dev/null stream for the moment and closed that stream after: two
/// copies at once could leave `stdout` pointing at the closed stream, and a thread printing meanwhile flushed a
/// freed one (the incremental harness's test process crashed in CI in `fflush`, its plugins rebuilt copies).
@Suite("Chipmunk's banner")
struct ChipmunkBannerTests {
    /// With the old absorbing this crashed, hung in `fflush` on a freed stream, or ended with another `stdout`.
    @Test(
        "absorbed on four threads at once while two others use stdout: stdout stays the same stream, no crash",
        .timeLimit(.minutes(1)))
    func absorbedWhileOthersPrint() {
        let original = UInt(bitPattern: Self.currentStdout())
        let absorbing = 4
        let rounds = 300
        let done = Atomic(0)
        DispatchQueue.concurrentPerform(iterations: absorbing + 2) { thread in
            if thread < absorbing {
                for _ in 0..<rounds { rf_chipmunk_absorb_banner() }
                done.add(1, ordering: .releasing)
            } else {
                // Stdio on whatever `stdout` is at the moment; prints nothing, so the tests' output stays clean.
                while done.load(ordering: .acquiring) < absorbing {
                    let stream = Self.currentStdout()
                    fputs("", stream)
                    fflush(stream)
                }
            }
        }
        #expect(UInt(bitPattern: Self.currentStdout()) == original, "stdout is another stream after the absorbing")
    }

    /// The C `stdout` stream as it is now (read through a C call: Swift 6 refuses the global itself).
    private static func currentStdout() -> UnsafeMutablePointer<FILE> { rf_chipmunk_stdout() }
}
