import FileOutput
import Foundation
import StrictJSON

/// One output folder: the frames of a job and the records beside them (`FolderLayout` names them).
///
/// Anyone may read a folder; only a `Session` writes its records (job record, journal, fingerprint
/// tables, manifest), and `open` hands out a session only with the folder's lock held. So every
/// writer — a render, a shard, `prepare`, `merge`, `encode` — holds the lock for everything it
/// writes, and the compiler keeps it so: the record writers are internal to this target. A session writes
/// relative to the folder's descriptor that its lock holds (`FolderDescriptor`): a symbolic link or
/// special file planted where it writes is refused, never followed.
package struct OutputFolder: Sendable, Equatable {
    /// The folder, absolute.
    package let path: String

    package init(_ path: String) { self.path = path }

    /// The path of `name` in the folder: a name `FolderLayout` gives, or a frame's file name.
    package func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }

    /// Creates the folder (and its parents) and takes the lock of `shard` for `task` (what lock
    /// messages call the holder, e.g. `render --shard 1/4`), before anything is written in it.
    package func open(shard: Shard = .whole, task: String) throws(OutputError) -> Session {
        try AtomicFile.createDirectory(path)
        return Session(folder: self, lock: try FolderLock.acquire(path, shard: shard, task: task))
    }

    /// The record of the render the folder holds; nil when it has none.
    package func jobRecord() throws(JobRecordError) -> JobRecord? { try JobRecord.read(from: path) }

    /// The frames every journal of the folder records.
    package func recordedFrames() -> RecordedFrames { RecordedFrames(directory: path) }

    /// The fingerprint of each frame of the job fingerprinted `job`, from the folder's tables.
    package func fingerprints(job: String) -> FrameFingerprints { FingerprintTable.read(in: path, job: job) }

    /// A run's hold on its folder, from `open` until the session is released: the lock, and the one
    /// way to write the folder's records.
    package final class Session: Sendable {
        package let folder: OutputFolder
        private let lock: FolderLock

        fileprivate init(folder: OutputFolder, lock: FolderLock) {
            self.folder = folder
            self.lock = lock
        }

        /// Who holds the folder: this process, and what it runs.
        package var holder: LockHolder { lock.holder }

        /// The locked folder, open: frames and everything else the run writes there are named from it.
        package var descriptor: FolderDescriptor { lock.folder }

        package func write(_ record: JobRecord) throws(OutputError) { try record.write(to: descriptor) }

        package func writeManifest(_ manifest: JSONValue) throws(OutputError) {
            try Manifest.write(manifest, to: descriptor)
        }

        /// Removes the frame files an earlier render of the folder wrote (`recorded` names them) that are no
        /// frame of this render: a job made shorter, or given another frame set, prefix or padding, leaves
        /// nothing behind that a pattern such as `frame_%05d.png` would read, and the folder holds what a
        /// fresh render writes. `isFrame(index, file)`: whether the render has frame `index` in `file`. A
        /// file no journal names is never touched.
        package func removeFrames(recorded: RecordedFrames, unless isFrame: (Int, String) -> Bool) {
            for entry in recorded.allEntries where !isFrame(entry.index, entry.file) {
                try? descriptor.remove(entry.file)
            }
        }

        /// Removes the manifest, which frames about to change would make stale.
        package func removeManifest() throws(OutputError) { try descriptor.remove(Manifest.fileName) }

        /// Records the fingerprints `shard` built from frame keys.
        package func write(_ fingerprints: FrameFingerprints, of shard: Shard) throws(OutputError) {
            try FingerprintTable.write(fingerprints, to: descriptor, shard: shard)
        }

        /// The journal `shard` appends its finished frames to; emptied first when `truncate`.
        package func journal(of shard: Shard, truncate: Bool) throws(OutputError) -> Journal {
            try Journal(FolderLayout.journal(of: shard), in: descriptor, truncate: truncate)
        }
    }
}
