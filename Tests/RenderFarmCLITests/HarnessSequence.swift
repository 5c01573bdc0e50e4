import Foundation

/// One sequence of the incremental harness: a generated job, rendered, then edited again and again;
/// after every edit the re-render into the job's folder must equal a fresh render of the edited job.
struct HarnessSequence {
    let seed: UInt64
    let edits: Int
    let setup: HarnessSetup
    let tally: HarnessTally
    /// The share of edits whose re-render is killed (SIGKILL) at a random moment, then resumed.
    let killRate: Double

    static let render = ["render", HarnessJobFolder.jobFile, "--progress", "plain"]
    /// RENDERFARM_INCREMENTAL_VERBOSE=1 prints every edit and how long its check took.
    static let verbose = ProcessInfo.processInfo.environment["RENDERFARM_INCREMENTAL_VERBOSE"] == "1"

    /// RENDERFARM_INCREMENTAL_KEEP=DIR keeps each sequence's folders in DIR/seed-S (to look into a replay).
    static let keep = ProcessInfo.processInfo.environment["RENDERFARM_INCREMENTAL_KEEP"].flatMap {
        $0.isEmpty ? nil : $0
    }

    func run() throws {
        let temporary = try TemporaryFolder()
        let root = Self.keep.map { URL(fileURLWithPath: $0).appendingPathComponent("seed-\(seed)") } ?? temporary.url
        try? FileManager.default.removeItem(at: root)
        let binary = try HarnessBinary.copy(into: root.appendingPathComponent("bin"))
        let directory = root.appendingPathComponent("job")
        var random = FuzzRandom(seed: seed)
        let generated = ContinuousClock.now
        guard var folder = try setup.validJob(in: directory, binary: binary, random: &random) else {
            tally.sequenceDone(generated: false, seed: seed)
            return
        }
        let editor = HarnessEditor(generator: setup.generator)
        let writer = HarnessEditWriter(directory: directory, binary: binary)
        var oracle = HarnessOracle(directory: directory, fresh: root.appendingPathComponent("fresh"), binary: binary)
        try oracle.start()
        if Self.verbose {
            report(
                "seed \(seed): job generated and rendered in "
                    + String(format: "%.2f s: ", HarnessOracle.seconds(since: generated)) + folder.job.text)
        }
        for number in 1...max(1, edits) {
            try step(number, folder: &folder, editor: editor, writer: writer, oracle: &oracle, random: &random)
        }
        tally.sequenceDone(generated: true, seed: seed)
    }

    /// Draws edits until one is accepted (the re-render refuses an invalid job before it writes
    /// anything, and the edit is undone and counted), then checks it with the oracle.
    private func step(
        _ number: Int, folder: inout HarnessJobFolder, editor: HarnessEditor, writer: HarnessEditWriter,
        oracle: inout HarnessOracle, random: inout FuzzRandom
    ) throws {
        for _ in 0..<10 {
            let kind = editor.kind(random: &random)
            guard let edit = try editor.edit(kind, of: folder, random: &random) else { continue }
            let kill = random.chance(killRate)
            let moment = random.unit()
            let saved = try writer.apply(edit, over: folder)
            let started = ContinuousClock.now
            guard let outcome = try oracle.check(edit, killAt: kill ? moment : nil) else {
                try writer.revert(saved)
                tally.refused(edit.kind, edit.label)
                continue
            }
            if Self.verbose {
                report(
                    "seed \(seed) edit \(number) [\(edit.kind.rawValue): \(edit.label)] \(edit.description): "
                        + String(format: "%.2f s", HarnessOracle.seconds(since: started)) + (kill ? ", killed" : ""))
            }
            folder = edit.folder
            var failure: HarnessFailure?
            if !outcome.classes.isEmpty {
                failure = HarnessFailure(
                    seed: seed, edit: number, kind: edit.kind, label: edit.label, classes: outcome.classes,
                    description: edit.description, problem: outcome.problems.joined(separator: "; "), killed: kill)
            }
            tally.record(
                edit, frames: outcome.difference.framesCompared, redrawn: outcome.redrawn, overdrawn: outcome.overdrawn,
                stale: outcome.difference.differentFrames.count, killed: kill, failure: failure)
            if failure != nil { try oracle.start() }
            return
        }
    }
}
