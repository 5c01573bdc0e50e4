import Dispatch
import Locking
import Synchronization
import Testing

@testable import RenderFarm

@Suite("Frame reorder buffer")
struct FrameReorderBufferTests {
    @Test("frames finished in any order come out in order, never more than capacity held")
    func ordered() {
        let buffer = FrameReorderBuffer<Int>(capacity: 4)
        let count = 200
        let next = Atomic<Int>(0)
        let received = Locked<[Int]>([])
        let writer = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            while let frame = buffer.take() { received.withLock { $0.append(frame) } }
            writer.signal()
        }
        DispatchQueue.concurrentPerform(iterations: 3) { worker in
            while true {
                let position = next.wrappingAdd(1, ordering: .relaxed).oldValue
                guard position < count, buffer.waitForRoom(position) else { break }
                // Uneven work so that frames finish out of order.
                var spin = 0
                for step in 0..<((position * 7919 + worker) % 5000) { spin &+= step }
                buffer.put(position, position + spin * 0)
            }
        }
        buffer.close()
        writer.wait()
        #expect(received.withLock { $0 } == Array(0..<count))
        #expect(buffer.peakHeld <= 4)
        #expect(buffer.written == count)
    }

    @Test("cancel wakes waiting workers and the writer")
    func cancel() {
        let buffer = FrameReorderBuffer<Int>(capacity: 1)
        #expect(buffer.waitForRoom(0))
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            // Position 1 is a full buffer ahead: it waits until cancelled.
            #expect(!buffer.waitForRoom(1))
            done.signal()
        }
        buffer.cancel()
        done.wait()
        #expect(buffer.take() == nil)
    }
}
