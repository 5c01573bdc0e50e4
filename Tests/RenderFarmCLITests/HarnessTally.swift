import Foundation
import Synchronization

/// What went wrong after one edit.
enum HarnessFailureClass: String, CaseIterable, Sendable, Comparable {
    case staleFrames = "stale frames"
    case files = "files differ"
    case incomplete = "not complete"
    case renderFailed = "render failed"
    case reason = "wrong reason"
    case noOpRedraw = "redrawn on a no-op"
    case harness = "harness error"

    static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs) ?? 0 < allCases.firstIndex(of: rhs) ?? 0
    }
}

/// One failure, with what replays it.
struct HarnessFailure: Sendable {
    var seed: UInt64
    var edit: Int
    var kind: HarnessEditKind
    var label: String
    var classes: [HarnessFailureClass]
    var description: String
    var problem: String
    var killed: Bool

    var line: String {
        "seed \(seed) edit \(edit)\(killed ? " (killed and resumed)" : "") [\(kind.rawValue): \(label)] "
            + "\(description) — \(problem); replay: RENDERFARM_INCREMENTAL_SEED=\(seed) "
            + "RENDERFARM_INCREMENTAL_EDITS=\(edit) make fuzz-incremental"
    }
}

/// Counts of one edit label.
struct HarnessEntry: Sendable {
    var edits = 0
    var refused = 0
    var framesCompared = 0
    var redrawn = 0
    var overdrawn = 0
    var staleFrames = 0
    var killed = 0
    var failures: [HarnessFailureClass: Int] = [:]
    var first: HarnessFailure?
}

/// The counts of a run, shared by its workers; also hands out the sequences to run.
final class HarnessTally: Sendable {
    struct State {
        var entries: [String: HarnessEntry] = [:]
        var failures: [HarnessFailure] = []
        var nextSequence = 0
        var sequences = 0
        var generationFailures: [UInt64] = []
        var errors: [String] = []
    }

    let state = Mutex(State())
    let sequenceCount: Int

    init(sequences: Int) { sequenceCount = sequences }

    /// The next sequence to run, nil when all are taken.
    func takeSequence() -> Int? {
        state.withLock { state in
            guard state.nextSequence < sequenceCount else { return nil }
            defer { state.nextSequence += 1 }
            return state.nextSequence
        }
    }

    static func key(_ kind: HarnessEditKind, _ label: String) -> String { "\(kind.rawValue)|\(label)" }

    func refused(_ kind: HarnessEditKind, _ label: String) {
        state.withLock { $0.entries[Self.key(kind, label), default: HarnessEntry()].refused += 1 }
    }

    func sequenceDone(generated: Bool, seed: UInt64) {
        state.withLock { state in
            state.sequences += 1
            if !generated { state.generationFailures.append(seed) }
        }
    }

    /// Records one edit's outcome; a failure is printed at once.
    func record(
        _ edit: HarnessEdit, frames: Int, redrawn: Int, overdrawn: Int, stale: Int, killed: Bool,
        failure: HarnessFailure?
    ) {
        if let failure { report("incremental harness: FAIL " + failure.line) }
        state.withLock { state in
            var entry = state.entries[Self.key(edit.kind, edit.label), default: HarnessEntry()]
            entry.edits += 1
            entry.framesCompared += frames
            entry.redrawn += redrawn
            entry.overdrawn += overdrawn
            entry.staleFrames += stale
            entry.killed += killed ? 1 : 0
            if let failure {
                failure.classes.forEach { entry.failures[$0, default: 0] += 1 }
                if entry.first == nil { entry.first = failure }
                state.failures.append(failure)
            }
            state.entries[Self.key(edit.kind, edit.label)] = entry
        }
    }

    var failures: [HarnessFailure] { state.withLock { $0.failures } }

    /// Failures of the harness itself (a file it could not write), not of the renderer.
    var errors: [String] { state.withLock { $0.errors } }

    func harnessError(seed: UInt64, _ message: String) {
        let line =
            "seed \(seed): harness error: \(message); replay: RENDERFARM_INCREMENTAL_SEED=\(seed) make fuzz-incremental"
        report("incremental harness: " + line)
        state.withLock { $0.errors.append(line) }
    }

    /// The summary printed at the end of a run: edits per kind and label, frames compared, failures
    /// per class with the first seed, over-drawing, time.
    func summary(seconds: Double, workers: Int) -> String {
        state.withLock { state in
            let rows = state.entries.sorted { $0.key < $1.key }
            let edits = rows.reduce(0) { $0 + $1.value.edits }
            let frames = rows.reduce(0) { $0 + $1.value.framesCompared }
            let redrawn = rows.reduce(0) { $0 + $1.value.redrawn }
            let overdrawn = rows.reduce(0) { $0 + $1.value.overdrawn }
            var lines = [
                "incremental harness: \(edits) edits in \(state.sequences) sequences, \(frames) frames compared, "
                    + "\(state.failures.count) failing edits, \(String(format: "%.1f", seconds)) s on "
                    + "\(workers) workers; "
                    + "\(redrawn) frames redrawn, \(overdrawn) of them over-drawn (same bytes as before)"
            ]
            if !state.generationFailures.isEmpty {
                lines.append("  sequences whose job could not be made valid: seeds \(state.generationFailures)")
            }
            var byKind: [HarnessEditKind: [(String, HarnessEntry)]] = [:]
            for (key, entry) in rows {
                let parts = key.split(separator: "|", maxSplits: 1).map(String.init)
                guard let kind = HarnessEditKind(rawValue: parts[0]) else { continue }
                byKind[kind, default: []].append((parts.count > 1 ? parts[1] : "", entry))
            }
            for kind in byKind.keys.sorted() {
                let entries = byKind[kind] ?? []
                let count = entries.reduce(0) { $0 + $1.1.edits }
                let failing = entries.reduce(0) { $0 + ($1.1.first == nil ? 0 : 1) }
                lines.append("  \(kind.rawValue): \(count) edits, \(failing) of \(entries.count) labels failing")
                for (label, entry) in entries {
                    var text = "    \(label): \(entry.edits) edits"
                    if entry.refused > 0 { text += " (+\(entry.refused) refused by validate)" }
                    text += ", \(entry.framesCompared) frames, \(entry.redrawn) redrawn, \(entry.overdrawn) over-drawn"
                    if entry.killed > 0 { text += ", \(entry.killed) killed and resumed" }
                    let failures = entry.failures.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key.rawValue)" }
                    if let first = entry.first {
                        text +=
                            "; FAIL: \(failures.joined(separator: ", ")), \(entry.staleFrames) stale frames; first: "
                            + "seed \(first.seed) edit \(first.edit)"
                    }
                    lines.append(text)
                }
            }
            return lines.joined(separator: "\n")
        }
    }
}
