import FileOutput
import Foundation
import RenderFarmJobs
import RenderFarmMedia
import RenderFarmOutput
import RenderFarmSound

extension SoundTrack {
    /// The mix of `job`'s sound under `frames` (evenly spaced), or nil when the job has none (no
    /// `audio`, no layer that plays sound). Without `frames`: under the job's `frames` as `render --video`
    /// renders them, or the whole job when they are not evenly spaced. The job is checked by `plugins` as
    /// `validate` checks it, and its layers' plugins say what sound they play (ABI `sounds`): a job read only
    /// for its sound (`mix`, `encode`) is refused as `render` would refuse it, not mixed from parameters its
    /// plugins do not accept.
    package static func mix(
        of job: LoadedJob, frames: [Int]? = nil, checkedBy plugins: PluginCatalog, ffmpeg: FFmpeg
    ) throws(EncodeError) -> SoundTrack? {
        let (sounds, moments) = try declared(by: job, plugins: plugins)
        return try mix(of: job, sounds: sounds, moments: moments, frames: frames, ffmpeg: ffmpeg)
    }

    /// The mix of a planned job's sound under `frames` (`render --video`): what its plugins declared when it was
    /// planned.
    package static func mix(of job: PlannedJob, frames: [Int], ffmpeg: FFmpeg) throws(EncodeError) -> SoundTrack? {
        try mix(of: job.job, sounds: job.sounds, moments: job.moments, frames: frames, ffmpeg: ffmpeg)
    }

    private static func mix(
        of job: LoadedJob, sounds: [Int: [DeclaredSound]], moments: [Int: [DeclaredMoment]], frames: [Int]?,
        ffmpeg: FFmpeg
    ) throws(EncodeError) -> SoundTrack? {
        let own = job.spec.frames.frames
        let even = Set(zip(own.dropFirst(), own).map { $0 - $1 }).count <= 1
        let frames = frames ?? (even && !own.isEmpty ? own : Array(0..<job.spec.frameCount))
        guard let first = frames.first else { return nil }
        let step = frames.count > 1 ? frames[1] - frames[0] : 1
        return try mix(
            job.spec, sounds: sounds, moments: moments, jobFile: job.file, jobDirectory: job.directory,
            span: span(first: first, count: frames.count, step: step, fps: job.spec.fps), ffmpeg: ffmpeg)
    }

    /// The mix for the frames of a rendered folder (a shard's, a `--frames` render's), from the job
    /// file its manifest names, as a video of them plays: from the first frame's time, one frame
    /// step per frame. nil when that job has no sound; a note instead when the job file cannot be
    /// read any more (the video is then made without sound).
    package static func mix(for output: RenderedOutput, checkedBy plugins: PluginCatalog, ffmpeg: FFmpeg)
        throws(EncodeError) -> (SoundTrack?, note: String?)
    {
        guard let source = output.jobSource else { return (nil, nil) }
        let jobs: [LoadedJob]
        do {
            jobs = try JobLoader.loadAll(source)
        } catch {
            return (nil, "the job file \(ShownPath.of(source)) cannot be read for its audio (\(error)); no sound")
        }
        guard let job = jobs.first(where: { $0.spec.name == output.jobName }) else {
            return (nil, "the job file \(ShownPath.of(source)) has no job \(output.jobName) any more; no sound")
        }
        let frames = output.writtenFrames.map(\.index)
        guard let first = frames.first else { return (nil, nil) }
        let evenly = (0..<frames.count).map { first + $0 * output.sequence.frameStep }
        return (try mix(of: job, frames: evenly, checkedBy: plugins, ffmpeg: ffmpeg), nil)
    }

    /// The sound `job`'s layers play and their items' moments, by layer index, after refusing `job` when `validate`
    /// would: its fields, its layers' parameters by their plugins' tables, and what each plugin's create step
    /// refuses (exit 65, every problem located). Where its frames go is not checked: a mix writes none of them (a
    /// folder rendered with `--out` is mixed from its job too).
    private static func declared(by job: LoadedJob, plugins: PluginCatalog) throws(EncodeError) -> (
        [Int: [DeclaredSound]], [Int: [DeclaredMoment]]
    ) {
        let options = PlanOptions(outputOverride: job.directory, warmUp: .none)
        let plan = RenderEngine(catalog: plugins, options: options).plan([job])
        let issues = plan.errors.flatMap { error -> [JobIssue] in
            if case .invalid(_, let issues) = error { return issues.filter { $0.severity == .error } }
            return [JobIssue(path: "", error.description)]
        }
        guard issues.isEmpty else { throw .sound(file: job.file, issues: issues) }
        return (plan.jobs.first?.sounds ?? [:], plan.jobs.first?.moments ?? [:])
    }
}

extension SoundTrack {
    /// How encode commands name the mix: it is scratch, made again with `renderfarm mix`.
    package static let shownName = "mix.wav"

    /// The track written as scratch beside `video` (removed when the value goes away), for ffmpeg.
    func stage(beside video: String) throws(EncodeError) -> StagedFile {
        let staged = StagedFile(video + ".mix.wav")
        try write(to: staged.temporaryPath)
        return staged
    }
}
