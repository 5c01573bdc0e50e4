import Foundation
import Testing

@testable import RenderFarmOutput

@Suite("Output folder lock")
struct FolderLockTests {
    /// A child spawned by another thread holds the parent's open files from its fork to its exec, even
    /// those opened close-on-exec. Here a child keeps the lock's file open (as its descriptor 3) for as long
    /// as the test needs that moment to last.
    @Test("a released lock is free at once, though a child spawned meanwhile still has its file open")
    func releasedWhileAChildHoldsTheFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rf-lock-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var lock: FolderLock? = try FolderLock.acquire(folder.path, task: "render")
        let file = folder.appendingPathComponent(FolderLock.fileName).path
        let descriptor = try #require(Self.descriptor(of: file))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, descriptor, 3)
        let arguments: [String] = ["/bin/sleep", "30"]
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        try #require(posix_spawn(&child, "/bin/sleep", &actions, nil, argv, environ) == 0)
        defer {
            kill(child, SIGKILL)
            var status: Int32 = 0
            waitpid(child, &status, 0)
        }
        #expect(FolderLock.holders(of: folder.path).map(\.pid) == [lock?.holder.pid])
        lock = nil
        #expect(FolderLock.holders(of: folder.path).isEmpty, "the child's copy of the file kept the lock")
        #expect(throws: Never.self) { _ = try FolderLock.acquire(folder.path, task: "encode") }
    }

    @Test("the holder's time is ISO 8601 in UTC, the time the lock was taken, as Foundation reads it")
    func holderTime() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rf-lock-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let before = Date().timeIntervalSince1970.rounded(.down)
        let lock = try FolderLock.acquire(folder.path, task: "render")
        let after = Date().timeIntervalSince1970
        let since = try #require(FolderLock.holders(of: folder.path).first?.since)
        #expect(since == lock.holder.since)
        let parsed = try #require(ISO8601DateFormatter().date(from: since), "not ISO 8601: \(since)")
        #expect((before...after).contains(parsed.timeIntervalSince1970), "\(since) is not now")
        #expect(since.hasSuffix("Z") && since.count == 20, "\(since)")
    }

    @Test("the holder's time is written as Foundation's ISO8601DateFormatter writes it, at any second")
    func timestampsMatchFoundation() {
        var generator = SystemRandomNumberGenerator()
        // Every era a lock may be taken in, and the edges of days, months, leap days and years.
        let edges: [time_t] = [0, 59, 60, 86_399, 86_400, 951_782_399, 951_782_400, 1_709_164_800, 2_147_483_647]
        let seconds = edges + (0..<500).map { _ in time_t.random(in: 0...4_102_444_799, using: &generator) }
        let formatter = ISO8601DateFormatter()
        for second in seconds {
            let expected = formatter.string(from: Date(timeIntervalSince1970: TimeInterval(second)))
            #expect(FolderLock.Holder.timestamp(second) == expected, "at \(second) s")
        }
    }

    /// This process's descriptor open on `path` (read from /proc/self/fd), if any.
    static func descriptor(of path: String) -> Int32? {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for entry in entries {
            guard let number = Int32(entry),
                let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(entry)"),
                target == path
            else { continue }
            return number
        }
        return nil
    }
}
