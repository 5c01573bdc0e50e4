import CInotify
import Foundation
import Locking
import RenderFarm
import RenderFarmOutput
import StrictJSON

/// The farm view's status, kept current with inotify instead of rescanning: every folder searched
/// under the root is watched; a change inside a render folder reads that folder again, and a folder
/// made, removed or given a job record searches the root again. An idle farm costs nothing.
final class FarmWatch: Sendable {
    let root: String
    private let descriptor: Int32
    private let state = Locked(State())

    private struct State {
        var watches: [Int32: String] = [:]
        var watched: Set<String> = []
        var renderFolders: Set<String> = []
        var statuses: [String: JSONValue] = [:]
        /// Some folder could not be watched (the system's watch limit): search again now and then.
        var incomplete = false
        var searched = Date()
    }

    /// How often the root is searched again when not every folder could be watched.
    private static let fallbackSeconds = 5.0

    init(root: String) {
        self.root = root
        descriptor = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        rescan()
    }

    deinit { if descriptor >= 0 { close(descriptor) } }

    /// `GET /api/status` as it is now.
    var json: JSONValue {
        state.withLock { state in
            FarmStatus.json(root: root, statuses: state.renderFolders.sorted().compactMap { state.statuses[$0] })
        }
    }

    /// Waits up to `timeout` seconds for changes, then applies those that arrive within `settle`
    /// seconds of the first; true when something was read again.
    func waitForChanges(timeout: Double, settle: Double) -> Bool {
        guard descriptor >= 0, wait(timeout) else {
            let due = state.withLock { $0.searched.timeIntervalSinceNow < -Self.fallbackSeconds }
            if due && (state.withLock({ $0.incomplete }) || descriptor < 0) {
                rescan()
                return true
            }
            return false
        }
        var changedFolders: Set<String> = []
        var searchAgain = false
        let started = Date()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        repeat {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { continue }
            let (watches, renderFolders) = state.withLock { ($0.watches, $0.renderFolders) }
            for event in InotifyEvents.records(buffer, count: count) {
                guard event.mask & UInt32(IN_Q_OVERFLOW | IN_IGNORED) == 0, let folder = watches[event.watch] else {
                    // A folder gone (its watch removed), or events lost: search again.
                    if event.mask & UInt32(IN_IGNORED) != 0 { forget(event.watch) }
                    searchAgain = true
                    continue
                }
                if renderFolders.contains(folder) {
                    changedFolders.insert(folder)
                } else if event.mask & UInt32(IN_ISDIR) != 0 || event.name == JobRecord.fileName {
                    searchAgain = true
                }
            }
        } while wait(max(0, settle - Date().timeIntervalSince(started)))
        if searchAgain { rescan() }
        let statuses = changedFolders.map { ($0, FarmStatus.status(of: $0)) }
        state.withLock { state in
            for (folder, status) in statuses where state.renderFolders.contains(folder) {
                state.statuses[folder] = status
            }
        }
        return searchAgain || !statuses.isEmpty
    }

    /// Searches the root again: new folders are watched and read, gone ones dropped.
    private func rescan() {
        let (renderFolders, searched) = FarmStatus.scan(under: root)
        let known = state.withLock { $0.statuses }
        let read = renderFolders.filter { known[$0] == nil }.map { ($0, FarmStatus.status(of: $0)) }
        state.withLock { state in
            for folder in renderFolders + searched where !state.watched.contains(folder) && descriptor >= 0 {
                let watch = inotify_add_watch(descriptor, folder, Self.mask)
                if watch < 0 {
                    state.incomplete = true
                    continue
                }
                state.watches[watch] = folder
                state.watched.insert(folder)
            }
            state.renderFolders = Set(renderFolders)
            state.searched = Date()
            for (folder, status) in read { state.statuses[folder] = status }
            state.statuses = state.statuses.filter { state.renderFolders.contains($0.key) }
        }
    }

    /// A render appends to its journal (modify) and renames finished frames in (moved to).
    private static let mask = UInt32(
        IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_ATTRIB | IN_DELETE_SELF)

    /// Drops a watch the system removed (its folder is gone).
    private func forget(_ watch: Int32) {
        state.withLock { state in
            if let folder = state.watches.removeValue(forKey: watch) { state.watched.remove(folder) }
        }
    }

    /// Whether events are ready within `seconds`.
    private func wait(_ seconds: Double) -> Bool {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&poller, 1, Int32(seconds * 1000)) > 0
    }
}
