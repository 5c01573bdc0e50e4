import Foundation

/// A generated job and the files it names: what the differential harnesses render. `write(into:)`
/// makes the folder a user would have (`job.json` beside its `assets/`), so any "same as" claim can
/// be checked on it.
struct HarnessJobFolder: Sendable, Equatable {
    static let jobFile = "job.json"
    /// The job's own output folder, relative to the job file (incremental renders go there).
    static let outputDirectory = "out"

    var job: HarnessJSON
    /// By path relative to the job's folder (`assets/png-1.png`).
    var assets: [String: HarnessAsset] = [:]

    /// The job's variants, when it has them.
    var hasVariants: Bool { job["variants"] != nil }

    /// The job's name (the folder `render --out` puts a job with variants in).
    var name: String { job["name"]?.stringValue ?? "job" }

    /// Writes the job file and every asset into `folder`.
    func write(into folder: URL) throws {
        try writeJob(into: folder)
        for path in assets.keys.sorted() {
            try writeAsset(path, into: folder)
        }
    }

    func writeJob(into folder: URL, pretty: Bool = false) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let text = pretty ? job.prettyText : job.text + "\n"
        try Data(text.utf8).write(to: folder.appendingPathComponent(Self.jobFile))
    }

    /// Writes one asset in place (the same inode when the file exists).
    func writeAsset(_ path: String, into folder: URL) throws {
        guard let asset = assets[path] else { return }
        let url = folder.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try asset.data.write(to: url)
    }

    /// Adds an asset under a new name `assets/KIND-N.EXT` and returns the name.
    mutating func add(_ asset: HarnessAsset, ext: String) -> String {
        var number = 1
        while assets.keys.contains(where: { $0.hasPrefix("assets/\(asset.kind.rawValue)-\(number).") }) { number += 1 }
        let path = "assets/\(asset.kind.rawValue)-\(number).\(ext)"
        assets[path] = asset
        return path
    }

    /// Every string of the job, with where it is (for finding which fields name a file).
    var strings: [String] {
        var found: [String] = []
        func walk(_ value: HarnessJSON) {
            switch value {
            case .string(let string): found.append(string)
            case .array(let list): list.forEach(walk)
            case .object(let object): object.keys.sorted().forEach { walk(object[$0] ?? .null) }
            default: break
            }
        }
        walk(job)
        for path in assets.keys.sorted() {
            if case .events(let log) = assets[path] { log.events.forEach { walk(.object($0)) } }
        }
        return found
    }

    /// Whether the job names `path` (in a field, or in an event of one of its event logs).
    func names(_ path: String) -> Bool { strings.contains(path) }

    /// Removes the assets nothing names any more.
    mutating func dropUnnamedAssets() {
        let named = Set(strings)
        assets = assets.filter { named.contains($0.key) }
    }
}
