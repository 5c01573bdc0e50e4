import Foundation

/// The incremental harness's oracle: after an edit, `render` into the job's folder (the incremental
/// render, killed and resumed now and then) must leave its output folder identical to a fresh render
/// of the edited job (a copy of the job and its files, rendered into its own empty `out`), say why it
/// redraws in the words of the edit, and redraw nothing after a no-op.
struct HarnessOracle {
    let directory: URL
    let fresh: URL
    let binary: HarnessBinary
    /// How long the last full render took: kills land within it.
    private(set) var fullRenderSeconds = 0.1

    var output: URL { directory.appendingPathComponent(HarnessJobFolder.outputDirectory) }

    init(directory: URL, fresh: URL, binary: HarnessBinary) {
        self.directory = directory
        self.fresh = fresh
        self.binary = binary
    }

    struct Outcome {
        var difference = HarnessFolderDifference()
        /// Frames the re-render drew (or reused), by path in the output folder.
        var redrawn = 0
        /// Redrawn frames whose bytes did not change.
        var overdrawn = 0
        var classes: [HarnessFailureClass] = []
        var problems: [String] = []
    }

    /// Renders the job into its own folder from scratch (first, and again after a failure, so that
    /// each failure is the edit's own).
    mutating func start() throws {
        try? FileManager.default.removeItem(at: output)
        let started = ContinuousClock.now
        _ = try binary.run(HarnessSequence.render, in: directory)
        fullRenderSeconds = Self.seconds(since: started)
    }

    /// Checks an edit written into the job's folder; nil when the re-render refuses the edited job
    /// (exit 65: invalid, and the folder is left as it was).
    mutating func check(_ edit: HarnessEdit, killAt moment: Double?) throws -> Outcome? {
        let before = HarnessFolderComparison.frameHashes(in: output)
        let journals = Self.journals(in: output)
        if let moment {
            let process = try binary.start(HarnessSequence.render, in: directory)
            // Timed from its first frame: the full render ran in this process, without a launch's start-up.
            process.waitUntilRendering()
            usleep(UInt32(min(5, moment * fullRenderSeconds * 1.2) * 1_000_000))
            process.kill()
            _ = process.wait()
        }
        let incremental = try binary.run(HarnessSequence.render, in: directory)
        if incremental.status == 65, incremental.stderr.contains("/\(HarnessJobFolder.jobFile): ") {
            return nil
        }
        try copyJob(to: fresh)
        let started = ContinuousClock.now
        let reference = try binary.run(HarnessSequence.render, in: fresh)
        fullRenderSeconds = Self.seconds(since: started)

        var outcome = Outcome()
        outcome.difference = try HarnessFolderComparison.compare(
            output, fresh.appendingPathComponent(HarnessJobFolder.outputDirectory))
        let after = HarnessFolderComparison.frameHashes(in: output)
        let drawn = Self.newFrames(in: output, since: journals)
        outcome.redrawn = drawn.count
        outcome.overdrawn = drawn.filter { before[$0] != nil && before[$0] == after[$0] }.count

        for (name, result) in [("re-render", incremental), ("fresh render", reference)] where result.status != 0 {
            let error = result.stderr.split(separator: "\n").first { $0.contains("error") || $0.contains("failed") }
            outcome.classes.append(.renderFailed)
            outcome.problems.append("\(name) exited \(result.status): \(error ?? "")")
        }
        let difference = outcome.difference
        if !difference.differentFrames.isEmpty { outcome.classes.append(.staleFrames) }
        if !difference.onlyInFirst.isEmpty || !difference.onlyInSecond.isEmpty { outcome.classes.append(.files) }
        if !difference.incomplete.isEmpty, !outcome.classes.contains(.renderFailed) {
            outcome.classes.append(.incomplete)
        }
        if !difference.isEmpty {
            outcome.problems.append("re-render vs fresh: " + difference.summary)
        }
        let summary = HarnessRerunSummary(stderr: incremental.stderr)
        if edit.expected == .nothing {
            if outcome.redrawn > 0 {
                outcome.classes.append(.noOpRedraw)
                outcome.problems.append("\(outcome.redrawn) frames redrawn: \"\(summary.line)\"")
            }
        } else if let problem = HarnessRerunReason.problem(summary, expected: edit.expected, killed: moment != nil) {
            outcome.classes.append(.reason)
            outcome.problems.append(problem)
        }
        return outcome
    }

    /// Copies the job file and its assets, as they are on disk, into `folder` (emptied first): the
    /// same job in a folder never rendered into, so that its own `out` has the same layout.
    func copyJob(to folder: URL) throws {
        let fileManager = FileManager.default
        try? fileManager.removeItem(at: folder)
        try fileManager.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in try fileManager.contentsOfDirectory(atPath: directory.path).sorted()
        where name != HarnessJobFolder.outputDirectory {
            try fileManager.copyItem(
                at: directory.appendingPathComponent(name), to: folder.appendingPathComponent(name))
        }
    }

    /// The lines of every journal under `folder`, by the journal's path.
    static func journals(in folder: URL) -> [String: [Substring]] {
        var journals: [String: [Substring]] = [:]
        for path in HarnessFolderComparison.files(in: folder)
        where path.hasSuffix(".jsonl")
            && (path.split(separator: "/").last ?? "").hasPrefix("renderfarm.journal")
        {
            let text = (try? String(contentsOf: folder.appendingPathComponent(path), encoding: .utf8)) ?? ""
            journals[path] = text.split(separator: "\n")
        }
        return journals
    }

    /// The frames (paths in `folder`) that journal lines written since `earlier` record.
    static func newFrames(in folder: URL, since earlier: [String: [Substring]]) -> Set<String> {
        var frames: Set<String> = []
        for (path, lines) in journals(in: folder) {
            let prefix = path.split(separator: "/").dropLast().map { $0 + "/" }.joined()
            for line in lines.dropFirst(earlier[path]?.count ?? 0) {
                guard let entry = HarnessJSON.parse(Data(line.utf8)), let file = entry["file"]?.stringValue else {
                    continue
                }
                frames.insert(prefix + file)
            }
        }
        return frames
    }

    static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
}
