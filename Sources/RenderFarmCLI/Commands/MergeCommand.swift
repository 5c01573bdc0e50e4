import RenderFarm
import RenderFarmJobs
import RenderFarmOutput

/// `renderfarm merge OUTDIR …`: joins the shards' journals into one checked manifest.
struct MergeCommand: Command {
    static let spec = CommandSpec(
        name: "merge",
        abstract: "Join the journals of every shard in an output folder into one checked manifest.json.",
        synopsis: "merge OUTDIR …",
        examples: [
            "renderfarm merge renders/live-hearts"
        ],
        discussion: """
            Reads renderfarm.job.json (written by every render into its folder) and every
            renderfarm.journal*.jsonl, checks each frame's file against its sha256, and writes
            manifest.json atomically, complete or listing the missing frames. Needs neither the
            job file nor the plugins. Run it once every `render --shard K/N` has finished; a
            second render of the same shards renders only what is missing. Exit codes: 0 complete,
            1 frames missing, failed or corrupt (listed on standard error, e.g. 3,7-9),
            65 invalid renderfarm.job.json, 66 folder missing or nothing rendered into it,
            65 a render or shard is still writing into the folder, 73 / 74 the manifest cannot be written.
            """,
        options: [],
        positionals: 1...Int.max)

    let arguments: ParsedArguments

    init(_ arguments: ParsedArguments) throws(UsageError) {
        self.arguments = arguments
    }

    func run(_ terminal: Terminal) -> ExitCode {
        var worst = ExitCode.ok
        for folder in arguments.positionals {
            let code = Self.merge(folder, terminal: terminal)
            if worst == .ok || (worst == .framesFailed && code != .ok) { worst = code }
        }
        return worst
    }

    /// Merges one folder and reports it: the summary on standard output, problems on standard error.
    static func merge(_ folder: String, terminal: Terminal) -> ExitCode {
        let report: MergeReport
        do {
            report = try ShardMerge.merge(directory: folder)
        } catch {
            return .reporting(error, to: terminal)
        }
        let total = report.expected.count
        let journals = "\(report.journals) journal\(report.journals == 1 ? "" : "s")"
        if report.complete {
            terminal.print("\(report.name): complete, \(total) frames verified (\(journals))")
            terminal.print("  manifest: \(ShownPath.of(report.manifestPath))")
            return .ok
        }
        terminal.print("\(report.name): incomplete, \(report.verified) of \(total) frames verified (\(journals))")
        terminal.print("  manifest: \(ShownPath.of(report.manifestPath))")
        let count = report.missing.count
        terminal.error(
            "\(report.name): \(count) frame\(count == 1 ? "" : "s") missing, failed or corrupt: "
                + FrameSet.compress(report.missing))
        for index in report.failed.keys.sorted().prefix(10) {
            terminal.note("  frame \(index) failed: \(report.failed[index] ?? "")")
        }
        if !report.corrupt.isEmpty {
            terminal.note(
                "  corrupt (file gone or its checksum differs from the journal): "
                    + FrameSet.compress(report.corrupt))
        }
        terminal.note(
            "  render the same shards again (done frames are skipped) or `renderfarm submit` again, "
                + "then merge")
        return .framesFailed
    }
}
