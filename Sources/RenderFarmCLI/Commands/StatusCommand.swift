import Foundation
import RenderFarm

/// `renderfarm status OUTDIR …`: where renders stand, from another terminal or a script.
struct StatusCommand: Command {
    static let spec = CommandSpec(
        name: "status",
        abstract: "Show where render folders stand: state, frames done, failures, fps and ETA.",
        synopsis: "status OUTDIR …",
        examples: [
            "renderfarm status jobs/out/live-hearts --watch",
            "renderfarm status /shared/renders/a /shared/renders/b --json",
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
            66 not a render folder.
            """,
        options: [watch, json],
        positionals: 1...Int.max)

    static let watch = Flag("--watch", help: "Refresh every second while a folder is rendering.")
    static let json = Flag("--json", help: "One JSON object per folder, for scripts.")

    let arguments: ParsedArguments

    init(_ arguments: ParsedArguments) throws(UsageError) {
        self.arguments = arguments
    }

    func run(_ terminal: Terminal) -> ExitCode {
        while true {
            var statuses: [FolderStatus] = []
            for folder in arguments.positionals {
                do {
                    statuses.append(try FolderStatus.read(folder))
                } catch {
                    terminal.error(error.description)
                    if case .notARenderFolder = error { return .noInput }
                    return .dataError
                }
            }
            for status in statuses {
                if arguments[Self.json] {
                    terminal.print(status.json.serialized(sortedKeys: true))
                } else {
                    Self.describe(status).forEach(terminal.print)
                }
            }
            let rendering = statuses.contains { $0.state == .rendering }
            guard arguments[Self.watch], rendering else {
                return statuses.allSatisfy { $0.state == .complete } ? .ok : .framesFailed
            }
            usleep(1_000_000)
            if !arguments[Self.json] { terminal.print("") }
        }
    }

    /// The text lines for one folder.
    static func describe(_ status: FolderStatus) -> [String] {
        var head = "\(status.directory): \(status.state.rawValue)"
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
