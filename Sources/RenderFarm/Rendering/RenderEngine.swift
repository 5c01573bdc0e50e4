import FileOutput
import RenderFarmJobs
import RenderFarmOutput

/// The engine's one way in (article RenderPhases). A run goes through its stages in order, and each
/// stage is a value only the stage before it makes, so a caller cannot warm up a job that was not
/// planned or draw frames into a folder that was not opened:
///
/// ```swift
/// let engine = RenderEngine(catalog: catalog, options: PlanOptions(outputOverride: "out"))
/// let plan = engine.plan(jobs)                          // pure: checks, creates instances, writes nothing
/// let fit = plan.fit(budget, requested: 8, isolated: false)   // frames in flight that fit the memory
/// let run = plan.openAndWarmUp()                        // locks the folders, warms up the layers
/// let reason = run.rerunReason(force: false)            // why frames are drawn again
/// let report = try run.execute(RenderOptions(concurrency: fit.workers), observer: reporter)
/// ```
///
/// The command line (and through it `--isolate`'s workers), the studio, the benchmark and the sound
/// mixer all come in here; the phases themselves (`RenderPlan`, `RenderSession`) are internal to
/// this target.
package struct RenderEngine: Sendable {
    package let catalog: PluginCatalog
    package let options: PlanOptions

    package init(catalog: PluginCatalog, options: PlanOptions = PlanOptions()) {
        self.catalog = catalog
        self.options = options
    }

    /// The *plan* stage: every job checked and its layers' instances created, writing nothing; this
    /// run's shard of the jobs that planned, and every problem of the others.
    package func plan(_ jobs: [LoadedJob]) -> PlannedRun {
        let (planned, errors) = RenderPlan.plan(jobs, catalog: catalog, options: options)
        return PlannedRun(jobs: planned, errors: errors, options: options)
    }

    /// `job`'s absolute output folder as `plan` resolves it (one of `jobCount` jobs), or nil when it is refused.
    package func outputFolder(of job: LoadedJob, jobCount: Int) -> String? {
        try? RenderPlan.resolveOutput(job, options: options, jobCount: jobCount)
    }

    /// Plan, open and warm up `jobs` for a caller that takes all of them or none (the studio, the
    /// benchmark's plan): the ready jobs, or every problem of every job.
    package func prepare(_ jobs: [LoadedJob]) throws(PlanError) -> [PlannedJob] {
        let run = plan(jobs).openAndWarmUp()
        guard run.errors.isEmpty else { throw PlanError(errors: run.errors) }
        return run.jobs
    }
}

/// What the *plan* stage made: immutable data, nothing written yet.
package struct PlannedRun: Sendable {
    /// This run's shard of the jobs that planned.
    package let jobs: [PlannedJob]
    /// Every problem of the jobs that did not plan (joined per file).
    package let errors: [JobError]
    let options: PlanOptions

    /// The frames in flight, at most `requested`, whose memory fits `budget` (0: not even one fits);
    /// checked before anything is locked or written, so a run that does not fit leaves no trace.
    package func fit(_ budget: MemoryBudget, requested: Int, isolated: Bool) -> MemoryBudget.Fit {
        budget.workers(for: jobs, requested: requested, isolated: isolated)
    }

    /// The *open* and *warm up* stages: each output folder created and locked when the run writes
    /// them (`PlanOptions.locking`), then the layers told what the run asks of them
    /// (`PlanOptions.warmUp`). A run with a problem writes nothing, not even a cache: pass
    /// `otherProblems` when the caller found some of its own (a job file that did not load).
    package func openAndWarmUp(otherProblems: Bool = false) -> ReadyRun {
        guard !otherProblems || options.warmUp == .frames else {
            return ReadyRun(opened: jobs.map { OpenJob(job: $0, session: nil) }, errors: errors)
        }
        let (ready, errors) = RenderPlan.warmUp(jobs, errors: errors, options: options)
        return ReadyRun(opened: ready, errors: errors)
    }
}

/// What the *open* and *warm up* stages made: jobs whose layers are ready, and the sessions of the
/// output folders the run locked (`PlanOptions.locking`), held as long as this value: the plan's jobs
/// stay immutable data, and a folder is unlocked when the run that opened it goes away.
package struct ReadyRun: Sendable {
    let opened: [OpenJob]
    package let errors: [JobError]

    /// No job: what a caller holds when none of its job files loaded.
    package static let nothing = ReadyRun(opened: [], errors: [])

    package var jobs: [PlannedJob] { opened.map(\.job) }

    /// Why frames are drawn again (new, changed, with which plugins, inputs and job fields changed),
    /// read from the folders before `execute` rewrites their records; nil with `force`, which draws
    /// every frame.
    package func rerunReason(force: Bool) -> RerunReason? {
        force ? nil : jobs.map(RerunReason.init).reduce(RerunReason(), +)
    }

    /// The *resume plan*, *execute* and *finish* stages: the frames an earlier run did not finish are
    /// drawn, journalled and listed in each folder's manifest; what happened, as a typed report.
    package func execute(_ options: RenderOptions, observer: some ProgressObserver = NoProgress())
        throws(OutputError) -> RenderSummary
    {
        try RenderSession.render(opened, options: options, observer: observer)
    }
}

/// A planned job and, when the run writes its folder, the session of the lock it took there.
struct OpenJob: Sendable {
    let job: PlannedJob
    let session: OutputFolder.Session?
}
