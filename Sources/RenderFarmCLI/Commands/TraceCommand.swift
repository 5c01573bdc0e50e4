import RenderFarm

/// `renderfarm trace JOB [--frames SET]`: the motion as JSON lines, one per frame.
struct TraceCommand: Command {
    static let spec = CommandSpec(
        name: "trace",
        abstract: "Print each frame's item positions, scales and plans as JSON lines (no pixels).",
        usage: "trace JOB [--frames SET] [--plugin-path DIR]",
        discussion: """
            One line per frame: {"frame": 30, "time": 0.5, "layers": [{"layer": 0, "effect": …,
            "items": [{"id", "x", "y", "scale", "alpha", "visible", "plan": {…}}]}]}. Positions are in
            points: the bottom centre of a heart, the centre of a dropped or bouncing item.
            Layers whose plugin has no trace function (e.g. gradient) are left out.
            """,
        options: [
            OptionSpec(names: ["--frames"], value: "SET", help: "Trace these frames (default: the job's frame set)."),
            CommonOptions.pluginPath, CommonOptions.variants,
        ],
        positionals: 1...1)

    let arguments: ParsedArguments

    init(_ arguments: ParsedArguments) throws(UsageError) {
        self.arguments = arguments
    }

    func run(_ terminal: Terminal) -> ExitCode {
        let options = PlanOptions(frames: arguments.value("--frames"))
        let jobs: [PreparedJob]
        switch CommonOptions.prepare(arguments.positionals, arguments: arguments, options: options, terminal: terminal)
        {
        case .success(let prepared): jobs = prepared
        case .failure(let code): return code
        }
        for job in jobs {
            do {
                for line in try Tracer.trace(job) { terminal.print(line.serialized()) }
            } catch {
                terminal.error("\(job.job.file): \(error)")
                return .unavailable
            }
        }
        return .ok
    }
}
