import Foundation
import Locking
import RenderFarm
import RenderFarmJobs
import RenderFarmOutput

/// `renderfarm render JOB|DIR …`: renders every frame of every job on one scheduler.
struct RenderCommand: Command {
    static let spec = CommandSpec(
        name: "render",
        abstract: "Render job files into PNG frames and a manifest.",
        synopsis: "render JOB|DIR …",
        examples: [
            "renderfarm render jobs/live-hearts.json",
            "renderfarm render jobs/live-hearts.json jobs/burst.json -j 4 --scale 0.5 --out previews",
            "renderfarm render jobs/gift-deliverables.json --video 'videos/{{variant}}.{{format}}'",
        ],
        discussion: """
            Frames of all jobs share one scheduler with N frames in flight. A re-run renders only
            what is missing or changed (the journal in the output folder records finished frames);
            --force renders everything again. With --shard K/N, several runs (hosts) share one
            output folder, each with its own journal, and `renderfarm merge` writes the manifest.
            An existing folder that holds files but no renderfarm.job.json is not written into
            (65, naming a file it would overwrite) unless --force.
            Results go to standard output, progress to standard error. Exit codes: 0 ok, 1 some
            frames failed, 64 usage, 65 invalid job, 66 missing file, 69 no plugins (or --sandbox
            require on a kernel without every protection), 73 cannot create output, 74 I/O error
            (a full disk), 75 the output folder is in use by another run, 130 interrupted by SIGINT
            or SIGTERM. With --isolate, frames are drawn in worker processes: a plugin that crashes
            or hangs (past --frame-timeout, 300 s unless given) fails only the frame it was drawing; on
            SIGINT or SIGTERM the frames in flight get 10 s before their workers are killed. Each worker is
            sandboxed (--sandbox strict): a plugin cannot read files outside its job, write outside
            its cache folder (the render writes the frames the workers send), reach the network or
            start programs; a denied action fails its frame, naming it.
            With --video FILE each job is rendered straight into a video: frames are drawn
            concurrently and piped in frame order to one ffmpeg (no PNGs, journal or manifest);
            the result equals `renderfarm encode` of the PNGs with the same preset (69 when ffmpeg
            or ffprobe is missing), and is checked with ffprobe the same way before it takes its
            name; a signal stops ffmpeg and leaves no video. A job with sound (an `audio` section,
            or a video layer whose clip has sound) gets its mix as the video's sound track, over
            the frames' time span (see `renderfarm mix`); --no-audio leaves it out. Several jobs
            (the variants of a job file count as jobs) need a FILE with placeholders naming each
            one's video: {{variant}} (the variant's name), {{name}}, {{index}} or any column or
            matrix key of the variant (`--video 'out/{{streamer}}.{{format}}'`, whose extension
            picks each video's format; the folders the names hold are made). Every name is checked
            before the first video is rendered; they are rendered one after the other, and the
            first that fails stops the rest.
            """,
        options: [
            jobs, frames, shard, CommonOptions.shardMode, out, outputRoot, force, failFast, CommonOptions.progress,
            CommonOptions.pluginPath, CommonOptions.variants, scale, video, EncodeCommand.preset, EncodeCommand.crf,
            EncodeCommand.noAudio, verbose, isolate, frameTimeout, sandbox, stuckAfter, memory,
        ],
        positionals: 1...Int.max)

