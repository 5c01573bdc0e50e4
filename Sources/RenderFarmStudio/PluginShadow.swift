import Foundation

/// The plugin search path as the studio loads it after a plugin library is rebuilt. The engine
/// never unloads a library (`RTLD_NODELETE`) and `dlopen` never loads one path twice, so a library
/// rebuilt since it was loaded is copied under a fresh folder, which goes before its own on the
/// search path: the catalog then loads the new code (and hashes the new bytes into fingerprints).
/// Not `Sendable`: lives inside the session's lock.
struct PluginShadow {
    /// What a library file was when it was first loaded from its path (or last copied).
    private struct Identity: Equatable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modified: Int
    }

    private let folders: [String]
    private let shadowRoot: String
    /// Libraries loaded from their own path, as they were then.
    private var loaded: [String: Identity] = [:]
    /// The latest copy of each rebuilt library, and what it was copied from.
    private var copies: [String: (copy: String, source: Identity)] = [:]
    private var generation = 0

    init(folders: [String]) {
        self.folders = folders
        shadowRoot = (NSTemporaryDirectory() as NSString).appendingPathComponent(
            "renderfarm-studio-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        for library in libraries() { loaded[library.path] = library.identity }
    }

    /// The search path to discover plugins with now: copies of rebuilt libraries first.
    mutating func searchPath() -> [String] {
        var path: [String] = []
        for folder in folders {
            for library in libraries(in: folder) {
                guard let first = loaded[library.path] else {
                    loaded[library.path] = library.identity  // new: loadable from its own path
                    continue
                }
                let latest = copies[library.path]?.source ?? first
                if library.identity != latest, let copy = copy(library.path) {
                    copies[library.path] = (copy, library.identity)
                }
                if let copy = copies[library.path]?.copy { path.append((copy as NSString).deletingLastPathComponent) }
            }
            path.append(folder)
        }
        return path
    }

    /// Removes the copies (the loaded code stays mapped; only the files go).
    func removeCopies() {
        try? FileManager.default.removeItem(atPath: shadowRoot)
    }

    private mutating func copy(_ path: String) -> String? {
        generation += 1
        let folder = (shadowRoot as NSString).appendingPathComponent(String(generation))
        let target = (folder as NSString).appendingPathComponent((path as NSString).lastPathComponent)
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: path, toPath: target)
            return target
        } catch {
            return nil
        }
    }

    private func libraries() -> [(path: String, identity: Identity)] {
        folders.flatMap { libraries(in: $0) }
    }

    private func libraries(in folder: String) -> [(path: String, identity: Identity)] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return [] }
        return names.sorted().filter { $0.hasSuffix(".so") }.compactMap { name in
            let path = (folder as NSString).appendingPathComponent(name)
            var info = stat()
            guard stat(path, &info) == 0 else { return nil }
            return (
                path,
                Identity(
                    device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
                    modified: info.st_mtim.tv_sec * 1_000_000_000 + info.st_mtim.tv_nsec)
            )
        }
    }
}
