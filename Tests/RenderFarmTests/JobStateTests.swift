import EffectKit
import FileOutput
import Foundation
import RenderFarmOutput
import StrictJSON
import Testing

@testable import RenderFarm
@testable import RenderFarmJobs

/// `JobState`, one job during the *execute* and *finish* phases (the RenderFarm article RenderPhases):
/// it plans the resume, records every frame's result in the journal as it finishes (drawn, failed, or
/// written from a frame that draws the same), and writes the manifest and summary from the verified
/// earlier frames and this run's. The tests drive it as `RenderSession` does, with `StubDrawer` drawing.
@Suite("JobState: a run's frames recorded, reused from equal frames, and summed up in the manifest")
struct JobStateTests {
    /// What became of one frame of a run.
    enum Outcome: Equatable {
        case written(JournalEntry)
        case failed(JournalEntry)
        case fatal(String)
        case interrupted

        init(_ outcome: FrameOutcome) {
            switch outcome {
            case .written(let entry, _): self = .written(entry)
            case .failed(let entry): self = .failed(entry)
            case .fatal(let error): self = .fatal(error.description)
            case .interrupted: self = .interrupted
            }
        }

        var entry: JournalEntry? {
            switch self {
            case .written(let entry), .failed(let entry): entry
            case .fatal, .interrupted: nil
            }
        }
    }

    /// What one run of a job through `JobState` did.
    struct Run {
        var todo: [Int]
        var reuses: [Pair]
        var skipped: Int
        /// The frames the drawer was asked for, every attempt.
        var attempts: [Int]
        /// The outcome of each frame drawn or reused, in the order they were.
        var outcomes: [(frame: Int, outcome: Outcome)]
        /// `manifest.json` after `JobState.init`, before the first frame.
        var manifestBeforeFrames: [UInt8]?
        var summary: JobSummary
        /// The fingerprint of each frame of the run.
        var fingerprints: FrameFingerprints

        func outcome(_ frame: Int) -> Outcome? { outcomes.first { $0.frame == frame }?.outcome }
    }

    static let startOfRun = Date(timeIntervalSince1970: 1_900_000_000)

    /// Runs the job of `looks` in `folder` as `RenderSession` does: `JobState.init` plans it and writes the
    /// records before any frame, every frame of `todo` is drawn by a `StubDrawer` (set up by `drawer`) with
    /// retries, then every reuse is written, and `finish` writes the manifest. An interrupted frame or a
    /// fatal error stops the run's other frames, as the render's stop signal does.
    static func run(
        looks: [Int], in folder: TemporaryFolder, force: Bool = false, shard: Shard = .whole, frames: String? = nil,
        retries: Int = 1, output: String = "", jobFrames: String? = nil, drawer: (StubDrawer) -> Void = { _ in }
    ) throws -> Run {
        let job = try LookJob.plan(
            looks: looks, in: folder, frames: frames, shard: shard, retries: retries, output: output,
            jobFrames: jobFrames)
        let options = RenderOptions(
            concurrency: 1, force: force, shard: shard, clock: ManualClock(date: startOfRun))
        let state = try JobState(job: job, options: options, session: try job.folder.open(shard: shard, task: "test"))
        let manifest = folder.bytes(Manifest.fileName)
        let stub = StubDrawer(looks: looks)
        drawer(stub)
        var outcomes: [(frame: Int, outcome: Outcome)] = []
        var stopped = false
        for frame in state.todo where !stopped {
            let outcome = Outcome(state.renderWithRetries(frame, worker: stub))
            outcomes.append((frame, outcome))
            if case .written = outcome { continue }
            if case .failed = outcome { continue }
            stopped = true
        }
        for reuse in state.reuses where !stopped {
            outcomes.append((reuse.frame, Outcome(state.reuse(reuse.frame, from: reuse.source))))
        }
        return Run(
            todo: state.todo, reuses: state.reuses.map(Pair.init), skipped: state.skipped, attempts: stub.attempts,
            outcomes: outcomes, manifestBeforeFrames: manifest, summary: try state.finish(),
            fingerprints: job.frameFingerprints)
    }

    /// `manifest.json` of `folder`, parsed.
    static func manifest(_ folder: TemporaryFolder) throws -> JSONObject {
        let bytes = try #require(folder.bytes(Manifest.fileName))
        return try #require(try JSONParser.parse(bytes).objectValue)
    }

