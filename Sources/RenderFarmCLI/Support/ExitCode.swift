import FileOutput
import RenderFarm
import RenderFarmJobs

/// Process exit codes, following sysexits.h (RenderFarm article CommandLine, "Exit codes").
public enum ExitCode: Int32, Sendable {
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
}

/// Lets `Result<_, ExitCode>` carry a failed step's exit code.
extension ExitCode: Error {}
