import FileOutput
import Foundation
import RenderFarmJobs
import StrictJSON

/// `variants.json`: the index of a batch made from one job file with `variants`, written beside
/// the variants' folders: every variant's name, values, folder and frame count.
package enum VariantIndex {
    package static let fileName = FolderLayout.variantIndex
    package static let format = "renderfarm.variants"

    /// Writes the index of every batch among `jobs` (each with its output folder) into the folder
    /// that holds its variants' folders. The bytes depend only on the batch, so shards may write it
    /// at the same time.
    package static func write(for jobs: [(job: LoadedJob, outputDirectory: String)]) throws(OutputError) {
        var batches: [String: [(job: LoadedJob, outputDirectory: String)]] = [:]
        var order: [String] = []
        for job in jobs {
            guard let batch = job.job.variant?.batch else { continue }
            if batches[batch.file] == nil { order.append(batch.file) }
            batches[batch.file, default: []].append(job)
        }
        for file in order {
            guard let members = batches[file], let batch = members.first?.job.variant?.batch else { continue }
            let folders = members.map(\.outputDirectory)
            let root = commonFolder(folders.map { ($0 as NSString).deletingLastPathComponent })
            let byName = Dictionary(
                members.compactMap { job in job.job.variant.map { ($0.name, job.outputDirectory) } },
                uniquingKeysWith: { a, _ in a })
            let directory = members.first?.job.directory ?? root
            let entries: [JSONValue] = batch.variants.enumerated().map { index, summary in
                let folder =
                    byName[summary.variant]
                    ?? (directory as NSString).appendingPathComponent(summary.outputDirectory)
                return .object([
                    "name": .string(summary.variant), "index": .number(Double(index)),
                    "origin": .string(summary.origin),
                    "values": .object(summary.values), "folder": .string(relative(folder, to: root)),
                    "frames": .number(Double(summary.frameCount)),
                ])
            }
            let index: JSONValue = .object([
                "format": .string(format), "version": 1, "job": .string(batch.file), "name": .string(batch.name),
                "variants": .array(entries),
            ])
            try AtomicFile.createDirectory(root)
            // Like the variants' own records: a link or special file planted in its place is refused.
            try FolderDescriptor(opening: root).write(index.serialized(pretty: true, sortedKeys: true), to: fileName)
        }
    }

    /// The deepest folder that holds every one of `folders`.
    private static func commonFolder(_ folders: [String]) -> String {
        let split = folders.map { $0.split(separator: "/", omittingEmptySubsequences: true) }
        guard var common = split.first else { return "/" }
        for parts in split.dropFirst() {
            common = Array(zip(common, parts).prefix { $0 == $1 }.map(\.0))
        }
        return "/" + common.joined(separator: "/")
    }

    private static func relative(_ path: String, to root: String) -> String {
        let prefix = root.hasSuffix("/") ? root : root + "/"
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
    }
}
