import Foundation

/// How two output folders differ: frames whose bytes differ, files only one of them holds, and
/// manifests that do not say `complete`. Every "same as" claim compares through this.
struct HarnessFolderDifference: Sendable, Equatable {
    /// Frames (`.png`, by path relative to the folders) present in both with other bytes.
    var differentFrames: [String] = []
    var onlyInFirst: [String] = []
    var onlyInSecond: [String] = []
    /// Manifests (`first/…`, `second/…`) that are missing or not complete.
    var incomplete: [String] = []
    /// Frames present in both.
    var framesCompared = 0

    var isEmpty: Bool { differentFrames.isEmpty && onlyInFirst.isEmpty && onlyInSecond.isEmpty && incomplete.isEmpty }

    /// One line: `2 frames differ (frame_00003.png, frame_00004.png); only in the first: frame_00009.png`.
    var summary: String {
        func list(_ paths: [String]) -> String {
            paths.prefix(6).joined(separator: ", ") + (paths.count > 6 ? ", … (\(paths.count))" : "")
        }
        var parts: [String] = []
        if !differentFrames.isEmpty {
            parts.append("\(differentFrames.count) of \(framesCompared) frames differ (\(list(differentFrames)))")
        }
        if !onlyInFirst.isEmpty { parts.append("only in the first: \(list(onlyInFirst))") }
        if !onlyInSecond.isEmpty { parts.append("only in the second: \(list(onlyInSecond))") }
        if !incomplete.isEmpty { parts.append("not complete: \(list(incomplete))") }
        return parts.isEmpty ? "identical" : parts.joined(separator: "; ")
    }
}

enum HarnessFolderComparison {
    /// Files no claim covers: the plugins' cache and temporary files a killed run may leave.
    static func isScratch(_ path: String) -> Bool {
        path.hasPrefix("renderfarm.cache/") || path.contains("/renderfarm.cache/")
            || (path.split(separator: "/").last ?? "").hasPrefix(".rf-tmp-")
    }

    /// Compares two output folders (a job's, or the folder of a job's variants): every frame
    /// byte for byte, the names of all other files, and every manifest's `complete`.
    static func compare(_ first: URL, _ second: URL, ignoring ignored: (String) -> Bool = isScratch)
        throws -> HarnessFolderDifference
    {
        var firstFiles = Set(files(in: first).filter { !ignored($0) })
        let secondFiles = Set(files(in: second).filter { !ignored($0) })
        // The render folder of a variant the job no longer has (renamed, its row removed) stays as it was:
        // a render never removes a folder it is not asked to render (DataDrivenJobs).
        let renderFolders = Set(secondFiles.compactMap { path in
            path.contains("/") ? path.split(separator: "/")[0] : nil
        })
        let abandoned = Set(
            firstFiles.filter { $0.hasSuffix("/renderfarm.job.json") }.map { $0.split(separator: "/")[0] }
        ).subtracting(renderFolders)
        firstFiles = firstFiles.filter { path in !abandoned.contains(path.split(separator: "/")[0]) }
        var difference = HarnessFolderDifference()
        difference.onlyInFirst = firstFiles.subtracting(secondFiles).sorted()
        difference.onlyInSecond = secondFiles.subtracting(firstFiles).sorted()
        for path in firstFiles.intersection(secondFiles).sorted() where path.hasSuffix(".png") {
            difference.framesCompared += 1
            let a = try Data(contentsOf: first.appendingPathComponent(path))
            let b = try Data(contentsOf: second.appendingPathComponent(path))
            if a != b { difference.differentFrames.append(path) }
        }
        for (label, folder, names) in [("first", first, firstFiles), ("second", second, secondFiles)] {
            let manifests = names.filter { $0 == "manifest.json" || $0.hasSuffix("/manifest.json") }.sorted()
            if manifests.isEmpty { difference.incomplete.append("\(label)/manifest.json (none)") }
            for manifest in manifests where !isComplete(folder.appendingPathComponent(manifest)) {
                difference.incomplete.append("\(label)/\(manifest)")
            }
        }
        return difference
    }

    /// The regular files under `folder`, by relative path, sorted.
    static func files(in folder: URL) -> [String] {
        guard let walk = FileManager.default.enumerator(atPath: folder.path) else { return [] }
        var found: [String] = []
        while let name = walk.nextObject() as? String {
            if walk.fileAttributes?[.type] as? FileAttributeType == .typeRegular { found.append(name) }
        }
        return found.sorted()
    }

    /// SHA-256 of every frame under `folder`, by relative path.
    static func frameHashes(in folder: URL) -> [String: String] {
        var hashes: [String: String] = [:]
        for path in files(in: folder) where path.hasSuffix(".png") && !isScratch(path) {
            if let data = try? Data(contentsOf: folder.appendingPathComponent(path)) { hashes[path] = sha256(data) }
        }
        return hashes
    }

    /// Whether the manifest at `url` says `"complete": true`.
    static func isComplete(_ url: URL) -> Bool {
        guard let data = try? Data(contentsOf: url), let manifest = HarnessJSON.parse(data) else { return false }
        return manifest["complete"] == .bool(true)
    }
}
