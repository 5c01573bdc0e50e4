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
            since: timestamp(time(nil)), task: task)
    }

    /// `seconds` since 1970 as ISO 8601 in UTC, to the second (`2026-12-06T22:50:07Z`), as Foundation's
    /// `ISO8601DateFormatter` writes it. Formatted here from `gmtime_r`: that formatter set up ICU's calendars and
    /// read the time zone files at the start of every render, for a time that is always UTC.
    package static func timestamp(_ seconds: time_t) -> String {
        var parts = tm()
        var clock = seconds
        guard gmtime_r(&clock, &parts) != nil else { return "unknown time" }
        func digits(_ value: Int32, _ count: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, count - text.count)) + text
        }
        return digits(parts.tm_year + 1900, 4) + "-" + digits(parts.tm_mon + 1, 2) + "-" + digits(parts.tm_mday, 2)
            + "T" + digits(parts.tm_hour, 2) + ":" + digits(parts.tm_min, 2) + ":" + digits(parts.tm_sec, 2) + "Z"
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
