/// One word of the command a generated script runs (`SlurmScripts`, `OpenJDBundle`, `KubernetesManifests`).
/// The words come from the CLI, which spells every option from its own option table; the engine only writes
/// them down, so it holds no option name of its own.
package enum ScriptWord: Sendable, Equatable {
    /// Text the command receives unchanged (a subcommand, an option's name, a path, a frame set), written
    /// as `ShellWord.quoted(text)`.
    case value(String)
    /// A job file the command reads, by absolute path: written as that path, or as the job parameter an
    /// engine moves the file by (OpenJD's `{{Param.JobFile}}`).
    case jobFile(String)
    /// The submission's output folder `root` (`relative` empty) or a folder inside it: written as the path,
    /// or inside the engine's output parameter (OpenJD's `{{Param.OutputDir}}/relative`).
    case output(root: String, relative: String)
    /// The shard this task of a job array renders, `K/N`: K the task's index as the scheduler sets it
    /// when the task runs, N the script's number of tasks.
    case taskShard
    /// The CPUs the scheduler gave the task (1 when it says none).
    case taskCPUs

    /// The word as the command receives it where no engine parameter stands for it (a `.value`'s text, the
    /// path of a `.jobFile` or `.output`); nil for the words a task fills in.
    package var literal: String? {
        switch self {
        case .value(let text), .jobFile(let text): text
        case .output(let root, let relative): relative.isEmpty ? root : root + "/" + relative
        case .taskShard, .taskCPUs: nil
        }
    }
}
