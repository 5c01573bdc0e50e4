import CInotify
import Foundation

/// Watches the job file's folder and the plugin folders with inotify and calls `changed` (on its
/// own thread) once a burst of changes has settled: `plugins` is true when a plugin library changed.
final class FileWatcher: Sendable {
    private let descriptor: Int32
    private let stopped = StopFlag()
    /// Changes closer together than this are one change (an editor's save is several events).
    private static let settleMilliseconds: Int32 = 80

    init?(jobFile: String, pluginFolders: [String], changed: @escaping @Sendable (_ plugins: Bool) -> Void) {
        descriptor = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard descriptor >= 0 else { return nil }
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_ATTRIB)
        let jobFolder = (jobFile as NSString).deletingLastPathComponent
        let jobName = (jobFile as NSString).lastPathComponent
        let jobWatch = inotify_add_watch(descriptor, jobFolder, mask)
        var pluginWatches: Set<Int32> = []
        for folder in Set(pluginFolders) where folder != jobFolder {
            let watch = inotify_add_watch(descriptor, folder, mask)
            if watch >= 0 { pluginWatches.insert(watch) }
        }
        let descriptor = self.descriptor
        let watches = pluginWatches
        let stopped = self.stopped
        let thread = Thread {
            var job = false
            var plugins = false
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while !stopped.isSet {
                var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                let pending = job || plugins
                let ready = poll(&poller, 1, pending ? Self.settleMilliseconds : 250)
                if ready <= 0 {
                    if pending {
                        changed(plugins)
                        (job, plugins) = (false, false)
                    }
                    continue
                }
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                guard count > 0 else { continue }
                for (watch, name) in Self.events(in: buffer, count: count) {
                    if watch == jobWatch && name == jobName { job = true }
                    if watches.contains(watch) && name.hasSuffix(".so") { plugins = true }
                    if watch == jobWatch && name.hasSuffix(".so") && pluginFolders.contains(jobFolder) {
                        plugins = true
                    }
                }
            }
            close(descriptor)
        }
        thread.name = "renderfarm.studio.watch"
        thread.start()
    }

    /// The (watch, file name) of each event in the first `count` bytes of `buffer`.
    private static func events(in buffer: [UInt8], count: Int) -> [(Int32, String)] {
        var result: [(Int32, String)] = []
        var offset = 0
        let header = MemoryLayout<inotify_event>.size
        buffer.withUnsafeBytes { bytes in
            while offset + header <= count {
                let watch = bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self)
                let length = Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                let start = offset + header
                let end = min(start + length, count)
                let name = String(decoding: bytes[start..<end].prefix { $0 != 0 }, as: UTF8.self)
                result.append((watch, name))
                offset = start + length
            }
        }
        return result
    }

    /// Stops watching (the thread ends within a quarter second).
    func stop() { _ = stopped.set() }
}
