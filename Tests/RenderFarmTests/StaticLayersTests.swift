import CCairo
import CairoKit
import EffectKit
import Foundation
import Locking
import RenderFarmJobs
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

    /// A worker that runs out of tasks while another lane is still on its last one would, if it ended then, free
    /// the static layers that lane may still be about to lease: the render would draw them twice (seen in CI at
    /// `-j 3`). In each round the last task waits until every lane has started (the others then find no task
    /// and stop), and asks whether a worker has ended.
    @Test("FrameScheduler's workers end together, after the last task, however the lanes are timed")
    func workersEndTogether() {
        final class Worker {
            let ended: Locked<Int>
            init(counting ended: Locked<Int>) { self.ended = ended }
            deinit { ended.withLock { $0 += 1 } }
        }
        for round in 0..<10 {
            let lanes = 2 + round % 3
            let (made, ended) = (Locked(0), Locked(0))
            let endedBeforeTheLastTask = Locked<Bool?>(nil)
            FrameScheduler(concurrency: lanes).run(
                count: lanes,
                makeWorker: {
                    made.withLock { $0 += 1 }
                    return Worker(counting: ended)
                },
                perform: { _, task in
                    guard task == lanes - 1 else { return }
                    let deadline = Date().addingTimeInterval(5)
                    while made.withLock({ $0 }) < lanes, Date() < deadline { Thread.sleep(forTimeInterval: 0.001) }
                    Thread.sleep(forTimeInterval: 0.02)
                    endedBeforeTheLastTask.withLock { $0 = ended.withLock { $0 } > 0 }
                })
            #expect(endedBeforeTheLastTask.withLock { $0 } == false, "round \(round), \(lanes) lanes")
            #expect(made.withLock { $0 } == lanes && ended.withLock { $0 } == lanes, "all started, all ended")
        }
    }

    /// In a test the render's lanes share Dispatch's pool with the test runner, so they may run one after another:
    /// one drawing holds because the workers end together (`FrameScheduler`), so a lane that starts or takes its
    /// last frame late still finds the drawing of a lane that has run out of frames. That workers drawing at once
    /// share one drawing is `drawnOnce`'s to show.
    @Test(
        "a render at -j 1 to 4 draws its frame-invariant bottom layer once, and its frames equal drawing it every frame"
    )
    func renderDrawsTheLayerOnce() throws {
        try PluginCatalog.register(StillCountEffect.self)
        let catalog = try LookJob.catalog()
        let text = """
            {"name": "still", "fps": 10, "duration": 2.4, "canvas": {"width": 48, "height": 32},
             "layers": [{"effect": "test-still-count", "params": {}},
                        {"effect": "test-resume-look",
                         "params": {"looks": [10, 30, 50, 70, 90, 110, 130, 150, 170, 190, 210, 230]}}]}
            """
        let spec = try JobLoader.decode(Data(text.utf8), file: "still.json", defaultName: "still")
        let job = LoadedJob(spec: spec, file: "/tmp/still.json", directory: "/tmp")
        // Frames of equal looks have equal keys: 12 of the 24 are drawn, the others copied.
        func render(concurrency: Int, cached: Bool) throws -> (drawings: Int, frames: [Data]) {
            let folder = try TemporaryFolder("static")
            let before = StillCountEffect.drawings.withLock { $0 }
            let plan = RenderEngine(catalog: catalog, options: PlanOptions(outputOverride: folder.path)).plan([job])
            #expect(plan.errors.isEmpty)
            let report = try plan.openAndWarmUp()
                .execute(RenderOptions(concurrency: concurrency, cacheStaticLayers: cached))
            #expect(report.rendered == 12)
            let frames = try (0..<24).map { index in
                try Data(contentsOf: URL(fileURLWithPath: folder.path + String(format: "/frame_%05d.png", index)))
            }
            return (StillCountEffect.drawings.withLock { $0 } - before, frames)
        }
        let redrawn = try render(concurrency: 2, cached: false)
        #expect(redrawn.drawings == 12)
        for concurrency in 1...4 {
            let shared = try render(concurrency: concurrency, cached: true)
            #expect(shared.drawings == 1, "-j \(concurrency)")
            #expect(shared.frames == redrawn.frames, "-j \(concurrency)")
        }
    }
}

/// A frame-invariant effect (a gradient over the canvas) that counts how often it is drawn, in every test of the
/// process: a test reads the difference over its render, and runs its renders one after another.
private struct StillCountEffect: Effect {
    static let descriptor = EffectDescriptor(
        id: "test-still-count", identifier: "org.renderfarm.test.still-count", version: "1.0.0",
        summary: "A gradient, counting its drawings", frameInvariant: true, parameters: [])
    static let drawings = Locked(0)

    init(parameters: EffectParameters, context: EffectContext) throws(EffectError) {}

    func render(in context: DrawingContext, at frame: FrameTime) throws(EffectError) {
        Self.drawings.withLock { $0 += 1 }
        let gradient = cairo_pattern_create_linear(0, 0, 48, 32)
        cairo_pattern_add_color_stop_rgba(gradient, 0, 0.1, 0.2, 0.6, 1)
        cairo_pattern_add_color_stop_rgba(gradient, 1, 0.9, 0.4, 0.1, 0.7)
        cairo_set_source(context.pointer, gradient)
        cairo_paint(context.pointer)
        cairo_pattern_destroy(gradient)
    }
}