    static let jobs = Option(
        "-j", "--jobs", value: "N",
        help: "Frames in flight at once (default: processor count; lowered to fit --memory).")
    static let memory = Option(
        "--memory", value: "SIZE",
        help: "Memory the frames in flight may take, e.g. 8G or 512M (default: half of the machine's).")
    static let frames = Option(
        CommonOptions.planOptionNames.frames, value: "SET",
        help: "Render these frames instead, e.g. 0-99, 0-100:5, 1,3,5-9.")
    static let shard = Option(
        "--shard", value: "K/N",
        help: "Render part K (0-based) of N; `auto` reads SLURM_ARRAY_TASK_ID/COUNT or JOB_COMPLETION_INDEX.")
    static let out = Option(
        CommonOptions.planOptionNames.out, value: "DIR", help: "Write frames to DIR instead of the job's output.dir.")
    static let outputRoot = Option(
        "--output-root", value: "DIR", help: "Allow output.dir anywhere inside DIR (default: the job file's folder).")
    static let force = Flag(
        "--force", help: "Render every frame, even ones already done, even into a folder no render wrote.")
    static let failFast = Flag("--fail-fast", help: "Stop at the first frame that fails.")
    static let video = Option(
        "--video", value: "FILE",
        help: "Render each job straight into a video (see encode); {{variant}} and other placeholders name each one.")
    static let verbose = Flag("--verbose", help: "With --video: print the exact ffmpeg command.")

    let arguments: ParsedArguments
    let concurrency: Int
    let progress: ProgressMode
    let shard: Shard
    let scale: Double?
    let isolation: Isolation?
    /// `--sandbox`: how `--isolate`'s workers are locked in.
    let sandbox: SandboxMode
    /// `--stuck-after`: seconds after which a frame still drawing is named (nil: never).
    let stuckAfter: Double?
    /// `--memory`, or half of the machine's memory.
    let budget: MemoryBudget

    init(_ arguments: ParsedArguments) throws(UsageError) {
        self.arguments = arguments
        scale = try Self.parseScale(arguments, command: "render")
        isolation = try Self.parseIsolation(arguments, scale: scale)
        sandbox = try Self.parseSandbox(arguments, command: "render")
        try Self.checkVideoOptions(arguments)
        concurrency =
            try arguments.integer(Self.jobs, in: 1...1024, command: "render")
            ?? ProcessInfo.processInfo.activeProcessorCount
        progress = try CommonOptions.progressMode(arguments, command: "render")
        stuckAfter = try Self.parseStuckAfter(arguments)
        budget = try Self.parseMemory(arguments)
        let shardMode = try arguments.choice(
            CommonOptions.shardMode, ["contiguous", "interleaved"], default: "contiguous",
            command: "render")
        shard = try ShardArgument.parse(
            arguments[Self.shard], interleaved: shardMode == "interleaved",
            environment: arguments.environment)
    }

