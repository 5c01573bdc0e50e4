import FileInput
import FileOutput
import RenderFarm
import RenderFarmJobs
import RenderFarmMedia
import RenderFarmOutput
import RenderFarmStudio

/// Process exit codes, following sysexits.h (RenderFarm article CommandLine, "Exit codes").
package enum ExitCode: Int32, Sendable {
    case ok = 0
    /// Some frames failed after their retries.
    case framesFailed = 1
    /// Bad command line (EX_USAGE).
    case usage = 64
    /// Invalid job data (EX_DATAERR).
    case dataError = 65
    /// An input file is missing (EX_NOINPUT).
    case noInput = 66
    /// A plugin or an external tool is unavailable (EX_UNAVAILABLE).
    case unavailable = 69
    /// The output cannot be created (EX_CANTCREAT).
    case cannotCreate = 73
    /// An I/O error, e.g. a full disk (EX_IOERR).
    case ioError = 74
    /// The output folder is locked by another run; try again later (EX_TEMPFAIL).
    case tempFail = 75
    /// Stopped by a signal after finishing the frames in flight.
    case interrupted = 130
    /// Standard output or error was closed by its reader (`renderfarm trace JOB | head -1`): the command
    /// stops quietly with the status a shell shows for a command ended by SIGPIPE (128 + 13).
    case brokenPipe = 141
}

/// Lets `Result<_, ExitCode>` carry a failed step's exit code.
extension ExitCode: Error {}

// MARK: - From an error to its message and exit code

/// The one place that maps what a command's step threw to its exit code, in the way
/// swift-argument-parser sends every error through one `MessageInfo`: a command tells the error with
/// `reporting` (or prints its own words and takes `ExitCode(for:)`), and never picks a code for an
/// error by hand; what it refuses on its own is a `CommandRefusal` or a `UsageError`, told the same way. The CommandLine article's table of exit codes is this file's.
extension ExitCode {
    /// Runs `step` on each of `items` in order; the first that does not exit 0 stops the rest, and its code is
    /// returned (`render --video` and `encode` of several videos).
    static func each<Item>(_ items: [Item], _ step: (Item) -> ExitCode) -> ExitCode {
        for item in items {
            let code = step(item)
            guard code == .ok else { return code }
        }
        return .ok
    }

    /// Tells `error` on standard error and returns its exit code.
    static func reporting(_ error: any Error, to terminal: Terminal) -> ExitCode {
        terminal.error("\(error)")
        return ExitCode(for: error)
    }

    /// The exit code of `error`; an error of a kind not listed here is an I/O error.
    init(for error: any Error) {
        switch error {
        case let code as ExitCode: self = code
        case is UsageError: self = .usage
        case let refusal as CommandRefusal: self.init(refusal)
        case let error as JobError: self.init(error)
        case let error as PlanError: self.init(error)
        case let error as OutputError: self.init(error)
        case let error as InputFileError: self = error.isMissing ? .noInput : .dataError
        case is PluginLoadError: self = .unavailable
        case is TraceError: self = .unavailable
        case is SlurmClient.Failure: self = .unavailable
        case let error as FolderStatusError: self = error.isMissing ? .noInput : .dataError
        case let error as ComparisonError: self = error.isMissing ? .noInput : .dataError
        case let error as RenderedOutputError: self.init(error)
        case let error as MergeError: self.init(error)
        case let error as EncodeError: self.init(error)
        case let error as ExportError: self.init(error)
        case let error as PreviewError: self.init(error)
        case let error as StudioError: self = error.isUsage ? .usage : .unavailable
        case let error as ScaffoldError: self = error.isUsage ? .usage : .cannotCreate
        default: self = .ioError
        }
    }

    init(_ error: JobError) {
        switch error {
        case .missing, .unreadable, .notAFile: self = .noInput
        case .syntax, .invalid: self = .dataError
        case .output(_, let error): self.init(error)
        }
    }

    init(_ error: PlanError) {
        self = Self.worst(error.errors)
    }

    /// The exit code of a run that met `errors`: a folder in use (75) or that cannot be made
    /// (73, 74) first, as trying again later or elsewhere fixes it; then a missing input (66);
    /// else invalid data (65).
    static func worst(_ errors: [JobError]) -> ExitCode {
        let codes = errors.map(ExitCode.init)
        return [.tempFail, .cannotCreate, .ioError, .noInput].first(where: codes.contains) ?? .dataError
    }

    init(_ error: OutputError) {
        switch error {
        case .cannotCreate: self = .cannotCreate
        case .io: self = .ioError
        case .outsideRoot: self = .dataError
        case .locked: self = .tempFail
        }
    }

    private init(_ refusal: CommandRefusal) {
        switch refusal {
        case .noSuchFile, .noJobFile, .noJobFiles, .noJob, .debugWithoutJob, .effectKitNotFound, .soundSourceMissing:
            self = .noInput
        case .noSuchPlugin, .noPlugins, .sandboxIncomplete, .slurmMissing: self = .unavailable
        case .invalidValue, .noAudio: self = .dataError
        case .noScratchFolder, .noFrameFits, .noOutputFolder: self = .cannotCreate
        case .unreadableOption(_, let error): self.init(for: error)
        }
    }

    private init(_ error: RenderedOutputError) {
        switch error {
        case .missing: self = .noInput
        case .invalid, .rendering: self = .dataError
        }
    }

    private init(_ error: MergeError) {
        switch error {
        case .noFolder, .nothingRendered: self = .noInput
        case .invalidRecord, .rendering: self = .dataError
        case .output(let output): self.init(output)
        }
    }

    private init(_ error: EncodeError) {
        switch error {
        case .ffmpegMissing, .ffprobeMissing, .encoderUnavailable: self = .unavailable
        case .manifest(let error): self.init(error)
        case .incomplete, .unusableSequence, .notAlphaPacked, .sound: self = .dataError
        case .unsupported: self = .usage
        case .failed: self = .framesFailed
        case .output(let error): self.init(error)
        case .interrupted: self = .interrupted
        }
    }

    private init(_ error: ExportError) {
        switch error {
        case .manifest(let error): self.init(error)
        case .incomplete, .unusable: self = .dataError
        case .output(let error): self.init(error)
        }
    }

    private init(_ error: PreviewError) {
        switch error {
        case .noFrames, .layout: self = .usage
        case .frameMissing: self = .noInput
        case .frame, .trace, .drawing: self = .framesFailed
        case .output(let error): self.init(error)
        }
    }
}

extension InputFileError {
    fileprivate var isMissing: Bool { if case .missing = self { true } else { false } }
}

extension FolderStatusError {
    fileprivate var isMissing: Bool { if case .notARenderFolder = self { true } else { false } }
}

extension ScaffoldError {
    fileprivate var isUsage: Bool {
        switch self {
        case .invalidID, .noEffectKit: true
        case .folderNotEmpty, .cannotWrite: false
        }
    }
}

extension ComparisonError {
    fileprivate var isMissing: Bool { if case .missing = self { true } else { false } }
}
