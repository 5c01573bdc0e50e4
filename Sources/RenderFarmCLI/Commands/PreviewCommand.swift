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
            named in its manifest is traced. A job with variants, or the folder of a rendered
            variants batch, gives a sheet per variant: -o names each with placeholders
            ({{variant}}, {{name}}, {{index}}, a column or matrix key). Exit codes: 0 ok,
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
        var sheets: [(source: SheetSource, frames: [Int], fields: FileNameTemplate.Fields)] = []
        do {
            if FileManager.default.fileExists(atPath: manifest) {
                let rendered = try OutputFolder(input).rendered()
                let (source, frames) = try sheet(of: rendered, terminal: terminal)
                sheets = [(source, frames, FileNameTemplate.Fields(rendered: rendered))]
            } else if let batch = try BatchStatus.read(input) {
                // A rendered variants batch: a sheet of each variant's PNGs.
                for variant in batch.variants {
                    let (source, frames) = try sheet(
                        of: try OutputFolder(variant.folder).rendered(), terminal: terminal)
                    sheets.append((source, frames, FileNameTemplate.Fields(variant: variant, of: batch)))
                }
            } else {
                let plan = PlanOptions(frames: arguments[Self.frames], scale: scale)
                switch CommonOptions.planJobs([input], arguments: arguments, options: plan, terminal: terminal) {
                case .success(let ready):
                    guard !ready.jobs.isEmpty else { return .reporting(CommandRefusal.noJob, to: terminal) }
                    for job in ready.jobs {
                        let frames =
                            arguments[Self.frames] == nil ? ContactSheet.spread(job.frames.frames) : job.frames.frames
                        sheets.append((.job(job), frames, FileNameTemplate.Fields(job.job)))
                    }
                case .failure(let code):
                    return code
                }
            }
        } catch let failure as Stop {
            return failure.code
        } catch {
            return .reporting(error, to: terminal)
        }
        let files: [String]
        do {
            let template = FileNameTemplate(text: output)
            files =
                sheets.count == 1 && !template.hasPlaceholders
                ? [output]
                : try template.files(
                    for: sheets.map(\.fields), option: "-o", example: "sheets/{{variant}}.png",
                    command: "preview")
            try template.makeFolders(for: files)
        } catch {
            return .reporting(error, to: terminal)
        }
        for (sheet, file) in zip(sheets, files) {
            do {
                let drawn = try ContactSheet.draw(sheet.source, frames: sheet.frames, options: options)
                try ContactSheet.write(drawn, to: file)
                terminal.print(
                    "contact sheet of \(sheet.frames.count) frames (\(drawn.width)×\(drawn.height)): \(ShownPath.of(file))"
                )
            } catch {
                return .reporting(error, to: terminal)
            }
        }
        return .ok
    }

    /// A command that stopped with its exit code, its message already told.
    private struct Stop: Error {
        var code: ExitCode
    }

    /// The sheet of a rendered folder's PNGs: `--frames`, or 12 of them spread evenly; traced with `--debug`.
    private func sheet(of rendered: RenderedOutput, terminal: Terminal) throws -> (SheetSource, [Int]) {
        var chosen = ContactSheet.spread(rendered.writtenFrames.map(\.index))
        if let text = arguments[Self.frames] {
            do {
                chosen = try FrameSet(parsing: text).frames
            } catch {
                let problem = "--frames: \(error.message) (grammar: 1-100, 1-100:2, 1,3,5-9)"
                throw UsageError(message: problem, command: "preview")
            }
        }
        var traced: PlannedJob?
        if options.debug {
            guard let job = rendered.jobSource, FileManager.default.fileExists(atPath: job) else {
                throw CommandRefusal.debugWithoutJob
            }
            switch CommonOptions.planJobs([job], arguments: arguments, options: PlanOptions(), terminal: terminal) {
            case .success(let ready): traced = ready.jobs.first
            case .failure(let code): throw Stop(code: code)
            }
        }
        return (.output(rendered, trace: traced), chosen)
    }
}
