import FileInput
import FileOutput
import Foundation

/// A run's claim on its output folder, held from planning to the last write.
///
/// Locks are `flock(2)` locks on files in the folder, which the kernel releases when the holder
/// exits in any way (SIGKILL included), so a lock can never be left behind. A whole run and
/// `merge` hold `renderfarm.lock` exclusively. A shard holds `renderfarm.lock` shared, so the
/// shards of one job run side by side, and its own `renderfarm.shard-K-of-N.lock` exclusively,
/// so the same shard never runs twice. The lock files stay in the folder; they hold the holder's
/// pid, host and start time for messages. On NFS, Linux turns `flock` into NFS byte-range
/// locks, which hold across hosts (NFSv4, or NFSv3 with lockd); a lock of a crashed host is
/// released when the server's lease for it expires.
///
/// The lock holds the folder open (`folder`), and its lock files are opened relative to it with no link
/// followed: every file a run writes in the folder is named from this descriptor (`FolderDescriptor`).
package final class FolderLock: Sendable {
    /// Who holds a lock, as the lock file records it.
    package typealias Holder = LockHolder

    package static let fileName = FolderLayout.lock

    /// The lock file of one shard.
    package static func fileName(of shard: Shard) -> String { FolderLayout.lock(of: shard) }

    /// The holder recorded for this lock.
    package let holder: Holder
    /// The locked folder, open: what the run writes there is named relative to it.
    package let folder: FolderDescriptor
    private let descriptors: [Int32]

    private init(holder: Holder, folder: FolderDescriptor, descriptors: [Int32]) {
        self.holder = holder
        self.folder = folder
        self.descriptors = descriptors
    }

    deinit {
        // Unlocked before closed: a lock belongs to the open file, which a child another thread is
        // spawning holds too until it runs its program, and closing this descriptor alone would leave
        // the folder locked for that moment (a command run next in this process would find it in use).
        for descriptor in descriptors {
            flock(descriptor, LOCK_UN)
            close(descriptor)
        }
    }

    /// Takes the lock for `shard` of `directory` (which must exist) at once, or throws
    /// `.locked` naming who holds it.
    package static func acquire(_ directory: String, shard: Shard = .whole, task: String) throws(OutputError)
        -> FolderLock
    {
        let holder = Holder.current(task: task)
        let folder = try FolderDescriptor(opening: directory)
        let mainDescriptor = try folder.openForLocking(fileName)
        guard flock(mainDescriptor, (shard == .whole ? LOCK_EX : LOCK_SH) | LOCK_NB) == 0 else {
            close(mainDescriptor)
            throw .locked(path: directory, holders: holders(of: directory))
        }
        guard shard != .whole else {
            record(holder, in: mainDescriptor)
            return FolderLock(holder: holder, folder: folder, descriptors: [mainDescriptor])
        }
        let own = (directory as NSString).appendingPathComponent(fileName(of: shard))
        let ownDescriptor: Int32
        do {
            // O_NOFOLLOW: a lock file replaced by a symbolic link is refused, not followed.
            ownDescriptor = try folder.openForLocking(fileName(of: shard))
        } catch {
            close(mainDescriptor)
            throw error
        }
        guard flock(ownDescriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(ownDescriptor)
            close(mainDescriptor)
            throw .locked(path: directory, holders: [recorded(at: own)].compactMap { $0 })
        }
        record(holder, in: ownDescriptor)
        return FolderLock(holder: holder, folder: folder, descriptors: [mainDescriptor, ownDescriptor])
    }

    /// Who is rendering into `directory` now: the holders of every lock file in it that is held.
    /// Empty when nobody is.
    package static func holders(of directory: String) -> [Holder] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let shardLocks = names.filter(FolderLayout.isShardLock).sorted()
        // Shards first: while shards hold the main lock shared, its file still names an older holder.
        let shardHolders = shardLocks.compactMap { name -> Holder? in
            let path = (directory as NSString).appendingPathComponent(name)
            return isHeld(path) ? recorded(at: path) ?? unknownHolder : nil
        }
        if !shardHolders.isEmpty { return shardHolders }
        let main = (directory as NSString).appendingPathComponent(fileName)
        return isHeld(main) ? [recorded(at: main) ?? unknownHolder] : []
    }

    private static let unknownHolder = Holder(pid: 0, host: "unknown host", since: "unknown time", task: "a run")

    /// Whether someone holds `path` exclusively, probed without blocking by a shared lock that is
    /// released at once (shared, so that the probe never stops a shard from starting).
    private static func isHeld(_ path: String) -> Bool {
        let descriptor = Foundation.open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return flock(descriptor, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK
    }

    /// Replaces the lock file's text with `holder` (only the exclusive holder writes).
    private static func record(_ holder: Holder, in descriptor: Int32) {
        let line = Array((holder.line + "\n").utf8)
        _ = ftruncate(descriptor, 0)
        _ = line.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
    }

    private static func recorded(at path: String) -> Holder? {
        // Through the input reader: a lock file replaced by a link, a named pipe or a device is ignored.
        guard let line = try? InputFile(path, followLastLink: false).read(upTo: 512), !line.isEmpty else { return nil }
        return Holder(line: String(decoding: line, as: UTF8.self))
    }
}
