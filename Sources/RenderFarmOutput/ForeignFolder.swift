import FileInput
import Foundation

/// An existing output folder that no render wrote (<doc:OutputFolder>): it holds files but no
/// `renderfarm.job.json`. A render refuses it unless `--force`, since it would overwrite the user's own
/// `manifest.json` or frames, or mix its frames with theirs.
package enum ForeignFolder {
    /// A file of `directory` that keeps a render out of it.
    package struct Finding: Equatable {
        package var file: String
        /// Whether the render would write over it (`manifest.json`, a frame's name).
        package var overwritten: Bool
    }

    /// What keeps a render whose frames are named `prefix…png` out of `directory`, or nil when the folder
    /// does not exist, is empty, is a render folder, or holds only what RenderFarm writes before the job
    /// record (a lock, journals, the cache, `prepare`'s checkpoints, `submit`'s scripts, temporary files).
    package static func finding(in directory: String, prefix: String) -> Finding? {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory),
            !names.contains(JobRecord.fileName)
        else { return nil }
        let foreign = names.filter { !FolderLayout.isRenderFarms($0) }.sorted()
        if foreign.contains(Manifest.fileName) { return Finding(file: Manifest.fileName, overwritten: true) }
        if let frame = foreign.first(where: { $0.hasPrefix(prefix) && $0.hasSuffix(".png") }) {
            return Finding(file: frame, overwritten: true)
        }
        return foreign.first.map { Finding(file: $0, overwritten: false) }
    }

    /// The message of a refused folder, for `--out` or `output.dir`.
    package static func message(_ finding: Finding, directory: String) -> String {
        let what =
            finding.overwritten
            ? "rendering would overwrite its \(finding.file)"
            : "it holds \(finding.file), which no render wrote"
        return "\(EscapedPath.of(directory)) is not a render folder (it has no \(JobRecord.fileName)) and \(what); "
            + "choose a new or empty folder, or add --force to render into it anyway"
    }
}
