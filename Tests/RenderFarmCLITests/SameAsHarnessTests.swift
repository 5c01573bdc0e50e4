import Foundation
import Testing

/// Issue 43, item 3: the other "same as" claims, checked on the jobs the incremental harness
/// generates. `make test` checks 12 jobs; `make fuzz-incremental` sets RENDERFARM_SAME_AS_JOBS=100;
/// RENDERFARM_SAME_AS_SEED=S checks the one job a failure names.
@Suite("Every \"same as\" claim holds on generated jobs (differential harness)", .serialized)
struct SameAsHarnessTests {
    static let baseSeed: UInt64 = 20_261_203_000

    @Test("-j 1 and -j 2, shards merged and one run, --isolate and in-process, render --video and encode")
    func claims() throws {
        let environment = ProcessInfo.processInfo.environment
        let seeds =
            environment["RENDERFARM_SAME_AS_SEED"].flatMap { UInt64($0) }.map { [$0] }
            ?? (0..<(environment["RENDERFARM_SAME_AS_JOBS"].flatMap { Int($0) } ?? 12)).map {
                Self.baseSeed + UInt64($0)
            }
        let workers =
            environment["RENDERFARM_INCREMENTAL_WORKERS"].flatMap { Int($0) }
            ?? min(2, ProcessInfo.processInfo.activeProcessorCount)
        let setup = try HarnessSetup.make()
        defer { setup.remove() }
        let tally = HarnessClaimTally()
        let started = ContinuousClock.now
        HarnessConfiguration.onWorkers(workers, count: seeds.count) { index in
            let seed = seeds[index]
            let replay = "replay: RENDERFARM_SAME_AS_SEED=\(seed) make fuzz-incremental"
            do {
                try Self.check(seed: seed, setup: setup) { claim, problem in
                    tally.record(claim, failure: problem.map { "seed \(seed) [\(claim)]: \($0); \(replay)" })
                }
            } catch {
                tally.record("harness", failure: "seed \(seed): harness error: \(error); \(replay)")
            }
        }
        report(tally.summary(jobs: seeds.count, seconds: HarnessOracle.seconds(since: started)))
        for failure in tally.failures {
            Issue.record("\(failure)")
        }
    }

    /// Generates the job of `seed`, renders the reference, and checks every claim that applies.
    static func check(seed: UInt64, setup: HarnessSetup, record: (String, String?) -> Void) throws {
        let temporary = try TemporaryFolder()
        let root =
            HarnessSequence.keep.map { URL(fileURLWithPath: $0).appendingPathComponent("seed-\(seed)") }
            ?? temporary.url
        try? FileManager.default.removeItem(at: root)
        let binary = HarnessBinary(folder: Binary.buildDirectory)
        let directory = root.appendingPathComponent("job")
        var random = FuzzRandom(seed: seed)
        guard let folder = try setup.validJob(in: directory, binary: binary, random: &random) else {
            record("job generation", "no valid job in 5 draws")
            return
        }
        let reference = root.appendingPathComponent("reference")
        let context = { (scratch: URL) in
            HarnessClaimContext(
                directory: directory, folder: folder, binary: binary, reference: reference, scratch: scratch)
        }
        if let problem = try context(root).run(HarnessClaim.render + ["--out", reference.path, "-j", "1"]) {
            record("reference render", problem)
            return
        }
        for (index, claim) in HarnessClaim.all.enumerated() where claim.applies(folder) {
            let scratch = root.appendingPathComponent("claim-\(index)")
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            record(claim.name, try claim.check(context(scratch)))
        }
    }
}
