import CChipmunk
import Foundation
import Synchronization
import Testing

@testable import RenderFarm

/// `plugin check` points descriptor 1 at a file to see whether a plugin prints (`StdoutCapture`), while a copy of
/// EffectKit in the same process (one per plugin library) may be absorbing Chipmunk's banner, which points
/// descriptor 1 at /dev/null for a moment. Both move it under the C `stdout` stream's lock.
@Suite("stdout capture beside Chipmunk's banner")
struct StdoutCaptureTests {
    /// Without the lock, a capture that saved descriptor 1 while an absorbing had it at /dev/null restored /dev/null
    /// (or an absorbing restored a capture's file after the capture had ended), and what a body printed could miss
    /// its capture.
    @Test(
        "captures while two threads absorb the banner: each holds what its body printed, descriptor 1 ends as it was",
        .timeLimit(.minutes(1)))
    func capturesBesideTheBanner() throws {
        let before = try Self.identity(ofDescriptor: STDOUT_FILENO)
        let captures = 300
        let done = Done()
        let absorbers = DispatchGroup()
        // Threads of their own: concurrentPerform may run its iterations one after another on two cores.
        for _ in 0..<2 {
            absorbers.enter()
            Thread {
                while !done.flag.load(ordering: .acquiring) { rf_chipmunk_absorb_banner() }
                absorbers.leave()
            }.start()
        }
        var missed: [Int] = []
        for round in 0..<captures {
            let marker = "capture \(round) \(UInt64.random(in: 0...UInt64.max))"
            let (_, output) = StdoutCapture.run { print(marker) }
            if output?.contains(marker) != true { missed.append(round) }
        }
        done.flag.store(true, ordering: .releasing)
        absorbers.wait()
        #expect(missed.isEmpty, "captures that missed their body's line: \(missed)")
        #expect(try Self.identity(ofDescriptor: STDOUT_FILENO) == before, "descriptor 1 is another file after")
    }

    /// Set when the captures are over (a class: the threads share it).
    private final class Done: Sendable {
        let flag = Atomic(false)
    }

    /// The device and inode `descriptor` is open on.
    private static func identity(ofDescriptor descriptor: Int32) throws -> [UInt64] {
        var status = stat()
        try #require(fstat(descriptor, &status) == 0, "fstat: \(String(cString: strerror(errno)))")
        return [UInt64(status.st_dev), UInt64(status.st_ino)]
    }
}
