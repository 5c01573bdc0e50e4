/// One word of the command a generated script runs (`SlurmScripts`). The words come from the CLI, which
/// spells every option from its own option table; the engine only writes them down, so it holds no
/// option name of its own.
public enum ScriptWord: Sendable, Equatable {
    /// Text the command receives unchanged (a subcommand, an option's name, a path, a frame set), written
    /// as `ShellWord.quoted(text)`.
    case value(String)
    /// The shard this task of a job array renders, `K/N`: K the task's index as the scheduler sets it
    /// when the task runs, N the script's number of tasks.
    case taskShard
    /// The CPUs the scheduler gave the task (1 when it says none).
    case taskCPUs
}