    func run(_ terminal: Terminal) -> ExitCode {
        // Before anything is planned or locked: `--sandbox require` on a kernel that lacks a layer leaves no trace.
        if let code = checkSandbox(terminal) { return code }
        var plan = PlanOptions(
            outputOverride: arguments[Self.out], outputRoot: arguments[Self.outputRoot],
            frames: arguments[Self.frames], shard: shard, scale: scale,
            // A video leaves the output folder alone: it uses a cache `prepare` made there, and makes none.
            warmUp: arguments[Self.video] == nil ? .framesWithCache : .frames)
        plan.refusesForeignFolders = arguments[Self.video] == nil && !arguments[Self.force]
        if arguments[Self.video] == nil {
            plan.locking = (shard, shard.renderTask)
        }
        // With --isolate no plugin code runs here: a sandboxed worker creates and verifies the instances.
        if let isolation {
            plan.creator = IsolatedPlanner(
                arguments: isolation.arguments,
                pluginFolders: PluginCatalog.searchPath(
                    extra: arguments.all(CommonOptions.pluginPath), environment: arguments.environment), scale: scale,
                environment: isolation.environment)
        }
        // The frames in flight are fitted to the memory budget after the jobs are checked and before
        // anything is locked or written: a run that does not fit leaves no trace.
        var concurrency = self.concurrency
        let fit = { (plan: PlannedRun) -> ExitCode? in
            switch fittedConcurrency(plan, terminal: terminal) {
            case .success(let workers):
                concurrency = workers
                return nil
            case .failure(let code): return code
            }
        }
        let run: ReadyRun
        switch CommonOptions.planJobs(
            arguments.positionals, arguments: arguments, options: plan, terminal: terminal, beforeWarmUp: fit)
        {
        case .success(let ready): run = ready
        case .failure(let code): return code
        }
        if let video = arguments[Self.video] {
            return renderVideo(run.jobs, to: video, concurrency: concurrency, terminal: terminal)
        }
        let stop = StopSignal()
        let signals = SignalHandling(stop: stop, terminal: terminal, workers: isolation?.workers)
        defer { signals.cancel() }
        // RENDERFARM_STATIC_LAYERS=redraw draws static layers at every frame (to check the cache).
        let redraw = arguments.environment["RENDERFARM_STATIC_LAYERS"] == "redraw"
        let options = RenderOptions(
            concurrency: concurrency, force: arguments[Self.force],
            failFast: arguments[Self.failFast], shard: shard, stop: stop,
            cacheStaticLayers: !redraw, isolation: isolation)
        let reporter = ProgressReporter(
            terminal: terminal, mode: progress, rerun: run.rerunReason(force: options.force), forced: options.force,
            stuckAfter: stuckAfter,
            isolation: isolation)
        let summary: RenderSummary
        do {
            summary = try run.execute(options, observer: reporter)
        } catch {
            reporter.clearLine()
            return .reporting(error, to: terminal)
        }
        for job in summary.jobs {
            let reused = job.reused > 0 ? ", \(job.reused) reused (drawn alike)" : ""
            let skipped = reused + (job.skipped > 0 ? ", \(job.skipped) already done" : "")
            let state = job.complete ? "complete" : "incomplete, missing \(FrameSet.compress(job.missing))"
            let rendered = "\(Plural.count(job.rendered, "frame")) rendered"
            guard shard == .whole else {
                // Shards share the folder: `merge` writes the manifest once all have finished.
                terminal.print("\(job.name): shard \(shard): \(rendered)\(skipped) (\(state))")
                terminal.print("  frames:   \(ShownPath.of(job.outputDirectory))")
                terminal.print(
                    "  then:     renderfarm merge \(ShownPath.of(job.outputDirectory))   (once every shard has finished)"
                )
                continue
            }
            terminal.print("\(job.name): \(rendered)\(skipped) (\(state))")
            terminal.print("  frames:   \(ShownPath.of(job.outputDirectory))")
            terminal.print("  manifest: \(ShownPath.of(job.manifestPath))")
        }
        if let line = Self.timeLine(summary, slowest: reporter.slowest, jobs: run.jobs.count) { terminal.print(line) }
        if summary.interrupted {
            terminal.error("interrupted: the journal and manifest record what was finished; run again to resume")
            return .interrupted
        }
        let failed = summary.jobs.filter { !$0.failed.isEmpty }
        if !failed.isEmpty {
            for job in failed {
                terminal.error(
                    "\(job.name): \(Plural.count(job.failed.count, "frame")) failed: "
                        + FrameSet.compress(job.failed))
            }
            return .framesFailed
        }
        return .ok
    }
}

extension RenderCommand {
    /// `time: 2.31 s, 207.8 fps; slowest: 12 (31.2 ms), 40 (29.0 ms), 7 (28.1 ms)`; nil when nothing was
    /// rendered. Frames are named `job#index` when several jobs ran.
    static func timeLine(_ summary: RenderSummary, slowest: [ProgressReporter.SlowFrame], jobs: Int) -> String? {
        guard summary.rendered > 0 else { return nil }
        let fps = summary.elapsed > 0 ? String(format: "%.1f", Double(summary.rendered) / summary.elapsed) : "-"
        let frames = slowest.map { frame in
            (jobs > 1 ? "\(frame.job)#" : "") + "\(frame.index) (" + String(format: "%.1f", frame.milliseconds) + " ms)"
        }
        let slow = frames.isEmpty ? "" : "; slowest: " + frames.joined(separator: ", ")
        return "time: " + String(format: "%.2f", summary.elapsed) + " s, \(fps) fps\(slow)"
    }