    /// The manifest's frames by index.
    static func manifestFrames(_ manifest: JSONObject) throws -> [Int: JSONObject] {
        var frames: [Int: JSONObject] = [:]
        for frame in try #require(manifest["frames"]?.arrayValue) {
            let object = try #require(frame.objectValue)
            frames[Int(try #require(object["index"]?.doubleValue))] = object
        }
        return frames
    }

    static var journal: String { FolderLayout.journal(of: .whole) }

    @Test("a first run draws each look once, copies its other frames, journals all, and completes the manifest")
    func firstRun() throws {
        let folder = try TemporaryFolder("jobstate")
        let looks = [1, 2, 1, 3, 2, 1]
        let run = try Self.run(looks: looks, in: folder)
        #expect(run.todo == [0, 1, 3] && run.reuses == [Pair(2, 0), Pair(4, 1), Pair(5, 0)] && run.skipped == 0)
        #expect(run.attempts == [0, 1, 3])

        let rendering = try #require(run.manifestBeforeFrames)
        let before = try #require(try JSONParser.parse(rendering).objectValue)
        #expect(before["state"] == .string("rendering") && before["complete"] == .bool(false))
        #expect(before["frameCount"] == .number(6) && before["frames"] == nil)

        let recorded = Journal.read(path: folder.file(Self.journal))
        for (index, look) in looks.enumerated() {
            let bytes = LookJob.bytes(look: look)
            #expect(folder.bytes(Lines.frameFile(index)) == bytes, "frame \(index)'s file")
            let entry = try #require(recorded[index])
            let source = run.reuses.first { $0.frame == index }?.source
            #expect(
                entry.status == .ok && entry.sha256 == Lines.hex(bytes) && entry.bytes == bytes.count
                    && entry.fingerprint == run.fingerprints[index] && entry.file == Lines.frameFile(index)
                    && entry.time == Double(index) && entry.finishedAt == Self.startOfRun.timeIntervalSince1970,
                "frame \(index): \(entry)")
            #expect(entry.reusedFrom == source && entry.attempts == (source == nil ? 1 : 0), "frame \(index)")
            #expect(run.outcome(index) == .written(entry))
        }
        #expect(folder.bytes(Self.journal)?.filter { $0 == UInt8(ascii: "\n") }.count == 6, "one line per frame")

        let manifest = try Self.manifest(folder)
        #expect(manifest["state"] == .string("complete") && manifest["complete"] == .bool(true))
        #expect(manifest["missing"] == .string("") && manifest["failed"] == .string(""))
        let frames = try Self.manifestFrames(manifest)
        #expect(frames.keys.sorted() == Array(0..<6))
        for (index, frame) in frames {
            #expect(frame["sha256"] == .string(recorded[index]?.sha256 ?? "-") && frame["status"] == .string("ok"))
            #expect(frame["reusedFrom"] == recorded[index]?.reusedFrom.map { .number(Double($0)) })
        }
        let summary = run.summary
        #expect(summary.requested == 6 && summary.rendered == 3 && summary.reused == 3 && summary.skipped == 0)
        #expect(summary.failed.isEmpty && summary.missing.isEmpty && summary.complete)
    }

