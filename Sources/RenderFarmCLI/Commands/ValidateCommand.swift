import RenderFarm
import RenderFarmJobs

/// `renderfarm validate JOB …`: everything `render` checks, without rendering.
struct ValidateCommand: Command {
    static let spec = CommandSpec(
        name: "validate",
        abstract: "Check job files: syntax, values, effects and their parameters.",
        synopsis: "validate JOB|DIR …",
        examples: [
            "renderfarm validate jobs/live-hearts.json",
            "renderfarm validate jobs/",
        ],
        discussion: """
            Reports every problem at once, each with its place in the file (layers[1].params.rate),
            the value and the allowed range. Runs each plugin's create step too, so a job that
            validates will render. Exit 0 when valid, 65 when not, 66 when a file is missing.
            """,
        options: [CommonOptions.pluginPath, CommonOptions.variants],
        positionals: 1...Int.max)

    let arguments: ParsedArguments

    init(_ arguments: ParsedArguments) throws(UsageError) {
        self.arguments = arguments
    }

    func run(_ terminal: Terminal) -> ExitCode {
        var plan = PlanOptions(warmUp: .none)
        // What `render --video` and `encode` would refuse in the sound files is told now.
        plan.checksSoundFiles = true
        let result = CommonOptions.planJobs(
            arguments.positionals, arguments: arguments, options: plan, terminal: terminal,
            describeValid: Self.describe)
        switch result {
        case .failure(let code): return code
        case .success: return .ok
        }
    }

    /// `ok: jobs/a.json: 120 frames, 375×667 pt @2x (750×1334 px), 60 fps, layers: floating-heart`.
    static func describe(_ prepared: PlannedJob) -> String {
        let spec = prepared.job.spec
        let effects = spec.layers.map(\.effect).joined(separator: ", ")
        let canvas = spec.canvas
        let points = "\(format(canvas.width))×\(format(canvas.height)) pt @\(format(canvas.scale))x"
        let pixels = "\(canvas.pixelWidth)×\(canvas.pixelHeight) px"
        return "ok: \(ShownPath.of(prepared.job.file))\(JobReport.variant(prepared)): "
            + "\(Plural.count(spec.frames.count, "frame")), \(points) "
            + "(\(pixels)), \(format(spec.fps)) fps, layers: \(effects)"
    }
}

/// A number without a needless ".0".
func format(_ value: Double) -> String {
    value.rounded() == value && abs(value) < 1e15 ? String(Int(value)) : String(value)
}
