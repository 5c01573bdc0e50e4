import CCairo
import CairoKit
import Foundation
import Locking
import Testing

@testable import RenderFarm

/// The static layers of a job, drawn once in a process and shared by its workers (`StaticLayers`).
@Suite("StaticLayers: one drawing per process, shared by the workers")
struct StaticLayersTests {
    /// Runs `body` on `count` threads of its own at once (not Dispatch's pool, which on 2 cores would run a
    /// third body only after one of the first two ended) and returns when all have ended.
    private static func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let ended = DispatchSemaphore(value: 0)
        for index in 0..<count {
            Thread {
                body(index)
                ended.signal()
            }.start()
        }
        for _ in 0..<count { ended.wait() }
    }

    @Test("workers needing the layers together: one draws them, the others wait and copy the same pixels")
    func drawnOnce() throws {
        for threads in [1, 2, 3, 6] {
            let layers = StaticLayers()
            let drawings = Locked(0)
            let leases = Locked<[StaticLayers.Lease]>([])
            Self.onThreads(threads) { _ in
                let lease = try? layers.lease(width: 40, height: 30) { context in
                    drawings.withLock { $0 += 1 }
                    usleep(50_000)
                    cairo_set_source_rgba(context.pointer, 1, 0, 0, 1)
                    cairo_paint(context.pointer)
                }
                if let lease { leases.withLock { $0.append(lease) } }
            }
            let surfaces = leases.withLock { $0.map(\.surface) }
            #expect(drawings.withLock { $0 } == 1)
            #expect(surfaces.count == threads && surfaces.allSatisfy { $0 === surfaces[0] })
            let corner = try #require(surfaces.first).pixel(x: 39, y: 29)
            #expect(corner == (255, 0, 0, 255))
        }
    }

    @Test("a failed drawing fails the frame of every worker that waited for it; the next call draws anew")
    func failuresReachEveryWaiter() throws {
        let layers = StaticLayers()
        let drawings = Locked(0)
        let outcomes = Locked<[String]>([])
        Self.onThreads(3) { _ in
            do throws(FrameFailure) {
                _ = try layers.lease(width: 8, height: 8) { (_) throws(FrameFailure) in
                    drawings.withLock { $0 += 1 }
                    usleep(300_000)
                    throw .plugin(layer: 0, effect: "gradient", message: "refused")
                }
                outcomes.withLock { $0.append("drawn") }
            } catch {
                outcomes.withLock { $0.append(error.message) }
            }
        }
        #expect(outcomes.withLock { $0 } == Array(repeating: "layer 0 (gradient): refused", count: 3))
        #expect(drawings.withLock { $0 } == 1, "the workers that arrived during the drawing waited for it")

        let lease = try layers.lease(width: 8, height: 8) { _ in drawings.withLock { $0 += 1 } }
        #expect(lease.surface.width == 8 && drawings.withLock { $0 } == 2)
    }

    @Test("the pixels go with the last lease; a later call draws them again")
    func freedWithTheLastLease() throws {
        let layers = StaticLayers()
        let drawings = Locked(0)
        func lease() throws -> StaticLayers.Lease {
            try layers.lease(width: 4, height: 4) { _ in drawings.withLock { $0 += 1 } }
        }
        weak var pixels: ImageSurface?
        do {
            let first = try lease()
            let second = try lease()
            pixels = first.surface
            #expect(first.surface === second.surface && drawings.withLock { $0 } == 1)
        }
        #expect(pixels == nil)
        _ = try lease()
        #expect(drawings.withLock { $0 } == 2)
    }
}