    /// Says once which protections of `--sandbox strict` this kernel lacks; refuses to render
    /// without all of them under `--sandbox require` (69).
    func checkSandbox(_ terminal: Terminal) -> ExitCode? {
        guard isolation != nil else { return nil }
        return Self.checkSandbox(sandbox, terminal: terminal)
    }

    /// What `checkSandbox` says and refuses, for any command whose workers apply `mode` (plugin check, the studio).
    static func checkSandbox(_ sandbox: SandboxMode, terminal: Terminal) -> ExitCode? {
        guard sandbox != .off else { return nil }
        let missing = SandboxLayers.all.subtracting(WorkerSandbox.available())
        guard !missing.isEmpty else { return nil }
        let names = missing.names.joined(separator: "; ")
        if sandbox == .require {
            return .reporting(
                CommandRefusal.sandboxIncomplete(
                    "--sandbox require: this kernel does not offer every protection of the worker sandbox; missing: "
                        + "\(names) (use --sandbox strict to run with the others, article UntrustedPlugins)"),
                to: terminal)
        }
        terminal.note("renderfarm: the worker sandbox runs without: \(names)")
        return nil
    }

    /// `--isolate [--frame-timeout SECONDS]`: the worker processes' command line and time limit.
    static func parseIsolation(_ arguments: ParsedArguments, scale: Double?) throws(UsageError) -> Isolation? {
        let timeout = try parseFrameTimeout(arguments, command: "render")
        guard arguments[isolate] else { return nil }
        if arguments[video] != nil {
            throw UsageError(
                message: "--isolate renders PNG frames; it cannot be combined with --video", command: "render")
        }
        return Isolation(
            arguments: WorkerCommand.arguments(for: arguments, scale: scale),
            frameTimeout: timeout ?? Isolation.defaultFrameTimeout, environment: arguments.environment)
    }

    static let isolate = Flag(
        "--isolate", help: "Draw frames in worker processes: a plugin that crashes or hangs fails only its frame.")
    static let frameTimeout = Option(
        "--frame-timeout", value: "SECONDS",
        help: "With --isolate: kill a worker whose frame takes longer, and fail that attempt (default 300).")

    static let sandbox = Option(
        "--sandbox", value: "MODE",
        help: "Worker sandbox: strict (default: every protection the kernel offers), require (all, or exit 69), off.")

    /// `--sandbox strict|require|off` (default strict), which only worker processes apply: `render` and
    /// `submit` take it only with `--isolate` (`needsIsolate`); `plugin check`'s and the studio's workers always apply it.
    static func parseSandbox(
        _ arguments: ParsedArguments, command: String, needsIsolate: Bool = true
    ) throws(UsageError) -> SandboxMode {
        guard let text = arguments[sandbox] else { return .strict }
        if needsIsolate && !arguments[isolate] {
            throw UsageError(
                message: "--sandbox needs --isolate (frames drawn in this process are not sandboxed)", command: command)
        }
        guard let mode = SandboxMode(rawValue: text) else {
            throw UsageError(message: "--sandbox expects strict, require or off, got \"\(text)\"", command: command)
        }
        return mode
    }

    static let stuckAfter = Option(
        "--stuck-after", value: "SECONDS",
        help: "Name a frame still drawing after SECONDS, with its layer (default 30; 0: never).")

    /// `--memory SIZE`, or the default budget.
    static func parseMemory(_ arguments: ParsedArguments) throws(UsageError) -> MemoryBudget {
        guard let text = arguments[memory] else { return .default }
        guard let bytes = MemoryBudget.parse(text) else {
            throw UsageError(
                message: "--memory expects a size such as 8G, 512M or 1.5G, got \"\(text)\"", command: "render")
        }
        return MemoryBudget(bytes: bytes)
    }

