import FileOutput
import Foundation

/// Every journal line in an output folder (one journal per shard), by frame: what a resume and
/// `merge` both consult to decide whether a frame on disk is done.
package struct RecordedFrames {
    package let directory: String
    /// The journal files read, sorted by name.
    package let journals: [String]
    private let recorded: [[Int: JournalEntry]]

    package init(directory: String) {
        self.directory = directory
        journals = Journal.files(in: directory)
        recorded = journals.map { Journal.read(path: $0) }
    }

    /// Every line read, newest per frame and journal, for reports over the whole folder.
    package var allEntries: [JournalEntry] { recorded.flatMap(\.values) }

    /// The newest line for frame `index` in each journal, in journal order, kept only when it is
    /// about this job's frame (`fingerprint`) in this file.
    package func candidates(_ index: Int, fingerprint: String, file: String) -> [JournalEntry] {
        recorded.compactMap { $0[index] }.filter { $0.fingerprint == fingerprint && $0.file == file }
    }

    /// The finished line among `candidates` whose checksum matches the file on disk now, if any.
    package func verified(among candidates: [JournalEntry]) -> JournalEntry? {
        let done = candidates.filter { $0.status == .ok }
        guard let file = done.first?.file else { return nil }
        // A frame is a file of the folder: a link in its place is never done, whatever it leads to.
        let checksum = SHA256.hex(ofFile: (directory as NSString).appendingPathComponent(file), followLastLink: false)
        return done.last { $0.sha256 == checksum }
    }
}
