import FileOutput
import Foundation
import Locking
import RenderFarmOutput

/// How a render runs.
package struct RenderOptions: Sendable {
    /// Frames in flight at once (`-j`).
    package var concurrency: Int
    /// Render every frame even when the journal says it is done (`--force`).
    package var force: Bool
    /// Stop taking frames after the first frame that finally fails (`--fail-fast`).
    package var failFast: Bool
    /// Which journal this run appends to (one per shard).
    package var shard: Shard
    package var stop: StopSignal
    /// Draw frame-invariant bottom layers once per process and copy them (false: draw them every
    /// frame; the bytes are the same, which tests check).
    package var cacheStaticLayers: Bool
    /// `--isolate`: frames are drawn in worker processes (nil: in this process).
    package var isolation: Isolation?
    /// The render's time: elapsed, frames in flight, journal times (a `ManualClock` in tests).
    package var clock: any EngineClock

    package init(
        concurrency: Int = ProcessInfo.processInfo.activeProcessorCount, force: Bool = false,
        failFast: Bool = false, shard: Shard = .whole, stop: StopSignal = StopSignal(),
        cacheStaticLayers: Bool = true, isolation: Isolation? = nil, clock: any EngineClock = SystemClock()
    ) {
        self.clock = clock
        self.isolation = isolation
        self.concurrency = concurrency
        self.force = force
        self.failFast = failFast
        self.shard = shard
        self.stop = stop
        self.cacheStaticLayers = cacheStaticLayers
    }
}

/// Renders planned jobs: resumes from journals, schedules every frame of every job on one
/// `FrameScheduler`, journals each finished frame, and writes each job's manifest.
enum RenderSession {
    static func render(
        _ opened: [OpenJob], options: RenderOptions,
        observer: some ProgressObserver = NoProgress()
    ) throws(OutputError) -> RenderSummary {
        // Every folder is locked before anything is written into any of them (at the open stage, when
        // warming up wrote the layers' caches).
        let jobs = opened.map(\.job)
        let sessions = try opened.map { open throws(OutputError) in
            if let held = open.session { return held }
            return try open.job.folder.open(shard: options.shard, task: options.shard.renderTask)
        }
        defer { withExtendedLifetime(sessions) {} }
        try VariantIndex.write(for: jobs.map { ($0.job, $0.outputDirectory) })
        // Instances in workers (`render --isolate`): a worker of each job gives its frame keys, then draws frames.
        if let isolation = options.isolation {
            askFrameKeys(
                jobs, isolation: isolation, lanes: options.concurrency, force: options.force, observer: observer)
        }
        defer {
            if let isolation = options.isolation { isolation.spares.endAll(isolation.workers) }
        }
        let states = try zip(jobs, sessions).map { job, session throws(OutputError) in
            try JobState(job: job, options: options, session: session)
        }
        let draws = states.enumerated().flatMap { jobIndex, state in state.todo.map { (jobIndex, $0) } }
        let reuses = states.enumerated().flatMap { jobIndex, state in
            state.reuses.map { (jobIndex, $0.frame, $0.source) }
        }
        let total = draws.count + reuses.count
        observer.renderWillStart(
            totalFrames: total, skippedFrames: states.reduce(0) { $0 + $1.skipped }, jobs: jobs)

        let progress = Locked(Progress())
        // Fail-fast and fatal output errors stop the render too, but are not interruptions.
        let halt = StopSignal()
        let shouldStop = { @Sendable in options.stop.isStopped || halt.isStopped }
        let report = { @Sendable (state: JobState, frame: Int, outcome: FrameOutcome) in
            let event = progress.withLock { progress -> FrameEvent? in
                switch outcome {
                case .written(let entry, let timings):
                    progress.finished += 1
                    progress.timings = progress.timings + timings
                    return state.event(entry, timings, finished: progress.finished, total: total)
                case .failed(let entry):
                    progress.finished += 1
                    if options.failFast { halt.stop() }
                    return state.event(entry, FrameTimings(), finished: progress.finished, total: total)
                case .fatal(let error):
                    progress.finished += 1
                    if progress.fatal == nil { progress.fatal = error }
                    halt.stop()
                    return FrameEvent(
                        job: state.job.spec.name, index: frame, status: .failed, attempts: 1,
                        error: error.description, timings: FrameTimings(),
                        finished: progress.finished, total: total)
                case .interrupted:
                    // Neither finished nor failed: the next run draws it.
                    return nil
                }
            }
            if let event { observer.frameDidFinish(event) }
        }
        let start = options.clock.uptime
        let inFlight = FramesInFlight(observer: observer, clock: options.clock)
        FrameScheduler(concurrency: options.concurrency).run(
            count: draws.count, shouldStop: shouldStop,
            makeWorker: { () -> any FrameExecutor in
                guard let isolation = options.isolation else {
                    return FrameWorker(cacheStaticLayers: options.cacheStaticLayers, lane: inFlight.lane())
                }
                return WorkerProcess(jobs: jobs, isolation: isolation, lane: inFlight.lane())
            },
            perform: { worker, task in
                let (jobIndex, frame) = draws[task]
                report(states[jobIndex], frame, states[jobIndex].renderWithRetries(frame, worker: worker))
            })
        // Frames that draw the same as one drawn above (or on disk) are written from its file.
        FrameScheduler(concurrency: options.concurrency).run(
            count: reuses.count, shouldStop: shouldStop, makeWorker: {},
            perform: { _, task in
                let (jobIndex, frame, source) = reuses[task]
                report(states[jobIndex], frame, states[jobIndex].reuse(frame, from: source))
            })
        inFlight.stop()
        let elapsed = options.clock.uptime - start
        let finalProgress = progress.withLock { $0 }

        var summaries: [JobSummary] = []
        var firstError = finalProgress.fatal
        for state in states {
            do {
                summaries.append(try state.finish())
            } catch {
                if firstError == nil { firstError = error }
            }
        }
        if let firstError { throw firstError }
        let summary = RenderSummary(
            jobs: summaries, interrupted: options.stop.isStopped && summaries.contains { !$0.complete },
            elapsed: elapsed.seconds,
            timings: finalProgress.timings)
        observer.renderDidFinish(summary)
        return summary
    }

