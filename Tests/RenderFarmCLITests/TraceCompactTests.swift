import Foundation
import Testing

/// Issue 12, item 8: `trace --compact` and `--items`; the default output is unchanged. Issue 43: a plan
/// again where its layer's matrix changes.
@Suite("trace --compact and --items")
struct TraceCompactTests {
    @Test("compact: each plan once, positions within 1e-4 pt of the full trace, much smaller")
    func compact() throws {
        let full = CLI.run(["trace", "jobs/live-hearts.json", "--frames", "0-239"])
        let compact = CLI.run(["trace", "jobs/live-hearts.json", "--frames", "0-239", "--compact"])
        try #require(full.status == 0 && compact.status == 0)
        #expect(compact.stdout.utf8.count * 3 < full.stdout.utf8.count, "\(compact.stdout.utf8.count)")
        let fullLines = try Trace.decode(full.stdout)
        let compactLines = try Trace.decode(compact.stdout)
        try #require(fullLines.count == compactLines.count)
        var seen: Set<Int> = []
        for (long, short) in zip(fullLines, compactLines) {
            let longItems = long.items()
            let shortItems = short.items()
            try #require(longItems.map(\.id) == shortItems.map(\.id))
            for (a, b) in zip(longItems, shortItems) {
                #expect(!a.plan.isEmpty, "the default output keeps every plan")
                #expect(b.plan.isEmpty == seen.contains(b.id), "item \(b.id) at frame \(short.frame)")
                seen.insert(b.id)
                #expect(abs(a.x - b.x) <= 0.5e-4 + 1e-9 && abs(a.y - b.y) <= 0.5e-4 + 1e-9)
            }
        }
        // No number carries more than 4 decimals.
        #expect(compact.stdout.range(of: #"\.\d{5,}"#, options: .regularExpression) == nil)
    }

    @Test("compact under a keyframed transform: the plan again when the layer's matrix changes, its path moved")
    func compactMovingLayer() throws {
        let folder = try TemporaryFolder()
        let job = try folder.write(
            TracePlacementTests.dropJob(
                fields: #""transform": {"position": {"keyframes": [{"t": 0, "value": [100, 100]}, "#
                    + #"{"t": 0.5, "value": [130, 90]}]}}"#),
            to: "moving.json")
        let full = try Trace.decode(CLI.run(["trace", job, "--frames", "0-9"]).stdout)
        let compact = try Trace.decode(CLI.run(["trace", job, "--frames", "0-9", "--compact"]).stdout)
        try #require(full.count == 10 && compact.count == 10)
        for (long, short) in zip(full, compact) {
            let (a, b) = (long.items()[0], short.items()[0])
            // The layer moves until 0.5 s (frame 5), then stands: a plan on frames 0 to 5 only.
            #expect(b.plan.isEmpty == (short.frame > 5), "frame \(short.frame)")
            #expect(zip(a.path, b.path).allSatisfy { abs($0.x - $1.x) <= 0.5e-4 + 1e-9 })
            #expect(short.matrices[0]?.count == 6 && abs(a.x - b.x) <= 0.5e-4 + 1e-9)
        }
    }

    @Test("--items keeps only the given ids; a bad list exits 64")
    func items() throws {
        let lines = try Trace.decode(CLI.run(["trace", "jobs/bounce.json", "--items", "1,3"]).stdout)
        #expect(!lines.isEmpty)
        #expect(lines.allSatisfy { Set($0.items().map(\.id)) == [1, 3] })
        let bad = CLI.run(["trace", "jobs/bounce.json", "--items", "1,x"])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("--items expects item ids"))
    }
}