    @Test("a second run of the same job skips every frame, appends nothing, and leaves the manifest byte-identical")
    func secondRunSkipsEverything() throws {
        let folder = try TemporaryFolder("jobstate")
        let looks = [1, 2, 1, 3, 2, 1]
        _ = try Self.run(looks: looks, in: folder)
        let journal = folder.bytes(Self.journal)
        let manifest = folder.bytes(Manifest.fileName)
        let run = try Self.run(looks: looks, in: folder)
        #expect(run.todo.isEmpty && run.reuses.isEmpty && run.skipped == 6 && run.attempts.isEmpty)
        #expect(run.manifestBeforeFrames == manifest, "nothing to draw: no rendering manifest in between")
        #expect(folder.bytes(Self.journal) == journal)
        #expect(folder.bytes(Manifest.fileName) == manifest)
        #expect(
            run.summary.rendered == 0 && run.summary.reused == 0 && run.summary.skipped == 6 && run.summary.complete)
    }

    @Test("an edited look redraws only the frames it changes; a frame now equal to a done frame is copied from it")
    func editRedrawsChangedFrames() throws {
        let folder = try TemporaryFolder("jobstate")
        _ = try Self.run(looks: [1, 2, 1, 3, 2, 1], in: folder)
        let before = (0..<6).map { folder.bytes(Lines.frameFile($0)) }
        let run = try Self.run(looks: [1, 2, 1, 4, 2, 2], in: folder)
        #expect(run.todo == [3] && run.reuses == [Pair(5, 1)] && run.skipped == 4 && run.attempts == [3])
        #expect(folder.bytes(Lines.frameFile(3)) == LookJob.bytes(look: 4))
        #expect(folder.bytes(Lines.frameFile(5)) == LookJob.bytes(look: 2))
        for index in [0, 1, 2, 4] { #expect(folder.bytes(Lines.frameFile(index)) == before[index], "frame \(index)") }
        let frames = try Self.manifestFrames(try Self.manifest(folder))
        #expect(
            frames[5]?["reusedFrom"] == .number(1) && frames[5]?["sha256"] == .string(Lines.hex(LookJob.bytes(look: 2)))
        )
        #expect(
            run.summary.rendered == 1 && run.summary.reused == 1 && run.summary.skipped == 4 && run.summary.complete)
    }

    @Test("a removed or edited frame is written again: copied from a done frame that draws the same, else drawn")
    func damagedFramesWrittenAgain() throws {
        let folder = try TemporaryFolder("jobstate")
        _ = try Self.run(looks: [1, 2, 1, 3, 2, 1], in: folder)
        folder.remove(Lines.frameFile(0))
        try folder.write(Array("edited".utf8), to: Lines.frameFile(3))
        let run = try Self.run(looks: [1, 2, 1, 3, 2, 1], in: folder)
        #expect(run.todo == [3] && run.reuses == [Pair(0, 2)] && run.skipped == 4 && run.attempts == [3])
        #expect(folder.bytes(Lines.frameFile(0)) == LookJob.bytes(look: 1))
        #expect(folder.bytes(Lines.frameFile(3)) == LookJob.bytes(look: 3))
        #expect(Journal.read(path: folder.file(Self.journal))[0]?.reusedFrom == 2)
        #expect(run.summary.complete)
    }

    @Test("a frame failing its retries is journaled with its error, its copies fail naming it, the next run completes")
    func failedFrames() throws {
        let folder = try TemporaryFolder("jobstate")
        let looks = [1, 2, 1, 3, 2, 1]
        let run = try Self.run(looks: looks, in: folder) { $0.failing = [1] }
        #expect(run.attempts == [0, 0, 1, 3], "frame 0 tried twice (retries: 1)")
        let recorded = Journal.read(path: folder.file(Self.journal))
        let failure = try #require(recorded[0])
        #expect(failure.status == .failed && failure.attempts == 2 && failure.sha256 == "" && failure.bytes == 0)
        #expect(failure.error == "layer 0 (test-resume-look): cannot draw look 1")
        #expect(run.outcome(0) == .failed(failure))
        for index in [2, 5] {
            let copy = try #require(recorded[index])
            #expect(copy.status == .failed && copy.reusedFrom == 0 && copy.attempts == 0)
            #expect(
                copy.error == "draws the same as frame 0, which failed: layer 0 (test-resume-look): cannot draw look 1")
            #expect(folder.bytes(Lines.frameFile(index)) == nil, "no file for a failed frame")
        }
        #expect(run.summary.failed == [0, 2, 5] && run.summary.missing == [0, 2, 5])
        #expect(run.summary.rendered == 2 && run.summary.reused == 1 && !run.summary.complete)
        let manifest = try Self.manifest(folder)
        #expect(manifest["state"] == .string("failed") && manifest["complete"] == .bool(false))
        #expect(manifest["failed"] == .string(FrameSet.compress([0, 2, 5])))
        #expect(try Self.manifestFrames(manifest)[2]?["status"] == .string("failed"))

        let again = try Self.run(looks: looks, in: folder)
        #expect(again.todo == [0] && again.reuses == [Pair(2, 0), Pair(5, 0)] && again.skipped == 3)
        #expect(again.summary.complete && again.summary.failed.isEmpty)
        #expect(try Self.manifest(folder)["state"] == .string("complete"))
    }

    @Test("a frame is tried as often as the job's retries allow; attempts are journaled")
    func retries() throws {
        let folder = try TemporaryFolder("jobstate")
        let run = try Self.run(looks: [1, 2, 3], in: folder, retries: 2) { $0.flaky = [0: 2, 1: 3] }
        #expect(run.attempts == [0, 0, 0, 1, 1, 1, 2])
        let recorded = Journal.read(path: folder.file(Self.journal))
        #expect(recorded[0]?.status == .ok && recorded[0]?.attempts == 3)
        #expect(
            recorded[1]?.status == .failed && recorded[1]?.attempts == 3
                && recorded[1]?.error?.contains("flaked") == true)
        #expect(recorded[2]?.status == .ok && recorded[2]?.attempts == 1)
    }

    @Test("an interrupted frame and a frame whose output fails are neither retried nor journaled")
    func interruptedAndFatal() throws {
        let folder = try TemporaryFolder("jobstate")
        let interrupted = try Self.run(looks: [1, 2, 3], in: folder) { $0.interrupted = [1] }
        #expect(interrupted.attempts == [0, 1] && interrupted.outcome(1) == .interrupted)
        #expect(Journal.read(path: folder.file(Self.journal)).keys.sorted() == [0])
        #expect(interrupted.summary.missing == [1, 2] && interrupted.summary.failed.isEmpty)
        #expect(try Self.manifest(folder)["state"] == .string("incomplete"))

        let full = try Self.run(looks: [1, 2, 3], in: folder) { $0.outputFailure = [1] }
        #expect(full.todo == [1, 2] && full.attempts == [1])
        guard case .fatal(let message) = full.outcome(1) else {
            Issue.record("expected a fatal outcome, got \(String(describing: full.outcome(1)))")
            return
        }
        #expect(message.contains("No space left on device"))
        #expect(Journal.read(path: folder.file(Self.journal)).keys.sorted() == [0])
    }

    @Test("a link planted where a frame goes stops the frame before it is drawn; the file it leads to is untouched")
    func linkWhereAFrameGoes() throws {
        let folder = try TemporaryFolder("jobstate")
        let elsewhere = try TemporaryFolder("jobstate-elsewhere")
        try elsewhere.write(Array("precious".utf8), to: "precious.png")
        try FileManager.default.createSymbolicLink(
            atPath: folder.file(Lines.frameFile(1)), withDestinationPath: elsewhere.file("precious.png"))
        let run = try Self.run(looks: [1, 2, 3], in: folder)
        #expect(run.attempts == [0], "frame 1 was never drawn")
        guard case .fatal(let message) = run.outcome(1) else {
            Issue.record("expected a fatal outcome, got \(String(describing: run.outcome(1)))")
            return
        }
        #expect(message.contains("symbolic link"))
        #expect(elsewhere.bytes("precious.png") == Array("precious".utf8))
        #expect(Journal.read(path: folder.file(Self.journal))[1] == nil)
    }

    @Test("--force draws every frame again and starts the journal afresh")
    func force() throws {
        let folder = try TemporaryFolder("jobstate")
        _ = try Self.run(looks: [1, 2, 1, 3], in: folder)
        _ = try Self.run(looks: [1, 2, 1, 5], in: folder)
        #expect(folder.bytes(Self.journal)?.filter { $0 == UInt8(ascii: "\n") }.count == 5)
        let run = try Self.run(looks: [1, 2, 1, 5], in: folder, force: true)
        #expect(run.todo == [0, 1, 3] && run.reuses == [Pair(2, 0)] && run.skipped == 0 && run.attempts == [0, 1, 3])
        #expect(folder.bytes(Self.journal)?.filter { $0 == UInt8(ascii: "\n") }.count == 4, "the old lines are gone")
        #expect(run.summary.rendered == 3 && run.summary.reused == 1 && run.summary.complete)
    }

    @Test("frames an earlier render recorded past a shortened job's end are removed; files no journal names stay")
    func framesPastTheEndRemoved() throws {
        let folder = try TemporaryFolder("jobstate")
        _ = try Self.run(looks: [1, 2, 3, 4, 5, 6], in: folder)
        try folder.write(Array("mine".utf8), to: "notes.txt")
        try folder.write(Array("mine".utf8), to: Lines.frameFile(99))
        let shorter = try Self.run(looks: [1, 2, 3, 4], in: folder)
        #expect(shorter.skipped == 4 && shorter.todo.isEmpty, "the looks of frames 0-3 are the same")
        let frames = (0..<6).map { folder.bytes(Lines.frameFile($0)) != nil }
        #expect(frames == [true, true, true, true, false, false], "frames 4 and 5 are past the job's end")
        #expect(folder.bytes("notes.txt") != nil && folder.bytes(Lines.frameFile(99)) != nil)

        let renamed = try Self.run(looks: [1, 2, 3, 4], in: folder, output: #""prefix": "f_""#)
        #expect(renamed.todo == [0, 1, 2, 3], "another prefix: other files, other fingerprints")
        #expect((0..<6).allSatisfy { folder.bytes(Lines.frameFile($0)) == nil }, "no recorded frame_ file is left")
        #expect(
            folder.names.filter { $0.hasPrefix("f_") } == ["f_00000.png", "f_00001.png", "f_00002.png", "f_00003.png"])
        #expect(folder.bytes(Lines.frameFile(99)) != nil && folder.bytes("notes.txt") != nil)
    }

    /// The OutputFolder article: "`--frames` and `--shard` do not count: they ask for part of the job's frames,
    /// whose other files stay". `PlannedJob.jobFrames` is the frame set after `--frames` (only sharding keeps
    /// the larger set), so `JobState.init` removes the job's other frames, though their lines say they are done.
    @Test("a --frames run keeps the job's other frames")
    func partialRunKeepsOtherFrames() throws {
        let folder = try TemporaryFolder("jobstate")
        _ = try Self.run(looks: [1, 2, 3, 4], in: folder)
        let all = [1, 2, 3, 4].map { Optional(LookJob.bytes(look: $0)) }
        let shard = try Self.run(looks: [1, 2, 3, 4], in: folder, shard: .part(index: 1, count: 2, interleaved: true))
        #expect(shard.todo.isEmpty && shard.skipped == 2, "frames 1 and 3 are done")
        #expect((0..<4).map { folder.bytes(Lines.frameFile($0)) } == all, "a shard keeps the job's other frames")
        let partial = try Self.run(looks: [1, 2, 3, 4], in: folder, frames: "0-1")
        #expect(partial.skipped == 2 && partial.todo.isEmpty)
        #expect((0..<4).map { folder.bytes(Lines.frameFile($0)) } == all, "a --frames run keeps the job's other frames")
    }

    @Test("every shard of a --frames render keeps what the others drew, also frames outside the job's own frames")
    func shardsOfFramesOutsideTheJobsFrames() throws {
        let folder = try TemporaryFolder("jobstate")
        let looks = [1, 2, 3, 4]
        // The job's own frames are 0 and 2; `--frames 0-3` asks for 1 and 3 too, one frame per shard.
        for index in 0..<4 {
            let part = Shard.part(index: index, count: 4, interleaved: false)
            let run = try Self.run(looks: looks, in: folder, shard: part, frames: "0-3", jobFrames: "0-3:2")
            #expect(run.todo == [index], "shard \(index)")
        }
        #expect((0..<4).map { folder.bytes(Lines.frameFile($0)) } == looks.map { Optional(LookJob.bytes(look: $0)) })
    }

    @Test("a shard journals in its own journal, removes a manifest its frames make stale, and writes none")
    func shard() throws {
        let folder = try TemporaryFolder("jobstate")
        _ = try Self.run(looks: [1, 2, 3, 4], in: folder)
        let whole = folder.bytes(Self.journal)
        let part = Shard.part(index: 0, count: 2, interleaved: false)
        let run = try Self.run(looks: [5, 6, 3, 4], in: folder, shard: part)
        #expect(run.todo == [0, 1] && run.summary.requested == 2 && run.attempts == [0, 1])
        #expect(run.manifestBeforeFrames == nil && folder.bytes(Manifest.fileName) == nil)
        #expect(folder.bytes(Self.journal) == whole, "the whole run's journal is untouched")
        let own = Journal.read(path: folder.file(FolderLayout.journal(of: part)))
        #expect(own.keys.sorted() == [0, 1] && own[0]?.sha256 == Lines.hex(LookJob.bytes(look: 5)))
    }

    @Test("with output.duplicates link a frame that draws the same is a hard link to its source")
    func duplicatesAsLinks() throws {
        let folder = try TemporaryFolder("jobstate")
        let run = try Self.run(looks: [1, 2, 1], in: folder, output: #""duplicates": "link""#)
        #expect(run.reuses == [Pair(2, 0)])
        var first = stat()
        var copy = stat()
        try #require(
            stat(folder.file(Lines.frameFile(0)), &first) == 0 && stat(folder.file(Lines.frameFile(2)), &copy) == 0)
        #expect(first.st_ino == copy.st_ino && first.st_nlink == 2)
        #expect(folder.bytes(Lines.frameFile(2)) == LookJob.bytes(look: 1))
    }

    @Test("30 generated sequences of 6 runs (edits, damage, failures, stops, --force) do what a model says")
    func generatedRuns() throws {
        var tally = (runs: 0, drawn: 0, copied: 0, skipped: 0, failed: 0)
        for sequence in 0..<30 {
            // Each sequence from a seed of its own, which a failure names: one sequence replays alone.
            let seed = 0x4A6F_6253_7461_7465 + UInt64(sequence)
            var random = SeededRandom(seed: seed)
            let folder = try TemporaryFolder("jobstate-gen")
            let count = 2 + random.below(9)
            var looks = (0..<count).map { _ in random.below(4) }
            // The model of the folder: the look whose bytes frame i's file holds and a journal records as done.
            var done: [Int: Int] = [:]
            for step in 0..<6 {
                let place = "seed \(seed), run \(step)"
                for _ in 0..<random.below(3) { looks[random.below(count)] = random.below(5) }
                for _ in 0..<random.below(3) {
                    let index = random.below(count)
                    folder.remove(Lines.frameFile(index))
                    if random.chance(0.5) { try folder.write(Array("damaged".utf8), to: Lines.frameFile(index)) }
                    done[index] = nil
                }
                let failing: Set<Int> = random.chance(0.3) ? [random.below(5)] : []
                let interrupted: Set<Int> = random.chance(0.1) ? [random.below(count)] : []
                let force = random.chance(0.1)

                // The plan the model expects.
                if force { done = [:] }
                let skipped = (0..<count).filter { done[$0] == looks[$0] }
                var todo: [Int] = []
                var reuses: [Pair] = []
                for index in 0..<count where !skipped.contains(index) {
                    if let source = skipped.first(where: { looks[$0] == looks[index] })
                        ?? todo.first(where: { looks[$0] == looks[index] })
                    {
                        reuses.append(Pair(index, source))
                    } else {
                        todo.append(index)
                    }
                }
                // What the model expects of each frame: drawn and reused frames in order, up to an interruption.
                var results: [Int: Bool] = [:]
                for index in todo {
                    if interrupted.contains(index) { break }
                    results[index] = !failing.contains(looks[index])
                }
                if !todo.contains(where: interrupted.contains) {
                    for reuse in reuses {
                        results[reuse.frame] = skipped.contains(reuse.source) || results[reuse.source] == true
                    }
                }

                let run = try Self.run(looks: looks, in: folder, force: force) { stub in
                    stub.failing = failing
                    stub.interrupted = interrupted
                }
                #expect(run.todo == todo && run.reuses == reuses && run.skipped == skipped.count, "\(place)")
                for (index, ok) in results { done[index] = ok ? looks[index] : nil }

                let failed = results.filter { !$0.value }.keys.sorted()
                let missing = (0..<count).filter { done[$0] != looks[$0] }
                #expect(run.summary.failed == failed && run.summary.missing == missing, "\(place)")
                #expect(run.summary.skipped == skipped.count, "\(place)")
                #expect(run.summary.rendered == todo.filter { results[$0] == true }.count, "\(place)")
                #expect(run.summary.reused == reuses.filter { results[$0.frame] == true }.count, "\(place)")
                let recorded = Journal.read(path: folder.file(Self.journal))
                for (index, look) in done {
                    #expect(
                        folder.bytes(Lines.frameFile(index)) == LookJob.bytes(look: look), "\(place), frame \(index)")
                    #expect(recorded[index]?.sha256 == Lines.hex(LookJob.bytes(look: look)), "\(place), frame \(index)")
                }
                for index in failed { #expect(recorded[index]?.status == .failed, "\(place), frame \(index)") }
                let manifest = try Self.manifest(folder)
                #expect(manifest["complete"] == .bool(missing.isEmpty), "\(place)")
                let listed = try Self.manifestFrames(manifest)
                for index in 0..<count where done[index] == looks[index] {
                    #expect(listed[index]?["status"] == .string("ok"), "\(place), frame \(index)")
                }
                tally.runs += 1
                tally.drawn += run.summary.rendered
                tally.copied += run.summary.reused
                tally.skipped += run.summary.skipped
                tally.failed += failed.count
            }
        }
        #expect(
            tally.drawn > 150 && tally.copied > 150 && tally.skipped > 350 && tally.failed > 15,
            "the generator reaches every kind of frame: \(tally)")
    }
}
