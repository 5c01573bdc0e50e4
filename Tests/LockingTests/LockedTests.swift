import Dispatch
import Locking
import Testing

@Suite("Locked, the project's lock")
struct LockedTests {
    private struct Refused: Error, Equatable {}

    /// Not `Sendable`: `Locked` holds it the way `Mutex` would, handing it out only inside `withLock`.
    private final class Tally {
        var count = 0
    }

    @Test("concurrent updates are serialised: none is lost")
    func serialises() {
        let numbers = Locked<[Int]>([])
        let tally = Locked(Tally())
        DispatchQueue.concurrentPerform(iterations: 2_000) { index in
            numbers.withLock { $0.append(index) }
            tally.withLock { $0.count += 1 }
        }
        #expect(numbers.withLock { $0.sorted() } == Array(0..<2_000))
        #expect(tally.withLock { $0.count } == 2_000)
    }

    @Test("withLock returns what its body returns, passes its typed error on and unlocks either way")
    func resultsAndErrors() {
        let counter = Locked(1)
        let result = counter.withLock { count -> Int in
            count += 1
            return count * 10
        }
        #expect(result == 20)
        #expect(throws: Refused()) {
            try counter.withLock { (count) throws(Refused) -> Void in
                count = 7
                throw Refused()
            }
        }
        // Unlocked after the throw (locking again would deadlock otherwise); the change made before it stays.
        #expect(counter.withLock { $0 } == 7)
    }
}
