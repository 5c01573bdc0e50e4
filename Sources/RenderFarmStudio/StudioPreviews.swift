import Foundation
import RenderFarm

/// Where the studio draws its preview frames (article Studio, "Untrusted plugins"): in this process
/// (`FramePreview`, `studio --sandbox off`), or in worker processes (`IsolatedPreview`, the default: sandboxed), each
/// started with the worker command line `StudioOptions.previewWorker` gives for the job's variant and scale.
/// Not `Sendable`: lives inside the session's lock.
final class StudioPreviews {
    private let inProcess = FramePreview()
    private let isolated = IsolatedPreview()
    private let options: StudioOptions

    init(options: StudioOptions) {
        self.options = options
    }

    /// Frame `index` of `job`, prepared at `scale` (nil: the job's own) from `text` as the job file's text, with
    /// the plugins of `pluginFolders`: a worker prepares the same text, not what the file holds by then.
    func png(_ index: Int, of job: PlannedJob, text: String, scale: Double?, pluginFolders: [String], debug: Bool)
        throws(FramePreviewError) -> [UInt8]
    {
        guard let previewWorker = options.previewWorker else {
            return try inProcess.png(index, of: job, debug: debug)
        }
        let arguments = previewWorker(
            options.jobFile, job.job.variant?.index, scale, StudioOptions.existingFolders(pluginFolders))
        return try isolated.png(
            index, of: job, debug: debug, workerArguments: arguments, jobText: Array(text.utf8),
            environment: options.environment)
    }
}
