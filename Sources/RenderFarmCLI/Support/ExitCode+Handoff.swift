import FileOutput
import RenderFarm
import RenderFarmJobs
import RenderFarmOutput

/// Exit codes of the hand-off commands (encode, render --video, export-otio, preview, compare, mix).
extension ExitCode {
    /// Tells `error` on standard error and returns its exit code: one place that maps whatever a
    /// hand-off command's step threw (an unknown error is an I/O error).
    static func reporting(_ error: any Error, to terminal: Terminal) -> ExitCode {
        terminal.error("\(error)")
        switch error {
        case let error as JobError: return ExitCode(error)
        case let error as EncodeError: return ExitCode(error)
        case let error as RenderedOutputError: return ExitCode(error)
        case let error as ExportError: return ExitCode(error)
        case let error as PreviewError: return ExitCode(error)
        case let error as OutputError: return ExitCode(error)
        default: return .ioError
        }
    }

    init(_ error: RenderedOutputError) {
        switch error {
        case .missing: self = .noInput
        case .invalid, .rendering: self = .dataError
        }
    }

    init(_ error: EncodeError) {
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

    init(_ error: ExportError) {
        switch error {
        case .manifest(let error): self.init(error)
        case .incomplete, .unusable: self = .dataError
        case .output(let error): self.init(error)
        }
    }

    init(_ error: PreviewError) {
        switch error {
        case .noFrames, .layout: self = .usage
        case .frameMissing: self = .noInput
        case .frame, .trace, .drawing: self = .framesFailed
        case .output(let error): self.init(error)
        }
    }
}
