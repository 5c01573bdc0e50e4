import Foundation
import RenderFarm
import RenderFarmJobs
import RenderFarmOutput

/// `renderfarm preview JOB|OUTDIR -o sheet.png`: a contact sheet of some frames.
struct PreviewCommand: Command {
    static let spec = CommandSpec(
        name: "preview",
        abstract: "Draw a contact sheet: a grid of frames with frame number and time under each.",
        synopsis: "preview JOB|OUTDIR",
        examples: [
            "renderfarm preview jobs/live-hearts.json -o sheet.png --scale 0.5",
            "renderfarm preview jobs/gift-drop.json -o debug.png --frames 0-119:10 --debug",
            "renderfarm preview jobs/out/live-hearts -o sheet.png --columns 6",
        ],
        discussion: """
            With a job file the frames are rendered directly (no full render needed, nothing else
            is written); with an output folder its PNGs are used. Without --frames, 12 frames
            spread evenly over the job. Transparency shows over a checkerboard. --debug draws each
            item's path (cyan), Bezier control points (magenta), bounds (yellow) and velocity
            (orange: where it is a quarter second later) from the plugins' trace data, on the items
            through the transforms of their layers and groups; for an output folder the job file
            named in its manifest is traced. Exit codes: 0 ok,
            1 a frame failed, 64 usage, 65 invalid job, 66 missing input, 69 no plugins,
            73 cannot create output, 74 I/O error (a full disk; no sheet is left).
            """,
        options: [output, frames, columns, width, RenderCommand.scale, debug, CommonOptions.pluginPath],
        positionals: 1...1)

    static let output = Option(
        "-o", "--output", value: "SHEET.png", help: "The contact sheet PNG to write (required).", required: true)
    static let frames = Option("--frames", value: "SET", help: "Frames to show, e.g. 0-479:60 or 1,30,90.")
    static let columns = Option("--columns", value: "C", help: "Thumbnails per row (default: up to 4).")
    static let width = Option("--width", value: "W", help: "Width of the sheet in pixels (default 1200).")
    static let debug = Flag("--debug", help: "Draw paths, control points, bounds and velocities.")

    let arguments: ParsedArguments
    let output: String
    let options: ContactSheetOptions
    let scale: Double?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        self.arguments = arguments
        guard let output = arguments[Self.output] else {
            throw UsageError(message: "-o SHEET.png is required", command: "preview")
        }
        guard output.lowercased().hasSuffix(".png") else {
            throw UsageError(
                message: "-o \(ShownPath.of(output)): a contact sheet is a PNG; name it .png", command: "preview")
        }
        self.output = output
        options = ContactSheetOptions(
            columns: try arguments.integer(Self.columns, in: 1...64, command: "preview"),
            width: try arguments.integer(Self.width, in: 64...16_384, command: "preview") ?? 1200,
            debug: arguments[Self.debug])
        scale = try RenderCommand.parseScale(arguments, command: "preview")
    }

    func run(_ terminal: Terminal) -> ExitCode {
        let input = arguments.positionals[0]
        let manifest = (input as NSString).appendingPathComponent(FolderLayout.manifest)
        let source: SheetSource
        let frames: [Int]
        if FileManager.default.fileExists(atPath: manifest) {
            let rendered: RenderedOutput
            do {
                rendered = try OutputFolder(input).rendered()
            } catch {
                return .reporting(error, to: terminal)
            }
            var chosen = ContactSheet.spread(rendered.writtenFrames.map(\.index))
            if let text = arguments[Self.frames] {
                do {
                    chosen = try FrameSet(parsing: text).frames
                } catch {
                    let problem = "--frames: \(error.message) (grammar: 1-100, 1-100:2, 1,3,5-9)"
                    return .reporting(UsageError(message: problem, command: "preview"), to: terminal)
                }
            }
            var traced: PlannedJob?
            if options.debug {
                guard let job = rendered.jobSource, FileManager.default.fileExists(atPath: job) else {
                    return .reporting(CommandRefusal.debugWithoutJob, to: terminal)
                }
                switch CommonOptions.planJobs([job], arguments: arguments, options: PlanOptions(), terminal: terminal) {
                case .success(let ready): traced = ready.jobs.first
                case .failure(let code): return code
                }
            }
            source = .output(rendered, trace: traced)
            frames = chosen
        } else {
            let plan = PlanOptions(frames: arguments[Self.frames], scale: scale)
            switch CommonOptions.planJobs([input], arguments: arguments, options: plan, terminal: terminal) {
            case .success(let ready):
                guard let job = ready.jobs.first else { return .reporting(CommandRefusal.noJob, to: terminal) }
                source = .job(job)
                frames = arguments[Self.frames] == nil ? ContactSheet.spread(job.frames.frames) : job.frames.frames
            case .failure(let code):
                return code
            }
        }
        do {
            let sheet = try ContactSheet.draw(source, frames: frames, options: options)
            try ContactSheet.write(sheet, to: output)
            terminal.print(
                "contact sheet of \(frames.count) frames (\(sheet.width)×\(sheet.height)): \(ShownPath.of(output))")
            return .ok
        } catch {
            return .reporting(error, to: terminal)
        }
    }
}
