import RenderFarm
import RenderFarmOutput

/// Exit codes of the hand-off commands (encode, render --video, export-otio, preview, compare).
extension ExitCode {
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
