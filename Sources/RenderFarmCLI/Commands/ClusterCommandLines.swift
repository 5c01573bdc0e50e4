import Foundation
import RenderFarm

/// What the jobs of `renderfarm submit` run on every engine (Slurm, Open Job Description, Kubernetes): the
/// `prepare`, `render` and `merge` command lines, each spelt from the options of the command it runs
/// (`CommandLineWords`).
struct ClusterCommandLines: Equatable {
    /// Absolute paths of the job files.
    var jobFiles: [String]
    /// Absolute output folder given to `render --out` (with several jobs, each gets a subfolder);
    /// nil for the variants of one job file, each of which has its own folder.
    var output: String?
    /// `--output-root` of each task, for variants whose folders are the jobs' own.
    var outputRoot: String?
    /// The output folder of each job, for `merge`.
    var jobFolders: [String]
    /// Plugin folders passed as `--plugin-path`, in search order.
    var pluginPath: [String]
    var frames: String?
    /// `--variants` of each task: the variants picked from jobs with variants.
    var variants: String?
    /// `-j` for each task; nil uses the CPUs the scheduler gave the task, or the render's own default where
    /// the scheduler does not say (`schedulerGivesCPUs`).
    var concurrency: Int?
    /// Whether the scheduler tells each task its CPUs (Slurm's `SLURM_CPUS_ON_NODE`).
    var schedulerGivesCPUs = true
    var interleaved = false
    /// `render --isolate` in each task, with `--frame-timeout` when set.
    var isolate = false
    var frameTimeout: Double?
    /// `--sandbox` of each task's `render --isolate` (nil: the render's default, strict).
    var sandbox: SandboxMode?
    /// How each render task reports progress: plain lines in a log, or OpenJD's progress lines.
    var progress = ProgressMode.plain
    /// Whether a prepare job fills the caches before the array starts.
    var prepares = true

    /// `prepare` with the jobs, their output, frames, plugins and variants; nil when `prepares` is off.
    var prepare: [ScriptWord]? {
        prepares ? jobWords(PrepareCommand.spec, frames: PrepareCommand.frames).words : nil
    }

    /// `render` with what `prepare` gets, then each task's shard, frames in flight and how it reports progress.
    var render: [ScriptWord] {
        var command = jobWords(RenderCommand.spec, frames: RenderCommand.frames)
        command.add(RenderCommand.shard, .taskShard)
        command.add(CommonOptions.shardMode, interleaved ? "interleaved" : nil)
        if let concurrency {
            command.add(RenderCommand.jobs, String(concurrency))
        } else if schedulerGivesCPUs {
            command.add(RenderCommand.jobs, .taskCPUs)
        }
        command.add(RenderCommand.isolate, if: isolate)
        command.add(RenderCommand.frameTimeout, frameTimeout.map { String(format: "%g", $0) })
        command.add(RenderCommand.sandbox, sandbox?.rawValue)
        command.add(CommonOptions.progress, progress.rawValue)
        return command.words
    }

    /// `merge` of every job's folder.
    var merge: [ScriptWord] {
        var words = CommandLineWords(MergeCommand.spec, [])
        for folder in jobFolders {
            words.add(
                Self.relative(folder, to: outputFolder).map { .output(root: outputFolder, relative: $0) }
                    ?? .value(folder))
        }
        return words.words
    }

    /// The folder every job's output lies in: `output`, or the variants' common parent.
    var outputFolder: String {
        output ?? jobFolders.first.map { ($0 as NSString).deletingLastPathComponent } ?? "/"
    }

    /// `path` relative to `folder` ("" for the folder itself); nil when it lies outside.
    static func relative(_ path: String, to folder: String) -> String? {
        if path == folder { return "" }
        let prefix = folder.hasSuffix("/") ? folder : folder + "/"
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : nil
    }

    /// The scripts' request: these command lines, and how to ask Slurm for them.
    func request(
        executable: String, scriptFolder: String, name: String, tasks: Int, maxRunning: Int? = nil,
        partition: String? = nil, time: String? = nil, cpusPerTask: Int? = nil
    ) -> SlurmScripts.Request {
        SlurmScripts.Request(
            executable: executable, scriptFolder: scriptFolder, name: name, tasks: tasks, maxRunning: maxRunning,
            partition: partition, time: time, cpusPerTask: cpusPerTask, prepare: prepare, render: render,
            merge: merge)
    }

    /// What `render` and `prepare` share: the jobs, where their output goes, their frames and plugins.
    private func jobWords(_ command: CommandSpec, frames framesOption: Option) -> CommandLineWords {
        var words = CommandLineWords(command, [])
        for file in jobFiles { words.add(.jobFile(file)) }
        if let output { words.add(RenderCommand.out, .output(root: output, relative: "")) }
        words.add(RenderCommand.outputRoot, outputRoot)
        words.add(framesOption, frames)
        words.add(CommonOptions.pluginPath, each: pluginPath)
        words.add(CommonOptions.variants, variants)
        return words
    }
}
