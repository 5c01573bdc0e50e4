import Foundation

extension OutputFolder {
    /// What a folder holds at one moment, read without taking its lock: the record of the job it
    /// renders, the frames its journals record, that job's fingerprint table, and who holds its
    /// locks now. `status`, the studio's farm view and `BatchStatus` read a folder through one.
    package struct Snapshot: Sendable {
        package let folder: OutputFolder
        package let record: JobRecord
        /// Every journal's entries (the whole run's and each shard's).
        package let recorded: RecordedFrames
        /// The fingerprint of each frame of `record`'s job.
        package let fingerprints: FrameFingerprints
        package let holders: [FolderLock.Holder]
    }

    /// Reads the folder's records; a path that is not a folder, or a folder without a job record,
    /// is not a render folder (`status` exits 66), and a damaged record is unreadable (65).
    package func snapshot() throws(FolderStatusError) -> Snapshot {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw .notARenderFolder(path: path, reason: "no such folder")
        }
        let found: JobRecord?
        do {
            found = try jobRecord()
        } catch {
            throw .unreadable(error.description)
        }
        guard let record = found else {
            throw .notARenderFolder(path: path, reason: "it has no \(JobRecord.fileName)")
        }
        return Snapshot(
            folder: self, record: record, recorded: recordedFrames(), fingerprints: fingerprints(job: record.fingerprint),
            holders: FolderLock.holders(of: path))
    }
}

extension OutputFolder {
    /// The folder as its manifest describes it, what the hand-off commands (`encode`, `export-otio`,
    /// `preview`, `mix`) read: a folder whose manifest is missing, damaged or still being
    /// rendered is refused with a message saying which.
    package func rendered() throws(RenderedOutputError) -> RenderedOutput {
        try RenderedOutput.load(directory: path)
    }
}
