import RenderFarm
import RenderFarmJobs

/// `renderfarm trace JOB [--frames SET]`: the motion as JSON lines, one per frame.
struct TraceCommand: Command {
    static let spec = CommandSpec(
        name: "trace",
        abstract: "Print each frame's item positions, scales and plans as JSON lines (no pixels).",
        synopsis: "trace JOB",
        examples: [
            "renderfarm trace jobs/bounce.json --frames 0-29",
            "renderfarm trace jobs/live-hearts.json --compact --items 0,3",
        ],
        discussion: """
            One line per frame: {"frame": 30, "time": 0.5, "layers": [{"layer": 0, "effect": …,
            "items": [{"id", "x", "y", "scale", "alpha", "visible", "plan": {…}}]}]}. Positions are in
            canvas points, where the item is drawn through the transforms of its layer and groups: the
            bottom centre of a heart, the centre of a dropped or bouncing item. A transformed layer
            also gives its "matrix" (cairo's [xx, yx, xy, yy, x0, y0], from its points to the canvas).
            Layers whose plugin has no trace function (e.g. gradient) are left out; so are layers whose
            plugin answers that it cannot trace, with a note on standard error. --compact gives each
            item's plan only on its first frame (again when its layer's matrix changes) and rounds
            numbers to 1e-4 (about a tenth of the default size); --items keeps only the given item ids.
            """,
        options: [frames, items, compact, CommonOptions.pluginPath, CommonOptions.variants],
        positionals: 1...1)

    static let frames = Option("--frames", value: "SET", help: "Trace these frames (default: the job's frame set).")
    static let items = Option("--items", value: "ID,…", help: "Only these item ids (in every layer), e.g. 0,3,7.")
    static let compact = Flag("--compact", help: "Each item's plan once, on its first frame; numbers rounded to 1e-4.")

    let arguments: ParsedArguments
    let filter: TraceFilter

    init(_ arguments: ParsedArguments) throws(UsageError) {
        self.arguments = arguments
        var items: Set<Int>?
        if let text = arguments[Self.items] {
            let ids = text.split(separator: ",", omittingEmptySubsequences: false).map { Int($0) }
            guard !ids.isEmpty, ids.allSatisfy({ ($0 ?? -1) >= 0 }) else {
                throw UsageError(message: "--items expects item ids like 0,3,7, got \"\(text)\"", command: "trace")
            }
            items = Set(ids.compactMap { $0 })
        }
        filter = TraceFilter(items: items, compact: arguments[Self.compact])
    }

    func run(_ terminal: Terminal) -> ExitCode {
        let options = PlanOptions(frames: arguments[Self.frames])
        let jobs: [PlannedJob]
        switch CommonOptions.planJobs(arguments.positionals, arguments: arguments, options: options, terminal: terminal)
        {
        case .success(let ready): jobs = ready.jobs
        case .failure(let code): return code
        }
        for job in jobs {
            do {
                let lines = try Tracer.trace(job) { layer, effect in
                    terminal.note("\(ShownPath.of(job.job.file)): layer \(layer) (\(effect)) does not trace; left out")
                }
                for line in filter.apply(lines) { terminal.print(line.serialized()) }
            } catch {
                terminal.error("\(ShownPath.of(job.job.file)): \(error)")
                return ExitCode(for: error)
            }
        }
        return .ok
    }
}
