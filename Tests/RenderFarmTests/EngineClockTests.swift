import CairoKit
import Dispatch
import EffectKit
import Foundation
import Locking
import RenderFarmOutput
import RenderFarmTestSupport
import Testing

@testable import RenderFarm
@testable import RenderFarmJobs

/// Frame 1 of `HeldFrame` waits here until the test opens the gate.
private final class Gate: Sendable {
    let entered = DispatchSemaphore(value: 0)
    let opened = DispatchSemaphore(value: 0)
}

private let gate = Gate()

/// A registered Swift effect whose frame 1 holds its worker until the test lets it go.
private struct HeldFrame: Effect {
    static let descriptor = EffectDescriptor(
        id: "test-held-frame", identifier: "org.renderfarm.test.held-frame", version: "1.0.0",
        summary: "Frame 1 waits for the test", parameters: [])

    init(parameters: EffectParameters, context: EffectContext) throws(EffectError) {}

    func render(in context: DrawingContext, at frame: FrameTime) throws(EffectError) {
        if frame.index == 1 {
            gate.entered.signal()
            gate.opened.wait()
        }
        context.setSource(Color(red: 1, green: 1, blue: 1, alpha: 1))
        context.rectangle(x: 0, y: 0, width: 4, height: 4)
        context.fill()
    }
}

/// What the render told its observer about frames in flight.
private final class InFlightLog: ProgressObserver {
    let ticks = Locked<[[FrameInFlight]]>([])
    func renderWillStart(totalFrames: Int, skippedFrames: Int, jobs: [PlannedJob]) {}
    func frameDidFinish(_ event: FrameEvent) {}
    func renderDidFinish(_ summary: RenderSummary) {}
    func framesInFlight(_ frames: [FrameInFlight]) { ticks.withLock { $0.append(frames) } }
}

/// The engine's time comes from `RenderOptions.clock`: with a `ManualClock` a test moves time and
/// sees what the render does with it, without waiting a real second.
@Suite("The engine's clock, driven by a test")
struct EngineClockTests {
    @Test("a manual clock drives the frames-in-flight watch, the elapsed time and the journal's times")
    func manualClock() throws {
        try PluginCatalog.register(HeldFrame.self)
        let catalog = PluginCatalog.discover(searchPath: [])
        let text = """
            {"name": "held", "fps": 1, "duration": 3, "canvas": {"width": 8, "height": 8, "scale": 1},
             "layers": [{"effect": "test-held-frame"}]}
            """
        let spec = try JobLoader.decode(Data(text.utf8), file: "held.json", defaultName: "held")
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("rf-clock-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        let job = LoadedJob(spec: spec, file: "/tmp/held.json", directory: "/tmp")
        let run = RenderEngine(catalog: catalog, options: PlanOptions(outputOverride: out.path)).plan([job])
            .openAndWarmUp()
        #expect(run.errors.isEmpty)

        let clock = ManualClock(date: Date(timeIntervalSince1970: 1_900_000_000))
        let log = InFlightLog()
        let summary = Locked<RenderSummary?>(nil)
        let finished = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            let result = try? run.execute(RenderOptions(concurrency: 1, clock: clock), observer: log)
            summary.withLock { $0 = result }
            finished.signal()
        }
        gate.entered.wait()
        // Nothing is told before the clock moves; 2.5 s later two ticks have named frame 1 at 1 s and 2 s.
        #expect(log.ticks.withLock { $0.isEmpty })
        clock.advance(by: .milliseconds(2500))
        let ticks = log.ticks.withLock { $0 }
        #expect(ticks.map { $0.map(\.index) } == [[1], [1]])
        #expect(ticks.map { $0.map(\.seconds) } == [[1], [2]])
        #expect(ticks.first?.first?.layer == 0 && ticks.first?.first?.effect == "test-held-frame")
        gate.opened.signal()
        finished.wait()

        let result = try #require(summary.withLock { $0 })
        #expect(result.rendered == 3 && result.elapsed == 2.5)
        // Frame 0 finished before the clock moved, frames 1 and 2 after.
        let journal = try String(
            contentsOf: out.appendingPathComponent(FolderLayout.journal(of: .whole)), encoding: .utf8)
        let times = journal.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["at"] as? Double
        }
        #expect(times == [1_900_000_000, 1_900_000_002.5, 1_900_000_002.5])
    }

    @Test("a manual clock runs due ticks in time order, and none after stop")
    func ticks() {
        let clock = ManualClock()
        let seen = Locked<[String]>([])
        let fast = clock.every(.seconds(1)) { seen.withLock { $0.append("fast@\(clock.uptime.seconds)") } }
        let slow = clock.every(.seconds(3)) { seen.withLock { $0.append("slow@\(clock.uptime.seconds)") } }
        clock.advance(by: .seconds(3))
        fast.stop()
        clock.advance(by: .seconds(3))
        slow.stop()
        clock.advance(by: .seconds(10))
        #expect(
            seen.withLock { $0 } == [
                "fast@1.0", "fast@2.0", "fast@3.0", "slow@3.0", "slow@6.0",
            ])
        #expect(clock.uptime == .seconds(16))
    }
}
