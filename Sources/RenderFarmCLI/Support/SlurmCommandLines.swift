import Foundation
import RenderFarm

/// What the jobs of `renderfarm submit --slurm` run: the `prepare`, `render` and `merge` command lines,
/// each spelt from the options of the command it runs (`CommandLineWords`).
struct SlurmCommandLines: Equatable {
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
    /// `-j` for each task; nil uses the CPUs Slurm gave the task.
    var concurrency: Int?
    var interleaved = false
    /// `render --isolate` in each task, with `--frame-timeout` when set.
    var isolate = false
    var frameTimeout: Double?
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
        command.add(RenderCommand.jobs, concurrency.map { .value(String($0)) } ?? .taskCPUs)
        command.add(RenderCommand.isolate, if: isolate)
        command.add(RenderCommand.frameTimeout, frameTimeout.map { String(format: "%g", $0) })
        command.add(CommonOptions.progress, ProgressMode.plain.rawValue)
        return command.words
    }

    /// `merge` of every job's folder.
    var merge: [ScriptWord] { CommandLineWords(MergeCommand.spec, jobFolders).words }

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
        var words = CommandLineWords(command, jobFiles)
        words.add(RenderCommand.out, output)
        words.add(RenderCommand.outputRoot, outputRoot)
        words.add(framesOption, frames)
        words.add(CommonOptions.pluginPath, each: pluginPath)
        words.add(CommonOptions.variants, variants)
        return words
    }
}
