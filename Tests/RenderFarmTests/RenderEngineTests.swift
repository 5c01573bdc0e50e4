import EffectKit
import FileOutput
import Foundation
import RenderFarmOutput
import Testing

@testable import RenderFarm
@testable import RenderFarmJobs

/// The engine's façade in process, on its typed values: what each stage makes, and what the report of a
/// render says, against the frames in the folder.
@Suite("RenderEngine: plan, fit, open and warm up, execute, on typed reports")
struct RenderEngineTests {
    /// A job of `frames` frames (10 fps) of `LookEffect` in three looks (ResumeFixtures): frame i draws look
    /// i mod 3, and frames of equal looks are drawn once and copied. `effect` replaces the effect's id.
    static func job(frames: Int, effect: String = "test-resume-look") throws -> LoadedJob {
        let text = """
            {"name": "looks", "fps": 10, "duration": \(Double(frames) / 10), "canvas": {"width": 6, "height": 6},
             "layers": [{"effect": "\(effect)", "params": {"looks": [0, 1, 2]}}]}
            """
        let spec = try JobLoader.decode(Data(text.utf8), file: "looks.json", defaultName: "looks")
        return LoadedJob(spec: spec, file: "/tmp/looks.json", directory: "/tmp")
    }

    /// A plan that writes `folder` as `render` does (locked, warmed up with the cache).
    static func engine(_ folder: String, shard: Shard = .whole, frames: String? = nil) throws -> RenderEngine {
        var options = PlanOptions(outputOverride: folder, frames: frames, shard: shard, warmUp: .framesWithCache)
        options.locking = (shard, shard.renderTask)
        return RenderEngine(catalog: try LookJob.catalog(), options: options)
    }

    @Test("24 generated runs: the report counts what the folder holds; a second run finds every frame done")
    func generatedRuns() throws {
        var random = SeededRandom(seed: 0x5EED_46)
        for _ in 0..<24 {
            let count = random.below(40) + 1
            let concurrency = random.below(4) + 1
            let first = random.below(count)
            let last = first + random.below(count - first)
            let folder = try TemporaryFolder("engine")
            let engine = try Self.engine(folder.path, frames: "\(first)-\(last)")

            try {
                let plan = engine.plan([try Self.job(frames: count)])
                #expect(plan.errors.isEmpty)
                // The plan stage writes nothing: the folder it names stays empty.
                #expect((try FileManager.default.contentsOfDirectory(atPath: folder.path)).isEmpty)
                let run = plan.openAndWarmUp()
                #expect(run.errors.isEmpty)
                #expect(run.rerunReason(force: false)?.new == last - first + 1)
                let report = try run.execute(RenderOptions(concurrency: concurrency))

                let summary = try #require(report.jobs.first)
                let pngs = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
                    $0.hasSuffix(".png")
                }
                #expect(summary.rendered + summary.reused == last - first + 1)
                #expect(summary.rendered == min(3, last - first + 1), "one frame drawn per look, the others copied")
                #expect(pngs.count == last - first + 1)
                #expect(summary.complete && summary.failed.isEmpty && !report.interrupted)
                #expect(FileManager.default.fileExists(atPath: summary.manifestPath))
            }()

            // Again, once the first run and its sessions are gone: every frame is found done, none drawn.
            let again = try Self.engine(folder.path, frames: "\(first)-\(last)").plan([try Self.job(frames: count)])
                .openAndWarmUp()
            #expect(again.rerunReason(force: false)?.recorded == last - first + 1)
            #expect(again.rerunReason(force: true) == nil)
            let second = try again.execute(RenderOptions(concurrency: concurrency))
            #expect(second.rendered == 0 && second.reused == 0 && second.skipped == last - first + 1)
        }
    }

    @Test("shards of one folder: each run's report counts its part; together they are every frame once")
    func shards() throws {
        var random = SeededRandom(seed: 0x5AAD_46)
        for _ in 0..<8 {
            let count = random.below(30) + 2
            let parts = random.below(4) + 2
            let interleaved = random.chance(0.5)
            let folder = try TemporaryFolder("engine-shards")
            var drawn = 0
            // The runs hold the folder side by side, each with its own shard's journal.
            var runs: [ReadyRun] = []
            for index in 0..<parts {
                let shard = Shard.part(index: index, count: parts, interleaved: interleaved)
                let run = try Self.engine(folder.path, shard: shard).plan([try Self.job(frames: count)])
                    .openAndWarmUp()
                #expect(run.errors.isEmpty)
                runs.append(run)
                let report = try run.execute(RenderOptions(shard: shard))
                drawn += report.rendered + report.reused
            }
            let pngs = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".png") }
            #expect(drawn == count)
            #expect(pngs.count == count)
        }
    }

    @Test("a folder another run holds is refused at open, naming the lock; the held run is untouched")
    func lockedFolder() throws {
        let folder = try TemporaryFolder("engine-lock")
        let holder = try Self.engine(folder.path).plan([try Self.job(frames: 4)]).openAndWarmUp()
        #expect(holder.errors.isEmpty)
        let refused = try Self.engine(folder.path).plan([try Self.job(frames: 4)]).openAndWarmUp()
        #expect(refused.jobs.isEmpty)
        guard case .output(_, .locked)? = refused.errors.first else {
            Issue.record("expected a locked folder, got \(refused.errors)")
            return
        }
        let report = try holder.execute(RenderOptions())
        #expect(report.rendered + report.reused == 4)
    }

    @Test("the lock belongs to the ready run: a plan locks nothing, and a folder opens again once its run is gone")
    func lockLifetime() throws {
        let folder = try TemporaryFolder("engine-lock-lifetime")
        let plans = try (0..<2).map { _ in try Self.engine(folder.path).plan([try Self.job(frames: 3)]) }
        for turn in 0..<4 {
            // Each plan opens first in turn: a run holds the folder only while it exists, not its plan.
            let first = plans[turn % 2].openAndWarmUp()
            let second = plans[1 - turn % 2].openAndWarmUp()
            #expect(first.errors.isEmpty, "turn \(turn): \(first.errors)")
            guard case .output(_, .locked)? = second.errors.first else {
                Issue.record("turn \(turn): a second run opened a folder the first holds: \(second.errors)")
                return
            }
            #expect(try first.execute(RenderOptions()).failedCount == 0)
        }
    }

    @Test("a memory budget that fits no frame gives 0 frames in flight at the plan, before anything is written")
    func memoryFit() throws {
        let folder = try TemporaryFolder("engine-fit")
        let output = folder.file("out")
        let plan = try Self.engine(output).plan([try Self.job(frames: 4)])
        #expect(plan.fit(MemoryBudget(bytes: 1), requested: 8, isolated: false).workers == 0)
        let roomy = plan.fit(MemoryBudget(bytes: 1 << 40), requested: 8, isolated: false)
        #expect(roomy.workers == 8 && roomy.perWorker > 0)
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    @Test("a job with an unknown effect: the plan names it, and opening writes no folder")
    func badJob() throws {
        let folder = try TemporaryFolder("engine-bad")
        let output = folder.file("out")
        let plan = try Self.engine(output).plan([try Self.job(frames: 4, effect: "no-such-effect")])
        #expect(plan.jobs.isEmpty)
        #expect(plan.errors.first?.description.contains("unknown effect \"no-such-effect\"") == true)
        let run = plan.openAndWarmUp()
        #expect(run.jobs.isEmpty && !run.errors.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: output))
    }
}
