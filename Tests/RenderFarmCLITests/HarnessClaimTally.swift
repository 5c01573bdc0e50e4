import Foundation
import Synchronization

/// Counts per claim, shared by the workers.
final class HarnessClaimTally: Sendable {
    struct Entry {
        var checked = 0
        var failures: [String] = []
    }

    let entries = Mutex<[String: Entry]>([:])

    func record(_ claim: String, failure: String?) {
        if let failure { report("same-as harness: FAIL " + failure) }
        entries.withLock { entries in
            entries[claim, default: Entry()].checked += 1
            if let failure { entries[claim, default: Entry()].failures.append(failure) }
        }
    }

    var failures: [String] {
        entries.withLock { entries in entries.keys.sorted().flatMap { entries[$0]?.failures ?? [] } }
    }

    func summary(jobs: Int, seconds: Double) -> String {
        entries.withLock { entries in
            (["same-as harness: \(jobs) generated jobs in \(String(format: "%.1f", seconds)) s"]
                + entries.keys.sorted().map { claim in
                    let entry = entries[claim] ?? Entry()
                    return "  \(claim): \(entry.checked) jobs, \(entry.failures.count) failing"
                        + (entry.failures.first.map { "; first: " + $0 } ?? "")
                }).joined(separator: "\n")
        }
    }
}
