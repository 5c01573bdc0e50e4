import EffectKit
import FileOutput
import Foundation
import RenderFarmOutput
import Testing

@testable import RenderFarm

/// `ResumePlan`, the *resume plan* phase (the RenderFarm article RenderPhases): of a run's frames, those
/// an earlier run finished (file present, fingerprint and checksum match) are skipped; of the others, each
/// fingerprint is drawn once, at its first frame, unless a done frame has it; every other frame of that
/// fingerprint is written from the lowest done frame, or else from the one drawn.
@Suite("ResumePlan: which frames a run draws, copies from an equal frame, and skips")
struct ResumePlanTests {
    /// Fingerprints chosen by the test, frame by frame.
    static func fingerprints(_ list: [String]) -> FrameFingerprints {
        FrameFingerprints(job: "job", keyed: Dictionary(uniqueKeysWithValues: list.enumerated().map { ($0, $1) }))
    }

    /// Records frame `index` as done in `folder`: its file and a journal line at `fingerprint`.
    static func done(_ index: Int, fingerprint: String, in folder: TemporaryFolder) throws -> JournalEntry {
        let bytes = Array("frame \(index) at \(fingerprint)".utf8)
        try folder.write(bytes, to: Lines.frameFile(index))
        return Lines.entry(index, fingerprint: fingerprint, holding: bytes)
    }

    @Test("in an empty folder each fingerprint is drawn once, at its first frame; its other frames copy that one")
    func emptyFolder() throws {
        let folder = try TemporaryFolder("plan")
        let job = try LookJob.plan(looks: Array(repeating: 0, count: 6), in: folder)
        let plan = ResumePlan(
            job, fingerprints: Self.fingerprints(["a", "b", "a", "c", "b", "a"]), recorded: folder.recorded)
        #expect(plan.verified.isEmpty)
        #expect(plan.todo == [0, 1, 3])
        #expect(plan.reuses.map(Pair.init) == [Pair(2, 0), Pair(4, 1), Pair(5, 0)])
    }

    @Test("done frames are skipped; frames equal to done ones copy the lowest done frame, even a later one")
    func doneFramesSkippedAndCopied() throws {
        let folder = try TemporaryFolder("plan")
        let job = try LookJob.plan(looks: Array(repeating: 0, count: 6), in: folder)
        let list = ["x", "y", "x", "y", "x", "z"]
        let lines = try [2, 3, 4].map { try Self.done($0, fingerprint: list[$0], in: folder) }
        try Lines.journal(lines, in: folder)
        let plan = ResumePlan(job, fingerprints: Self.fingerprints(list), recorded: folder.recorded)
        #expect(plan.verified == [2: lines[0], 3: lines[1], 4: lines[2]])
        #expect(plan.todo == [5])
        #expect(plan.reuses.map(Pair.init) == [Pair(0, 2), Pair(1, 3)])
    }

    /// Why a frame an earlier run recorded is drawn again.
    enum Redraw: String, CaseIterable, Sendable {
        case neverRecorded, fileRemoved, fileEdited, fingerprintChanged, lineFailed, otherFileName, lineGarbled
    }

    @Test(
        "a frame is drawn again for each reason: no line, file gone or edited, new fingerprint, failed, torn line",
        arguments: Redraw.allCases)
    func redrawReasons(reason: Redraw) throws {
        let folder = try TemporaryFolder("plan")
        let job = try LookJob.plan(looks: Array(repeating: 0, count: 3), in: folder)
        let list = ["a", "b", "c"]
        var lines = try [0, 2].map { try Self.done($0, fingerprint: list[$0], in: folder) }
        let bytes = Array("frame 1".utf8)
        try folder.write(bytes, to: Lines.frameFile(1))
        switch reason {
        case .neverRecorded: break
        case .fileRemoved:
            lines.append(Lines.entry(1, fingerprint: "b", holding: bytes))
            folder.remove(Lines.frameFile(1))
        case .fileEdited:
            lines.append(Lines.entry(1, fingerprint: "b", holding: bytes))
            try folder.write(Array("frame 2".utf8), to: Lines.frameFile(1))
        case .fingerprintChanged: lines.append(Lines.entry(1, fingerprint: "b-before-the-edit", holding: bytes))
        case .lineFailed:
            lines.append(Lines.entry(1, fingerprint: "b", holding: bytes))
            lines.append(Lines.entry(1, fingerprint: "b", status: .failed, error: "boom"))
        case .otherFileName: lines.append(Lines.entry(1, fingerprint: "b", holding: bytes, file: "f_1.png"))
        case .lineGarbled: break
        }
        try Lines.journal(lines, in: folder)
        if reason == .lineGarbled {
            let line = Lines.entry(1, fingerprint: "b", holding: bytes).json.serialized()
            try folder.append(String(line.dropLast(3)), to: FolderLayout.journal(of: .whole))
        }
        let plan = ResumePlan(job, fingerprints: Self.fingerprints(list), recorded: folder.recorded)
        #expect(Set(plan.verified.keys) == [0, 2])
        #expect(plan.todo == [1])
        #expect(plan.reuses.isEmpty)
    }