    /// Gives each job whose instances live in workers and whose plugins report frame keys the fingerprints a
    /// worker of it computed (`WorkerProcess.frameFingerprints`), on all cores; the workers asked stay, as spares
    /// for the lanes that draw their jobs. A job whose worker could not give them is drawn whole (every frame's
    /// fingerprint is the job's), with a warning.
    ///
    /// A lane would start its own worker only once the keys are known. For a render of one job that draws every
    /// frame (`--force`, or no frame recorded in its folder yet), the workers of the other lanes start meanwhile,
    /// while the first worker computes the keys and this process waits for them. A folder with frames recorded
    /// may have few left to draw (an edit, a resume), and a worker started for nothing costs a process start.
    private static func askFrameKeys(
        _ jobs: [PlannedJob], isolation: Isolation, lanes: Int, force: Bool, observer: some ProgressObserver
    ) {
        let keyed = jobs.filter { $0.drawsElsewhere && $0.hasKeyedLayers && !$0.frames.frames.isEmpty }
        let drawsAll = keyed.count == 1 && jobs.count == 1 && (force || nothingRecorded(in: keyed[0].outputDirectory))
        let others = drawsAll ? min(lanes, keyed[0].frames.frames.count) - 1 : 0
        let starting = (0..<max(others, 0)).compactMap { _ -> WorkerProcess? in
            let worker = WorkerProcess(jobs: jobs, isolation: isolation)
            do throws(FrameFailure) {
                try worker.start(serving: 0)
                return worker
            } catch {
                return nil
            }
        }
        DispatchQueue.concurrentPerform(iterations: keyed.count) { index in
            let job = keyed[index]
            let worker = WorkerProcess(jobs: jobs, isolation: isolation)
            do throws(FrameFailure) {
                job.setFrameFingerprints(try worker.frameFingerprints(of: job))
                worker.spare()
            } catch {
                observer.warning("\(job.spec.name): no frame keys (\(error.message)); every frame of it is drawn")
                job.setFrameFingerprints(FrameFingerprints(job: job.fingerprint))
            }
        }
        // One that did not start is ended: the lane that needs a worker starts its own and says what failed.
        for worker in starting where (try? worker.greeted()) != nil { worker.spare() }
    }

    /// Whether no journal in `folder` holds a line: none there yet, or only empty ones.
    private static func nothingRecorded(in folder: String) -> Bool {
        Journal.files(in: folder).allSatisfy { path in
            var info = stat()
            return lstat(path, &info) == 0 && info.st_size == 0
        }
    }

    private struct Progress {
        var finished = 0
        var timings = FrameTimings()
        var fatal: OutputError?
    }
}
