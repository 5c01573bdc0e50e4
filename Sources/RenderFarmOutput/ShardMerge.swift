import FileInput
import FileOutput
import Foundation
import RenderFarmJobs

/// What `ShardMerge.merge` found in an output folder.
package struct MergeReport: Sendable {
    package var name: String
    package var directory: String
    package var manifestPath: String
    /// Every frame of the render.
    package var expected: FrameSet
    /// Journals read (one per shard, plus whole runs').
    package var journals: Int
    /// Frames whose file exists and matches its journal checksum.
    package var verified: Int
    /// Frames that are not usable: never rendered, failed, or corrupt. Ascending.
    package var missing: [Int]
    /// Frames whose last attempt failed, with the plugin's error.
    package var failed: [Int: String]
    /// Frames the journal calls done whose file is gone or has other bytes.
    package var corrupt: [Int]

    package var complete: Bool { missing.isEmpty }
}

/// A folder cannot be merged.
package enum MergeError: Error, Equatable, CustomStringConvertible {
    /// The folder does not exist (exit 66).
    case noFolder(path: String)
    /// Nothing was rendered into the folder: no job record or no journal (exit 66).
    case nothingRendered(path: String, missing: String)
    /// `renderfarm.job.json` is unreadable or invalid (exit 65).
    case invalidRecord(JobRecordError)
    /// Writing the manifest failed (exit 73 / 74).
    case output(OutputError)
    /// A render or shard is still writing into the folder (exit 65).
    case rendering(path: String, holders: [String])

    package var description: String {
        switch self {
        case .noFolder(let path):
            "\(EscapedPath.of(path)): no such folder; give the output folder of a render (its --out)"
        case .nothingRendered(let path, let missing):
            "\(EscapedPath.of(path)) has no \(missing): nothing was rendered into it; run "
                + "`renderfarm render JOB --shard K/N --out \(EscapedPath.of(path))` (or `renderfarm submit`) first"
        case .invalidRecord(let error):
            "\(error.description)"
        case .output(let error):
            error.description
        case .rendering(let path, let holders):
            "\(EscapedPath.of(path)): state \"rendering\": the folder is being rendered by "
                + (holders.isEmpty ? "another run" : holders.joined(separator: ", "))
                + "; merge once every shard has finished"
        }
    }
}

/// `renderfarm merge`: joins the journals of every shard in a folder into one manifest.
package enum ShardMerge {
    /// Reads the job record and every journal in `directory`, checks each frame's file against
    /// its checksum, and writes `manifest.json` atomically, complete or with its missing frames.
    package static func merge(directory: String) throws(MergeError) -> MergeReport {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw .noFolder(path: directory)
        }
        // The whole folder: no shard may be writing while the manifest is made from its journals.
        let folder = OutputFolder(directory)
        let session: OutputFolder.Session
        do {
            session = try folder.open(task: "merge")
        } catch .locked(let path, let holders) {
            throw .rendering(path: path, holders: holders.map(\.description))
        } catch {
            throw .output(error)
        }
        let found: JobRecord?
        do {
            found = try folder.jobRecord()
        } catch {
            throw .invalidRecord(error)
        }
        guard let record = found else { throw .nothingRendered(path: directory, missing: JobRecord.fileName) }
        let recorded = folder.recordedFrames()
        let journals = recorded.journals
        guard !journals.isEmpty else { throw .nothingRendered(path: directory, missing: FolderLayout.journals) }

        let fingerprints = folder.fingerprints(job: record.fingerprint)
        var entries: [Int: JournalEntry] = [:]
        var failed: [Int: String] = [:]
        var corrupt: [Int] = []
        for index in record.frames.frames {
            let fingerprint = fingerprints[index]
            let file = record.fileName(ofFrame: index)
            let candidates = recorded.candidates(index, fingerprint: fingerprint, file: file)
            if candidates.contains(where: { $0.status == .ok }) {
                if let match = recorded.verified(among: candidates) {
                    entries[index] = match
                } else {
                    corrupt.append(index)
                }
            } else if let failure = candidates.last(where: { $0.status == .failed }) {
                entries[index] = failure
                failed[index] = failure.error ?? "failed"
            }
        }
        let manifest = Manifest.build(for: record, entries: entries)
        do {
            try session.writeManifest(manifest)
        } catch {
            throw .output(error)
        }
        let missing = record.frames.frames.filter { entries[$0]?.status != .ok }
        return MergeReport(
            name: record.name, directory: directory,
            manifestPath: (directory as NSString).appendingPathComponent(Manifest.fileName), expected: record.frames,
            journals: journals.count, verified: record.frames.count - missing.count, missing: missing, failed: failed,
            corrupt: corrupt)
    }
}
