import Foundation
import Testing

@testable import RenderFarmCLI

/// Issue 12, item 4: the progress line fits the terminal, the summary has time and the slowest frames,
/// a re-run says why it renders, and counts have the right plural.
@Suite("progress and summary")
struct ProgressOutputTests {
    @Test("in a 50-column terminal every redraw of the bar is at most 49 columns (a pty via script)")
    func fiftyColumns() throws {
        let folder = try TemporaryFolder()
        let command = [
            "stty cols 50 rows 20;", "exec", Binary.executable, "render", "jobs/live-hearts.json", "--frames", "0-59",
            "--scale", "0.3", "-j", "1", "--out", folder.url.appendingPathComponent("out").path,
        ].joined(separator: " ")
        let result = try Tools.run(
            "/usr/bin/timeout", ["120", "/usr/bin/script", "-q", "-e", "-c", command, "/dev/null"],
            in: Binary.packageRoot)
        #expect(result.status == 0, "\(result.text)")
        let redraws = result.text.components(separatedBy: "\u{1B}[2K").dropFirst().map {
            // "\r\n" is one Character in Swift: split on anything that ends a line.
            $0.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        }
        try #require(!redraws.isEmpty, "no bar was drawn: \(result.text)")
        for line in redraws { #expect(line.count <= 49, "\(line.count) columns: \(line)") }
        #expect(redraws.last?.hasPrefix("[") == true && redraws.last?.contains("100%") == true, "\(redraws)")
    }

    @Test(
        "every width gets a line that fits, narrowing fields instead of wrapping",
        arguments: [200, 80, 50, 40, 30, 20, 12, 5, 1])
    func narrows(columns: Int) {
        let line = ProgressBar.line(
            label: "encoding webm-alpha", done: 1234, total: 48_000, fps: 123.4, remaining: 3725, columns: columns)
        #expect(line.count <= max(1, columns - 1), "\(line)")
        if columns >= 5 { #expect(line.contains("2%"), "\(line)") }
        if columns >= 80 { #expect(line.contains("1234/48000 frames") && line.contains("ETA 1:02:05")) }
    }

    @Test(
        "fps and ETA are the pace since the first frame: ffmpeg's start is no part of it; none is told before there is one"
    )
    func paceFromFirstFrame() {
        // A 7 s encode of 210 frames whose first frame is told 1.2 s in (ffmpeg starting): the first line has no
        // pace yet, and the next ones have the pace of the frames since, not 3 frames in 1.2 s.
        let start = ContinuousClock.now
        let clock = Width(0)
        let lines = Lines()
        let terminal = Terminal(out: { _ in }, err: { lines.append($0) }, errIsTerminal: false)
        let bar = ProgressBar(
            terminal: terminal, mode: .plain, label: "encoding", now: { start + .milliseconds(clock.value) })
        for (milliseconds, done) in [(1200, 3), (3200, 70), (5200, 140), (7200, 210)] {
            clock.value = milliseconds
            bar.update(done, of: 210)
        }
        #expect(
            lines.all == [
                "encoding 1%  3/210 frames  – fps  ETA –\n",
                "encoding 33%  70/210 frames  33.5 fps  ETA 0:04\n",
                "encoding 66%  140/210 frames  34.2 fps  ETA 0:02\n",
                "encoding 100%  210/210 frames  29.2 fps  ETA 0:00\n",
            ], "\(lines.all)")
        // On a terminal too, with the same words.
        #expect(
            ProgressBar.line(label: nil, done: 3, total: 210, fps: nil, remaining: nil, columns: 80).hasSuffix(
                "3/210 frames  – fps  ETA –"))
    }

    @Test("a resized terminal is followed: the width is asked at every redraw")
    func resize() {
        let width = Width(120)
        let lines = Lines()
        let terminal = Terminal(
            out: { _ in }, err: { lines.append($0) }, errIsTerminal: true, columns: { width.value })
        let bar = ProgressBar(terminal: terminal, mode: .auto)
        bar.update(10, of: 20)
        width.value = 30
        bar.update(20, of: 20)
        let drawn = lines.all.map { $0.replacingOccurrences(of: "\r\u{1B}[2K", with: "") }
        #expect(drawn.count == 2)
        #expect(drawn.first.map { $0.count > 50 } == true && drawn.last.map { $0.count <= 29 } == true, "\(drawn)")
    }

    @Test("summary: elapsed time, fps and slowest frames; a re-run says why; plurals")
    func summaryAndReasons() throws {
        let folder = try TemporaryFolder()
        let job = try folder.write(
            """
            { "duration": 1, "fps": 10, "canvas": {"width": 100, "height": 100, "scale": 1}, "output": {"dir": "out"},
              "layers": [ { "effect": "floating-heart", "params": {"rate": 2, "emitter": [50, 90]} } ] }
            """, to: "job.json")
        let first = CLI.run(["render", job, "--frames", "0", "--progress", "plain"])
        #expect(first.stderr.contains("rendering 1 frame of 1 job\n"), "\(first.stderr)")
        #expect(first.stdout.contains("job: 1 frame rendered (complete)"))
        #expect(
            first.stdout.range(
                of: #"time: \d+\.\d\d s, [\d.]+ fps; slowest: 0 \([\d.]+ ms\)"#, options: .regularExpression) != nil,
            "\(first.stdout)")
        let rest = CLI.run(["render", job, "--progress", "plain"])
        #expect(rest.stderr.contains("rendering 9 frames of 1 job (1 already done, skipped): 9 never rendered"))
        #expect(
            rest.stdout.range(
                of: #"slowest: \d+ \([\d.]+ ms\), \d+ \([\d.]+ ms\), \d+ \([\d.]+ ms\)"#, options: .regularExpression)
                != nil)
        try String(contentsOfFile: job, encoding: .utf8).replacingOccurrences(of: "\"rate\": 2", with: "\"rate\": 3")
            .write(toFile: job, atomically: true, encoding: .utf8)
        _ = CLI.run(["render", job, "--frames", "0-4", "--progress", "none"])
        try FileManager.default.removeItem(at: folder.url.appendingPathComponent("out/frame_00002.png"))
        let again = CLI.run(["render", job, "--progress", "plain"])
        #expect(
            again.stderr.contains(
                "rendering 6 frames of 1 job (4 already done, skipped): 5 because the job changed "
                    + "(layers[0].params.rate), 1 missing or corrupt"
            ),
            "\(again.stderr)")
        let forced = CLI.run(["render", job, "--progress", "plain", "--force"])
        #expect(forced.stderr.contains("rendering 10 frames of 1 job (--force: every frame again)"))
    }
}

/// A width a test changes between redraws.
private final class Width: @unchecked Sendable {
    // Only changed by the test between calls on the same thread.
    var value: Int
    init(_ value: Int) { self.value = value }
}

/// What a terminal wrote to standard error, piece by piece.
private final class Lines: @unchecked Sendable {
    // Appended from one thread (the bar draws on the caller's thread).
    private(set) var all: [String] = []
    func append(_ text: String) { all.append(text) }
}
