import Foundation

/// The size of a harness run, from the environment: `make test` runs 40 edits (4 sequences of 10);
/// `make fuzz-incremental` sets RENDERFARM_INCREMENTAL_EDITS=2000 (sequences of 20);
/// RENDERFARM_INCREMENTAL_SEED=S replays the one sequence S (RENDERFARM_INCREMENTAL_EDITS=N: its first N
/// edits, which do not depend on the sequence's length). RENDERFARM_INCREMENTAL_LENGTH sets the edits per
/// sequence, RENDERFARM_INCREMENTAL_WORKERS the threads (2), RENDERFARM_INCREMENTAL_BASE_SEED the first
/// sequence's seed (to explore other sequences than CI's).
struct HarnessConfiguration: Sendable {
    /// The first sequence's seed; sequence k has seed `baseSeed + k`.
    static let baseSeed: UInt64 =
        ProcessInfo.processInfo.environment["RENDERFARM_INCREMENTAL_BASE_SEED"].flatMap { UInt64($0) } ?? 20_261_203
    static let defaultEdits = 40

    var seeds: [UInt64]
    /// Edits of each sequence.
    var edits: Int
    var workers: Int
    var killRate = 0.1
    /// Where to write the run's findings as Markdown (RENDERFARM_INCREMENTAL_REPORT).
    var reportPath: String?

    static func fromEnvironment() -> HarnessConfiguration {
        let environment = ProcessInfo.processInfo.environment
        let edits = environment["RENDERFARM_INCREMENTAL_EDITS"].flatMap { Int($0) }
        let workers =
            environment["RENDERFARM_INCREMENTAL_WORKERS"].flatMap { Int($0) }
            ?? min(2, ProcessInfo.processInfo.activeProcessorCount)
        let report = environment["RENDERFARM_INCREMENTAL_REPORT"].flatMap { $0.isEmpty ? nil : $0 }
        let length =
            environment["RENDERFARM_INCREMENTAL_LENGTH"].flatMap { Int($0) }.map { max(1, $0) }
            ?? (edits == nil ? 10 : 20)
        if let seed = environment["RENDERFARM_INCREMENTAL_SEED"].flatMap({ UInt64($0) }) {
            return HarnessConfiguration(seeds: [seed], edits: edits ?? 20, workers: 1, reportPath: report)
        }
        let total = max(1, edits ?? defaultEdits)
        let count = (total + length - 1) / length
        return HarnessConfiguration(
            seeds: (0..<count).map { baseSeed + UInt64($0) }, edits: min(total, length),
            workers: max(1, workers), reportPath: report)
    }

    /// Runs `body(k)` for k in 0..<count on `workers` threads, each taking the next k until none is left.
    static func onWorkers(_ workers: Int, count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let tickets = HarnessTally(sequences: count)
        let group = DispatchGroup()
        for _ in 0..<max(1, min(workers, count)) {
            group.enter()
            let thread = Thread {
                while let index = tickets.takeSequence() { body(index) }
                group.leave()
            }
            thread.stackSize = 8 << 20
            thread.start()
        }
        group.wait()
    }
}
