import RenderFarm
import RenderFarmJobs
import StrictJSON

/// `renderfarm trace JOB [--frames SET]`: the motion as JSON lines, one per frame.
struct TraceCommand: Command {
    static let spec = CommandSpec(
        name: "trace",
        abstract: "Print each frame's item positions, scales and plans as JSON lines (no pixels).",
        synopsis: "trace JOB",
        examples: [
            "renderfarm trace jobs/bounce.json --frames 0-29",
            "renderfarm trace jobs/live-hearts.json --compact --items 0,3",
            "renderfarm trace jobs/gift-landings.json --moments",
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
            --moments prints, instead of frames, the moments of the layers' items in job time, one line
            each: {"layer": 2, "name": "drop", "item": 0, "moment": "land", "local": 0.64, "time": 1.64};
            a sound's "at": {"layer": "drop", "moment": "land"} plays at those times.
            """,
        options: [frames, items, compact, moments, CommonOptions.pluginPath, CommonOptions.variants],
        positionals: 1...1)

    static let frames = Option("--frames", value: "SET", help: "Trace these frames (default: the job's frame set).")
    static let items = Option("--items", value: "ID,…", help: "Only these item ids (in every layer), e.g. 0,3,7.")
    static let compact = Flag("--compact", help: "Each item's plan once, on its first frame; numbers rounded to 1e-4.")
    static let moments = Flag("--moments", help: "Print the items' moments (launch, land, …) in job time instead.")

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
            if arguments[Self.moments] {
                for line in Self.momentLines(job) { terminal.print(line.serialized()) }
                continue
            }
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

    /// The moments of `job`'s layers' items (ABI `moments`), by job time, then layer and item: where a sound at
    /// them is heard (loops aside; moments while a layer is not drawn are left out).
    static func momentLines(_ job: PlannedJob) -> [JSONValue] {
        let clocks = job.job.spec.clocks
        var lines: [(time: Double, layer: Int, item: Int, value: JSONValue)] = []
        for (layer, moments) in job.moments {
            for moment in moments {
                guard let time = clocks[layer].jobTime(ofLocal: moment.time) else { continue }
                var object: JSONObject = [
                    "layer": .number(Double(layer)), "item": .number(Double(moment.item)),
                    "moment": .string(moment.name), "local": .number(moment.time), "time": .number(time),
                ]
                if let name = clocks[layer].name { object["name"] = .string(name) }
                lines.append((time, layer, moment.item, .object(object)))
            }
        }
        return lines.sorted { ($0.time, $0.layer, $0.item) < ($1.time, $1.layer, $1.item) }.map(\.value)
    }
}
