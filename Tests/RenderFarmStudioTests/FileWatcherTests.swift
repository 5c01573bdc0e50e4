import Foundation
import Synchronization
import Testing

@testable import RenderFarmStudio

@Suite("The studio's file watcher")
struct FileWatcherTests {
    /// A file rewritten more often than the watcher's settle time never settles: the watcher still tells its
    /// changes while the writes go on, at most `longestBurst` after they began, and the last ones once they stop.
    /// For the job file and for a layer's input, each run draws the pause between writes (under the settle time)
    /// and how long the writes go on.
    @Test("a file that changes without pause is still told, while it changes", arguments: [true, false])
    func endlessBurst(jobFileWritten: Bool) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rf-watch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let jobFile = folder.appendingPathComponent("job.json").path
        let input = folder.appendingPathComponent("events.jsonl").path
        for file in [jobFile, input] { _ = FileManager.default.createFile(atPath: file, contents: Data("0".utf8)) }

        let told = Mutex<[(at: ContinuousClock.Instant, change: FileWatcher.Change)]>([])
        let watcher = try #require(
            FileWatcher(jobFile: jobFile, pluginFolders: []) { change in
                told.withLock { $0.append((.now, change)) }
            })
        defer { watcher.stop() }
        watcher.watch([input], as: .inputs)

        let (file, expected): (String, FileWatcher.Change) = jobFileWritten ? (jobFile, .job) : (input, .inputs)
        let pause = Int.random(in: 1...30)
        let writing = FileWatcher.longestBurst * Int.random(in: 3...5)
        let began = ContinuousClock.now
        var writes = 0
        var lastWritten = began
        while ContinuousClock.now - began < writing {
            writes += 1
            try Data("\(writes)\n".utf8).write(to: URL(fileURLWithPath: file))
            lastWritten = .now
            usleep(useconds_t(pause * 1000))
        }
        let stopped = ContinuousClock.now
        let whileWriting = told.withLock { $0.filter { $0.at < stopped } }
        #expect(
            !whileWriting.isEmpty,
            "\(writes) writes \(pause) ms apart for \(writing) were not told before they stopped")
        #expect(whileWriting.allSatisfy { $0.change == expected }, "\(whileWriting.map(\.change))")

        // The last write is told too: a change told after it either holds it or comes before the one that does.
        let deadline = ContinuousClock.now + .seconds(30)
        while told.withLock({ $0.last?.at ?? began }) < lastWritten && ContinuousClock.now < deadline {
            usleep(20_000)
        }
        #expect(told.withLock { $0.last?.at ?? began } >= lastWritten, "the last write was never told")
    }
}
