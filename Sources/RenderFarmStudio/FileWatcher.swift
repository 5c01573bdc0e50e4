import CInotify
import Foundation
import Locking

/// Watches the job file, the plugin folders, the files the job file reads to make its jobs and the files its
/// layers read (their folders) with inotify, and calls `changed` (on its own thread) once a burst of changes
/// has settled, or has gone on for ``longestBurst``.
final class FileWatcher: Sendable {
    /// What changed in one burst.
    struct Change: OptionSet, Sendable {
        let rawValue: Int
        /// The job file.
        static let job = Change(rawValue: 1)
        /// A plugin library.
        static let plugins = Change(rawValue: 2)
        /// A file a layer reads (`LayerInput`: a Lottie file, an image, an event log).
        static let inputs = Change(rawValue: 4)
        /// A file the job file reads to make its jobs (`variants.rows`).
        static let definition = Change(rawValue: 8)
    }

    private let descriptor: Int32
    private let stopped = StopFlag()
    /// The names of the files watched in each watched folder, with what a change of each is, by watch.
    private let files = Locked<[Int32: [String: Change]]>([:])
    /// Changes closer together than this are one change (an editor's save is several events).
    private static let settleMilliseconds: Int32 = 80
    /// A burst that never settles (a log appended to every few milliseconds, a tool rewriting a file in a loop)
    /// is told this long after it began, and the changes after that are the next burst's: the studio follows a
    /// file that changes all the time, a little late, rather than never.
    static let longestBurst = Duration.milliseconds(500)
    static let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_ATTRIB)

    init?(jobFile: String, pluginFolders: [String], changed: @escaping @Sendable (Change) -> Void) {
        descriptor = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard descriptor >= 0 else { return nil }
        let jobFolder = (jobFile as NSString).deletingLastPathComponent
        let jobName = (jobFile as NSString).lastPathComponent
        let jobWatch = inotify_add_watch(descriptor, jobFolder, Self.mask)
        var pluginWatches: Set<Int32> = []
        for folder in Set(pluginFolders) {
            let watch = inotify_add_watch(descriptor, folder, Self.mask)
            if watch >= 0 { pluginWatches.insert(watch) }
        }
        let (descriptor, watches, stopped, files) = (self.descriptor, pluginWatches, self.stopped, self.files)
        let thread = Thread {
            var pending: Change = []
            var burstBegan = ContinuousClock.now
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while !stopped.isSet {
                var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                // Waits for events; the timeout only bounds how long `stop()` takes.
                let ready = poll(&poller, 1, pending.isEmpty ? 250 : Self.settleMilliseconds)
                let count = ready > 0 ? buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) } : 0
                if count > 0 {
                    if pending.isEmpty { burstBegan = .now }
                    let watched = files.withLock { $0 }
                    for event in InotifyEvents.records(buffer, count: count) {
                        if event.watch == jobWatch && event.name == jobName { pending.insert(.job) }
                        if watches.contains(event.watch) && event.name.hasSuffix(".so") { pending.insert(.plugins) }
                        if let change = watched[event.watch]?[event.name] { pending.insert(change) }
                    }
                }
                if !pending.isEmpty && (ready <= 0 || ContinuousClock.now - burstBegan >= Self.longestBurst) {
                    changed(pending)
                    pending = []
                }
            }
            close(descriptor)
        }
        thread.name = "renderfarm.studio.watch"
        thread.start()
    }

    /// Watches `paths` (absolute) besides the files already watched; an edit, replacement or removal of
    /// one is told as `change` (`.inputs` or `.definition`).
    func watch(_ paths: some Sequence<String>, as change: Change) {
        let folders = Dictionary(grouping: paths) { ($0 as NSString).deletingLastPathComponent }
        var added: [Int32: [String]] = [:]
        for (folder, paths) in folders {
            let watch = inotify_add_watch(descriptor, folder, Self.mask)
            guard watch >= 0 else { continue }
            added[watch, default: []] += paths.map { ($0 as NSString).lastPathComponent }
        }
        files.withLock { watched in
            for (watch, names) in added {
                for name in names { watched[watch, default: [:]][name] = change }
            }
        }
    }

    /// Stops watching (the thread ends within a quarter second).
    func stop() { _ = stopped.set() }
}

/// The records of an inotify read.
enum InotifyEvents {
    struct Record {
        var watch: Int32
        var mask: UInt32
        var name: String
    }

    /// The records in the first `count` bytes of `buffer` (`struct inotify_event`s, each followed by
    /// its name, NUL-padded).
    static func records(_ buffer: [UInt8], count: Int) -> [Record] {
        var result: [Record] = []
        var offset = 0
        let header = MemoryLayout<inotify_event>.size
        buffer.withUnsafeBytes { bytes in
            while offset + header <= count {
                let watch = bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self)
                let mask = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
                let length = Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                let start = offset + header
                let end = min(start + length, count)
                let name = String(decoding: bytes[start..<end].prefix { $0 != 0 }, as: UTF8.self)
                result.append(Record(watch: watch, mask: mask, name: name))
                offset = start + length
            }
        }
        return result
    }
}
