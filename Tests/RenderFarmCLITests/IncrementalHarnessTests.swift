import Foundation
import Testing

/// Issue 43's promise, proven by generated jobs and edits: a re-run draws exactly the frames that are
/// missing or whose drawing changed, so the folder of an earlier render, rendered again after any
/// edit, equals a fresh render of the edited job, frame by frame.
@Suite("Incremental renders equal fresh ones (differential harness)", .serialized)
struct IncrementalHarnessTests {
    @Test("after every random edit, render into the earlier folder equals a fresh render and says why")
    func incrementalEqualsFresh() throws {
        let configuration = HarnessConfiguration.fromEnvironment()
        let setup = try HarnessSetup.make()
        defer { setup.remove() }
        let tally = HarnessTally(sequences: configuration.seeds.count)
        let started = ContinuousClock.now
        HarnessConfiguration.onWorkers(configuration.workers, count: configuration.seeds.count) { index in
            let seed = configuration.seeds[index]
            let sequence = HarnessSequence(
                seed: seed, edits: configuration.edits, setup: setup, tally: tally, killRate: configuration.killRate)
            do {
                try sequence.run()
            } catch {
                tally.harnessError(seed: seed, "\(error)")
            }
        }
        let seconds = HarnessOracle.seconds(since: started)
        report(tally.summary(seconds: seconds, workers: configuration.workers))
        if let path = configuration.reportPath {
            try tally.markdown(seconds: seconds, configuration: configuration).write(
                toFile: path, atomically: true, encoding: .utf8)
        }
        for line in tally.errors + tally.failures.map(\.line) {
            Issue.record("\(line)")
        }
    }
}
