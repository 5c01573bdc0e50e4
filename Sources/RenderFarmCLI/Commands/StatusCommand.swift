import FileInput
import Foundation
import RenderFarm
import RenderFarmJobs
import RenderFarmOutput

/// `renderfarm status OUTDIR …`: where renders stand, from another terminal or a script.
struct StatusCommand: Command {
    static let spec = CommandSpec(
        name: "status",
        abstract: "Show where render folders stand: state, frames done, failures, fps and ETA.",
        synopsis: "status OUTDIR …",
        examples: [
            "renderfarm status jobs/out/live-hearts --watch",
            "renderfarm status jobs/out/live-hearts jobs/out/streamer-badges --json",
        ],
        discussion: """
            Reads each output folder's job record, journals (one per shard) and locks, so it works
            while a render or its shards run on any host of a shared file system, and after. The
            state is rendering (naming who: pid, host, since when), complete, incomplete or failed;
            fps and ETA come from the times of the last minute's finished frames. Frames count as
            done when a journal records them for the current job (`merge` also checks their
            checksums). --watch redraws every second until no folder is being rendered; --json
            prints one JSON object per folder (per refresh with --watch). Exit codes: 0 every folder
            complete, 1 some folder rendering, incomplete or failed, 65 a damaged job record,
            66 not a render folder. The folder that holds the variants of a job file (with
            variants.json) shows a row per variant and the total.
            """,
        options: [watch, json],
        positionals: 1...Int.max)

    static let watch = Flag("--watch", help: "Refresh every second while a folder is rendering.")
    static let json = Flag("--json", help: "One JSON object per folder, for scripts.")

    let arguments: ParsedArguments

    init(_ arguments: ParsedArguments) throws(UsageError) {
        self.arguments = arguments
    }

    /// What one argument is: a render folder, or the folder of a job's variants (`variants.json`).
    enum Report {
        case folder(FolderStatus)
        case batch(BatchStatus)

        var state: FolderStatus.State {
            switch self {
            case .folder(let status): status.state
            case .batch(let batch): batch.state
            }
        }
    }

    /// The report of `folder`; a folder without a job record is a batch when it has `variants.json`.
    static func read(_ folder: String) throws(FolderStatusError) -> Report {
        do {
            return .folder(try FolderStatus.read(folder))
        } catch {
            guard case .notARenderFolder = error, let batch = try BatchStatus.read(folder) else { throw error }
            return .batch(batch)
        }
    }

    func run(_ terminal: Terminal) -> ExitCode {
        while true {
            var reports: [Report] = []
            for folder in arguments.positionals {
                do {
                    reports.append(try Self.read(folder))
                } catch {
                    return .reporting(error, to: terminal)
                }
            }
            for report in reports {
                switch (report, arguments[Self.json]) {
                case (.folder(let status), true): terminal.print(status.json.serialized(sortedKeys: true))
                case (.folder(let status), false): Self.describe(status).forEach(terminal.print)
                case (.batch(let batch), true): terminal.print(batch.json.serialized(sortedKeys: true))
                case (.batch(let batch), false): Self.describe(batch).forEach(terminal.print)
                }
            }
            let rendering = reports.contains { $0.state == .rendering }
            guard arguments[Self.watch], rendering else {
                return reports.allSatisfy { $0.state == .complete } ? .ok : .framesFailed
            }
            usleep(1_000_000)
            if !arguments[Self.json] { terminal.print("") }
        }
    }

    /// The text lines for a batch of variants: a row per variant, then the total.
    static func describe(_ batch: BatchStatus) -> [String] {
        let width = batch.variants.map(\.name.count).max() ?? 0
        var lines = ["\(EscapedPath.of(batch.directory)): variants of \(batch.name): \(batch.state.rawValue)"]
        for variant in batch.variants {
            let name = variant.name.padding(toLength: max(width, 5), withPad: " ", startingAt: 0)
            guard let status = variant.status else {
                lines.append("  \(name)  not started, 0 of \(variant.frames) frames done")
                continue
            }
            var row = "  \(name)  \(status.state.rawValue), \(status.done) of \(status.total) frames done"
            if !status.failed.isEmpty { row += ", \(status.failed.count) failed" }
            if let fps = status.fps { row += String(format: ", %.1f fps", fps) }
            if let eta = status.etaSeconds { row += ", ETA \(ProgressBar.clock(eta))" }
            lines.append(row)
        }
        let complete = batch.variants.filter { $0.state == .complete }.count
        lines.append(
            "  " + "total".padding(toLength: max(width, 5), withPad: " ", startingAt: 0)
                + "  \(complete) of \(batch.variants.count) variants complete, "
                + "\(batch.done) of \(batch.total) frames done")
        if batch.state == .incomplete || batch.state == .failed {
            lines.append("  run the render again to finish it (done frames are skipped)")
        }
        return lines
    }

    /// The text lines for one folder.
    static func describe(_ status: FolderStatus) -> [String] {
        var head = "\(EscapedPath.of(status.directory)): \(status.state.rawValue)"
        if !status.holders.isEmpty { head += " by " + status.holders.map(\.description).joined(separator: ", ") }
        var counts = "  \(status.done) of \(status.total) frames done"
        if !status.failed.isEmpty { counts += ", \(status.failed.count) failed" }
        if let fps = status.fps { counts += String(format: ", %.1f fps", fps) }
        if let eta = status.etaSeconds { counts += ", ETA \(ProgressBar.clock(eta))" }
        var lines = [head, counts]
        if !status.missing.isEmpty && status.state != .rendering {
            lines.append("  missing: \(FrameSet.compress(status.missing))")
        }
        for frame in status.failed.keys.sorted().prefix(10) {
            lines.append("  frame \(frame) failed: \(status.failed[frame] ?? "")")
        }
        if status.failed.count > 10 { lines.append("  … and \(status.failed.count - 10) more failed frames") }
        if status.state == .incomplete || status.state == .failed {
            lines.append("  run the render again to finish it (done frames are skipped)")
        }
        return lines
    }
}
