import Foundation
import Testing

/// Issue 12, item 8: `trace --compact` and `--items`; the default output is unchanged.
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
