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

    @Test("withLock(when:) sleeps until another thread's withLock makes its condition true")
    func waitsForACondition() {
        let count = Locked(0)
        DispatchQueue.global().async {
            for _ in 0..<100 { count.withLock { $0 += 1 } }
        }
        #expect(count.withLock(when: { $0 == 100 }, { $0 }) == 100)
    }

    @Test("two threads taking turns through withLock(when:) 1,000 times each: no wake-up is lost")
    func takesTurns() {
        let turn = Locked(0)
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            for round in 0..<1_000 { turn.withLock(when: { $0 == 2 * round + 1 }, { $0 += 1 }) }
            done.signal()
        }
        for round in 0..<1_000 { turn.withLock(when: { $0 == 2 * round }, { $0 += 1 }) }
        done.wait()
        #expect(turn.withLock { $0 } == 2_000)
    }
}
