import FileInput
import RenderFarm
import RenderFarmJobs
import StrictJSON

/// What a command refuses to do when no step below it threw: each case names the situation and
/// words the message; `ExitCode(for:)` gives its exit code, as for every other error, so a command
/// never picks one by hand.
enum CommandRefusal: Error, CustomStringConvertible {
    /// A file the command line names is not there: `what` says which kind ("video", "file").
    case noSuchFile(String, what: String)
    /// Neither the path nor the folder it names holds a job file (`studio`).
    case noJobFile(String)
    /// None of the paths given is or holds a job file: the message names them.
    case noJobFiles(String)
    /// The jobs named plan to no job at all (every variant left out, say).
    case noJob
    /// `preview --debug` of a folder whose manifest names no job file that still exists.
    case debugWithoutJob
    /// No plugin of this id in the catalog.
    case noSuchPlugin(String, in: PluginCatalog)
    /// The catalog is empty.
    case noPlugins(searchPath: [String])
    /// `--sandbox require` and the kernel or the worker lacks one of the sandbox's layers.
    case sandboxIncomplete(String)
    /// `sbatch` and the other Slurm commands are not installed.
    case slurmMissing
    /// `plugin new` found no EffectKit package to build a Swift plugin against.
    case effectKitNotFound(String)
    /// An option names a file that cannot be read (`man-page --article`).
    case unreadableOption(String, InputFileError)
    /// A value the command reads is not usable (`plugin check --params`).
    case invalidValue(String)
    /// `mix` of a job with nothing to mix: no `audio` section, no clip with sound.
    case noAudio(job: String)
    /// A job's sound cannot be mixed from its rendered folder: the job file is gone or unreadable.
    case soundSourceMissing(job: String, reason: String)
    /// `render --memory`: not one frame fits the budget.
    case noFrameFits(String)
    /// A temporary folder the command needs cannot be made.
    case noScratchFolder(String)
    /// The folder a file named per job or variant goes in cannot be made (`render --video`, `encode -o`).
    case noOutputFolder(String, reason: String)

    var description: String {
        switch self {
        case .noSuchFile(let path, let what): "\(path): no such \(what)"
        case .noJobFile(let given): "\(given): no job file found"
        case .noJobFiles(let message), .noFrameFits(let message): message
        case .noJob: "the job files plan no job to run"
        case .debugWithoutJob:
            "--debug traces the job, but the manifest names no job file that exists; "
                + "run `renderfarm preview JOB --debug` instead"
        case .noSuchPlugin(let id, let catalog):
            "no plugin \"\(id)\"" + Suggestion.hint(for: id, in: catalog.plugins.keys.sorted()) + "; installed: "
                + (catalog.plugins.isEmpty ? "none" : catalog.plugins.keys.sorted().joined(separator: ", "))
                + "; searched: " + catalog.searchPath.joined(separator: ", ")
        case .noPlugins(let searchPath): "no plugins found; searched: \(searchPath.joined(separator: ", "))"
        case .sandboxIncomplete(let message): message
        case .slurmMissing: SlurmClient.missingMessage
        case .effectKitNotFound(let message): message
        case .unreadableOption(let option, let error): "\(option): \(error)"
        case .invalidValue(let message): message
        case .noAudio(let job):
            "\(job): nothing is heard in the frames mixed (no \"audio\" section, and no layer that plays sound, "
                + "is not muted and is heard in them); nothing to mix"
        case .soundSourceMissing(let job, let reason): "\(job): \(reason)"
        case .noScratchFolder(let reason): "cannot make a temporary folder for the check's worker: \(reason)"
        case .noOutputFolder(let folder, let reason): "cannot create the folder \(folder): \(reason)"
        }
    }
}