    @Test("with no records (--force) every frame is planned, though every file is done")
    func forceIgnoresRecords() throws {
        let folder = try TemporaryFolder("plan")
        let job = try LookJob.plan(looks: Array(repeating: 0, count: 4), in: folder)
        let list = ["a", "b", "a", "c"]
        try Lines.journal(try (0..<4).map { try Self.done($0, fingerprint: list[$0], in: folder) }, in: folder)
        #expect(ResumePlan(job, fingerprints: Self.fingerprints(list), recorded: folder.recorded).todo.isEmpty)
        let plan = ResumePlan(job, fingerprints: Self.fingerprints(list), recorded: nil)
        #expect(plan.verified.isEmpty)
        #expect(plan.todo == [0, 1, 3])
        #expect(plan.reuses.map(Pair.init) == [Pair(2, 0)])
    }

    @Test("only the run's frames are planned: --frames leaves the job's other frames alone")
    func onlyTheRunsFrames() throws {
        let folder = try TemporaryFolder("plan")
        let job = try LookJob.plan(looks: Array(repeating: 0, count: 8), in: folder, frames: "2-4,6")
        let list = ["a", "b", "c", "c", "d", "e", "f", "g"]
        try Lines.journal([try Self.done(4, fingerprint: "d", in: folder)], in: folder)
        let plan = ResumePlan(job, fingerprints: Self.fingerprints(list), recorded: folder.recorded)
        #expect(Set(plan.verified.keys) == [4])
        #expect(plan.todo == [2, 6])
        #expect(plan.reuses.map(Pair.init) == [Pair(3, 2)])
    }