    /// `-j` lowered to what fits the memory budget, said on standard error; 73 when not one frame fits.
    func fittedConcurrency(_ plan: PlannedRun, terminal: Terminal) -> Result<Int, ExitCode> {
        let fit = plan.fit(budget, requested: concurrency, isolated: isolation != nil)
        let need = "a frame in flight takes about \(MemoryBudget.shown(fit.perWorker))"
        let budgetText = "the memory budget is \(MemoryBudget.shown(budget.bytes))"
        guard fit.workers > 0 else {
            let refusal = CommandRefusal.noFrameFits(
                "\(need), but \(budgetText); give --memory a larger size (the machine has "
                    + "\(MemoryBudget.shown(MemoryBudget.machineBytes))) or render at a smaller --scale")
            return .failure(.reporting(refusal, to: terminal))
        }
        if fit.workers < concurrency {
            terminal.note(
                "renderfarm: -j \(concurrency) lowered to \(fit.workers): \(need) and \(budgetText) "
                    + "(--memory SIZE to change it)")
        }
        return .success(fit.workers)
    }

    /// `--stuck-after SECONDS`: nil for 0.
    static func parseStuckAfter(_ arguments: ParsedArguments) throws(UsageError) -> Double? {
        guard let text = arguments[stuckAfter] else { return 30 }
        guard let value = Double(text), value >= 0, value <= 86_400 else {
            throw UsageError(message: "--stuck-after expects seconds in [0, 86400], got \"\(text)\"", command: "render")
        }
        return value == 0 ? nil : value
    }

    /// `--frame-timeout SECONDS`, which only `--isolate` can enforce.
    static func parseFrameTimeout(_ arguments: ParsedArguments, command: String) throws(UsageError) -> Double? {
        guard let text = arguments[frameTimeout] else { return nil }
        guard arguments[isolate] else {
            throw UsageError(message: "--frame-timeout needs --isolate", command: command)
        }
        guard let value = Double(text), value > 0, value <= 86_400 else {
            throw UsageError(
                message: "--frame-timeout expects seconds in (0, 86400], got \"\(text)\"", command: command)
        }
        return value
    }
}

/// Parses `--shard K/N` and `--shard auto`.
enum ShardArgument {
    static func parse(_ text: String?, interleaved: Bool, environment: [String: String]) throws(UsageError) -> Shard {
        guard let text else { return .whole }
        let usage = { (message: String) in UsageError(message: message, command: "render") }
        if text == "auto" || text.hasPrefix("auto/") {
            let count =
                text.hasPrefix("auto/")
                ? Int(text.dropFirst(5)) : environment["SLURM_ARRAY_TASK_COUNT"].flatMap { Int($0) }
            let index =
                environment["SLURM_ARRAY_TASK_ID"].flatMap { Int($0) }
                ?? environment["JOB_COMPLETION_INDEX"].flatMap { Int($0) }
            guard let index, let count else {
                throw usage(
                    "--shard auto needs SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT, "
                        + "or JOB_COMPLETION_INDEX with --shard auto/N")
            }
            return try make(index, count, interleaved: interleaved, usage: usage)
        }
        let parts = text.split(separator: "/")
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else {
            throw usage("--shard expects K/N (e.g. 0/4) or auto, got \"\(text)\"")
        }
        return try make(index, count, interleaved: interleaved, usage: usage)
    }

    private static func make(_ index: Int, _ count: Int, interleaved: Bool, usage: (String) -> UsageError)
        throws(UsageError) -> Shard
    {
        guard count >= 1, count <= 100_000, index >= 0, index < count else {
            throw usage("--shard K/N needs 0 ≤ K < N (K is 0-based), got \(index)/\(count)")
        }
        return .part(index: index, count: count, interleaved: interleaved)
    }
}
