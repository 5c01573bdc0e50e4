import Foundation
import RenderFarm
import RenderFarmJobs

/// `renderfarm prepare JOB|DIR …`: fills the jobs' caches before a sharded render.
struct PrepareCommand: Command {
    static let spec = CommandSpec(
        name: "prepare",
        abstract: "Compute what layers need before their frames, into the output folder's cache.",
        synopsis: "prepare JOB|DIR …",
        examples: [
            "renderfarm prepare jobs/stream-replay.json --out renders/stream-replay",
            "renderfarm prepare jobs/stream-replay.json --frames 0-1799",
        ],
        discussion: """
            Some layers compute everything that leads up to a frame before they draw it: a physics
            layer simulates from its start, so a shard late in a long job would simulate for
            minutes before its first frame. `prepare` runs that work once, up to the last frame
            (of the job, or of --frames), and keeps its checkpoints in the output folder's
            renderfarm.cache folder; every later render and shard of the job starts from the
            nearest one. It draws no frames and never changes what a frame looks like: a render
            without the cache gives the same bytes, only later. `renderfarm submit` runs it as a
            Slurm job before the render array. It holds the output folder's lock while it works,
            as a render does: a render of the same folder waits for it to finish (exit 75 for
            whichever comes second). Exit codes: 0 ok, 64 usage, 65 invalid job, 66 missing file,
            69 no plugins, 73 cannot create the output folder, 75 the folder is in use by another
            run.
            """,
        options: [
            frames, RenderCommand.out, RenderCommand.outputRoot, CommonOptions.pluginPath, CommonOptions.variants,
        ],
        positionals: 1...Int.max)

    static let frames = Option(
        "--frames", value: "SET", help: "Prepare up to the last of these frames (default: the job's last frame).")

    let arguments: ParsedArguments

    init(_ arguments: ParsedArguments) throws(UsageError) {
        self.arguments = arguments
    }

    func run(_ terminal: Terminal) -> ExitCode {
        var plan = PlanOptions(
            outputOverride: arguments[RenderCommand.out], outputRoot: arguments[RenderCommand.outputRoot],
            frames: arguments[Self.frames], warmUp: .fillCache)
        // Held while the cache is filled: a render of the folder (or another prepare) waits its turn.
        plan.locking = (.whole, "prepare")
        let clock = ContinuousClock()
        let started = clock.now
        let result = CommonOptions.planJobs(
            arguments.positionals, arguments: arguments, options: plan, terminal: terminal, describeValid: Self.describe
        )
        switch result {
        case .failure(let code): return code
        case .success:
            let elapsed = started.duration(to: clock.now).components
            terminal.note(
                String(
                    format: "renderfarm: prepared in %.1f s",
                    Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18))
            return .ok
        }
    }

    /// `prepared: jobs/replay.json: up to frame 647999, cache renderfarm.cache in out/replay (181 files, 3.2 MB)`.
    static func describe(_ prepared: PlannedJob) -> String {
        let last = prepared.frames.frames.max() ?? 0
        let cache = prepared.cacheFolder
        let (files, bytes) = Self.size(of: cache)
        let megabytes = String(format: "%.1f MB", Double(bytes) / 1_048_576)
        let kept =
            files == 0
            ? "no layer keeps anything" : "cache \(ShownPath.of(cache)) (\(Plural.count(files, "file")), \(megabytes))"
        return
            "prepared: \(ShownPath.of(prepared.job.file))\(JobReport.variant(prepared)): up to frame \(last), \(kept)"
    }

    /// Files and bytes under `folder`.
    private static func size(of folder: String) -> (files: Int, bytes: Int) {
        guard let walk = FileManager.default.enumerator(atPath: folder) else { return (0, 0) }
        var files = 0
        var bytes = 0
        while walk.nextObject() != nil {
            guard walk.fileAttributes?[.type] as? FileAttributeType == .typeRegular else { continue }
            files += 1
            bytes += (walk.fileAttributes?[.size] as? Int) ?? 0
        }
        return (files, bytes)
    }
}
