import RenderFarm

/// `renderfarm validate JOB …`: everything `render` checks, without rendering.
struct ValidateCommand: Command {
    static let spec = CommandSpec(
        name: "validate",
        abstract: "Check job files: syntax, values, effects and their parameters.",
        usage: "validate JOB|DIR … [--plugin-path DIR]",
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
        switch CommonOptions.prepare(
            arguments.positionals, arguments: arguments, options: PlanOptions(), terminal: terminal)
        {
        case .failure(let code):
            return code
        case .success(let jobs):
            for prepared in jobs {
                let spec = prepared.job.spec
                let effects = spec.layers.map(\.effect).joined(separator: ", ")
                let canvas = spec.canvas
                let points = "\(format(canvas.width))×\(format(canvas.height)) pt @\(format(canvas.scale))x"
                let pixels = "\(canvas.pixelWidth)×\(canvas.pixelHeight) px"
                terminal.print(
                    "ok: \(prepared.job.file)\(prepared.job.variant.map { " [variant \($0.name)]" } ?? ""): \(spec.frames.count) frames, \(points) (\(pixels)), "
                        + "\(format(spec.fps)) fps, layers: \(effects)")
            }
            return .ok
        }
    }
}

/// A number without a needless ".0".
func format(_ value: Double) -> String {
    value.rounded() == value && abs(value) < 1e15 ? String(Int(value)) : String(value)
}
