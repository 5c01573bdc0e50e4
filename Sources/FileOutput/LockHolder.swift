import Foundation

/// Who holds an output folder's lock (`FolderLock`), as the lock file records it: the process, its host,
/// when it took the lock and what it runs.
package struct LockHolder: Sendable, Equatable, CustomStringConvertible {
    package var pid: Int32
    package var host: String
    /// ISO 8601 time the lock was taken.
    package var since: String
    /// What the holder runs, e.g. `render` or `render --shard 1/4`.
    package var task: String

    package var description: String { "\(task) (pid \(pid) on \(host), since \(since))" }

    /// This process, now.
    package static func current(task: String) -> LockHolder {
        LockHolder(
            pid: getpid(), host: ProcessInfo.processInfo.hostName,
            since: ISO8601DateFormatter().string(from: Date()), task: task)
    }

    package var line: String { "\(pid) \(since) \(host) \(task)" }

    package init(pid: Int32, host: String, since: String, task: String) {
        self.pid = pid
        self.host = host
        self.since = since
        self.task = task
    }

    /// Parses `line`'s format; nil for anything else (an empty or foreign file).
    package init?(line: String) {
        let parts = line.split(separator: " ", maxSplits: 3).map(String.init)
        guard parts.count == 4, let pid = Int32(parts[0]) else { return nil }
        self.init(pid: pid, host: parts[2], since: parts[1], task: parts[3].trimmingCharacters(in: .newlines))
    }
}
