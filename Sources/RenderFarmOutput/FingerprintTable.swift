import FileInput
import FileOutput
import Foundation

/// `renderfarm.fingerprints.txt` (one per shard, like the journal): the fingerprints a run built
/// from frame keys, so that `status` and `merge`, which load no plugins, know what each frame
/// of the job should have been rendered from.
///
/// The first line names the job fingerprint the table belongs to; each further line is
/// `INDEX FINGERPRINT`. Frames absent from every table of the job have the job's fingerprint
/// bound to their number (`FrameFingerprints`).
package enum FingerprintTable {
    package static func name(for shard: Shard) -> String { FolderLayout.fingerprints(of: shard) }

    /// Records the keyed fingerprints of a run (nothing when no frame was keyed).
    static func write(_ fingerprints: FrameFingerprints, to folder: FolderDescriptor, shard: Shard)
        throws(OutputError)
    {
        guard !fingerprints.keyed.isEmpty else {
            try folder.remove(name(for: shard))
            return
        }
        var text = "job \(fingerprints.job)\n"
        text.reserveCapacity(fingerprints.keyed.count * 42)
        for index in fingerprints.keyed.keys.sorted() {
            text += "\(index) \(fingerprints.keyed[index] ?? "")\n"
        }
        text.removeLast()
        try folder.write(text, to: name(for: shard))
    }

    /// The fingerprints of the job with fingerprint `job`, from every table of `directory` that
    /// belongs to it.
    package static func read(in directory: String, job: String) -> FrameFingerprints {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        var keyed: [Int: String] = [:]
        for name in names where FolderLayout.isFingerprintTable(name) {
            let path = (directory as NSString).appendingPathComponent(name)
            // Through the input reader, no link followed: a table replaced by a link or a named pipe is skipped.
            guard let bytes = try? InputFile.read(path, limit: Journal.maxReadBytes, followLastLink: false) else {
                continue
            }
            let text = String(decoding: bytes, as: UTF8.self)
            var lines = text.split(separator: "\n")[...]
            guard lines.popFirst() == Substring("job \(job)") else { continue }
            for line in lines {
                let fields = line.split(separator: " ")
                guard fields.count == 2, let index = Int(fields[0]) else { continue }
                keyed[index] = String(fields[1])
            }
        }
        return FrameFingerprints(job: job, keyed: keyed)
    }
}