    @Test("the reasons a run gives count the frames it plans: changed, never rendered, missing or corrupt")
    func rerunReasonsMatchThePlan() throws {
        let folder = try TemporaryFolder("plan")
        let before = try LookJob.plan(looks: [1, 2, 3, 4, 5, 6], in: folder)
        let fingerprints = before.frameFingerprints
        #expect(Set((0..<6).map { fingerprints[$0] }).count == 6, "six looks, six fingerprints")
        try Lines.journal(
            try (0..<5).map { index in try Self.done(index, fingerprint: fingerprints[index], in: folder) }, in: folder)
        // Frame 2 is edited, frame 3's file is removed, frame 5 was never drawn.
        let after = try LookJob.plan(looks: [1, 2, 9, 4, 5, 6], in: folder)
        let edited = after.frameFingerprints
        #expect((0..<6).filter { edited[$0] != fingerprints[$0] } == [2], "an edited look changes its frame only")
        folder.remove(Lines.frameFile(3))
        let plan = ResumePlan(after, fingerprints: edited, recorded: folder.recorded)
        #expect(plan.todo == [2, 3, 5] && plan.reuses.isEmpty)
        let reason = RerunReason(after)
        #expect(reason.new == 1 && reason.changed == 1 && reason.recorded == 4)
        #expect(
            reason.explain(todo: plan.todo.count + plan.reuses.count) == [
                "1 because the job changed", "1 never rendered", "1 missing or corrupt",
            ])
    }

    /// How a generated frame stands in the folder.
    enum Standing: CaseIterable {
        case never, done, doneAfterOlderLines, removed, edited, olderFingerprint, failed, otherFile
    }

    @Test("400 generated folders: the plan skips exactly the done frames and draws each other fingerprint once")
    func generatedPlans() throws {
        let folder = try TemporaryFolder("plan-gen")
        let count = 10
        var jobs: [String: PlannedJob] = [:]
        var tally = (skipped: 0, drawn: 0, copied: 0, copiedFromDone: 0)
        for round in 0..<400 {
            // Each round from a seed of its own, which a failure names: one round replays alone.
            let seed = 0x5265_7375_6D65_506C + UInt64(round)
            var random = SeededRandom(seed: seed)
            // The run's frames: the job's, or a --frames range of them.
            let first = random.chance(0.7) ? 0 : random.below(count)
            let last = random.chance(0.7) ? count - 1 : first + random.below(count - first)
            let frames = "\(first)-\(last)"
            let job =
                try jobs[frames] ?? LookJob.plan(looks: Array(repeating: 0, count: count), in: folder, frames: frames)
            jobs[frames] = job
            let alphabet = 1 + random.below(6)
            let list = (0..<count).map { _ in "fp-\(random.below(alphabet))" }
            var groups: [[JournalEntry]] = []
            var standing: [Int: Standing] = [:]
            for index in 0..<count {
                let state = random.pick(Standing.allCases)
                standing[index] = state
                var lines: [JournalEntry] = []
                defer { groups.append(lines) }
                let bytes = Array("frame \(index) round \(round)".utf8)
                let line = Lines.entry(index, fingerprint: list[index], holding: bytes)
                try folder.place(state == .never || state == .removed ? nil : bytes, at: Lines.frameFile(index))
                switch state {
                case .never: break
                case .done, .removed: lines.append(line)
                case .doneAfterOlderLines:
                    lines.append(Lines.entry(index, fingerprint: "fp-older", holding: [1]))
                    lines.append(Lines.entry(index, fingerprint: list[index], status: .failed, error: "boom"))
                    lines.append(line)
                case .edited:
                    lines.append(line)
                    try folder.write(bytes + [0], to: Lines.frameFile(index))
                case .olderFingerprint: lines.append(Lines.entry(index, fingerprint: "fp-older", holding: bytes))
                case .failed:
                    lines.append(line)
                    lines.append(Lines.entry(index, fingerprint: list[index], status: .failed, error: "boom"))
                case .otherFile:
                    lines.append(Lines.entry(index, fingerprint: list[index], holding: bytes, file: "f.png"))
                }
            }
            // Written whole, as `Journal.append` writes each line (JournalTests): the folder's files are rewritten
            // from round to round rather than made anew.
            let text = random.interleaving(groups).map { $0.json.serialized() + "\n" }.joined()
            try folder.place(Array(text.utf8), at: FolderLayout.journal(of: .whole))
            let force = random.chance(0.15)
            let plan = ResumePlan(job, fingerprints: Self.fingerprints(list), recorded: force ? nil : folder.recorded)

            // The model: done by construction; each other fingerprint is drawn at its first frame unless a
            // done frame has it, and its other frames copy the lowest done frame, else the drawn one.
            let run = job.frames.frames
            #expect(run == Array(first...last))
            let done = force ? [] : run.filter { standing[$0] == .done || standing[$0] == .doneAfterOlderLines }
            let open = run.filter { !done.contains($0) }
            var expectedTodo: [Int] = []
            var expectedReuses: [Pair] = []
            for index in open {
                if let source = done.first(where: { list[$0] == list[index] }) {
                    expectedReuses.append(Pair(index, source))
                } else if let source = open.first(where: { list[$0] == list[index] }), source != index {
                    expectedReuses.append(Pair(index, source))
                } else {
                    expectedTodo.append(index)
                }
            }
            #expect(plan.verified.keys.sorted() == done, "seed \(seed)")
            #expect(plan.todo == expectedTodo, "seed \(seed)")
            #expect(plan.reuses.map(Pair.init) == expectedReuses, "seed \(seed)")
            tally.skipped += done.count
            tally.drawn += expectedTodo.count
            tally.copied += expectedReuses.count
            tally.copiedFromDone += expectedReuses.filter { done.contains($0.source) }.count
            if plan.todo != expectedTodo || plan.verified.count != done.count { break }
        }
        #expect(
            tally.skipped > 500 && tally.drawn > 500 && tally.copied > 500 && tally.copiedFromDone > 100,
            "the generator reaches every kind of frame: \(tally)")
    }
}

/// A reused frame and its source, comparable.
struct Pair: Equatable, CustomStringConvertible {
    var frame: Int
    var source: Int
    init(_ frame: Int, _ source: Int) { (self.frame, self.source) = (frame, source) }
    init(_ reuse: (frame: Int, source: Int)) { (frame, source) = reuse }
    var description: String { "\(frame)←\(source)" }
}

extension TemporaryFolder {
    /// The folder's journals, read now.
    var recorded: RecordedFrames { RecordedFrames(directory: path) }
}

extension SeededRandom {
    /// The items of `groups` in a random order that keeps the order within each group (the lines of
    /// frames drawn side by side).
    mutating func interleaving<T>(_ groups: [[T]]) -> [T] {
        var rest = groups.map { $0[...] }.filter { !$0.isEmpty }
        var merged: [T] = []
        while !rest.isEmpty {
            let group = below(rest.count)
            if let item = rest[group].popFirst() { merged.append(item) }
            if rest[group].isEmpty { rest.remove(at: group) }
        }
        return merged
    }
}
