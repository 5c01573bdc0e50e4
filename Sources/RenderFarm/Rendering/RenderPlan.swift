import FileOutput
import Foundation
import RenderFarmJobs
import RenderFarmOutput
import RenderFarmPluginABI
import RenderFarmSound
import StrictJSON

/// Where output may go and which frames to render, from the command line.
package struct PlanOptions: Sendable {
    /// `--out`: the output folder (with several jobs, each gets a subfolder named after it).
    package var outputOverride: String?
    /// `--output-root`: output folders of jobs must resolve inside it (default: the job's folder).
    package var outputRoot: String?
    /// `--frames`: replaces the job's frame set.
    package var frames: String?
    /// `--shard K/N`: this run's part of the frames.
    package var shard: Shard
    /// `--scale S`: replaces every job's canvas scale (pixels per point), e.g. 0.5 for quick CI renders.
    package var scale: Double?
    /// What the layers learn before frames are drawn (ABI `prepare`, `prepare_with_cache`).
    package var warmUp: LayerWarmUp
    /// Whether an existing folder that holds files but no `renderfarm.job.json` is refused as an output
    /// folder (`render` without `--force`): the run would overwrite or mix with files no render wrote.
    package var refusesForeignFolders = false
    /// How a run that writes the output folders opens them (`render`, `prepare`): each folder is
    /// created and locked before the layers warm up, since warming up may write the folder's cache,
    /// and the run holds the session until it ends (`ReadyRun`). Nil for runs that write no
    /// folder, and for `render --isolate`'s workers, which write under their parent's lock.
    package var locking: (shard: Shard, task: String)? = nil
    /// Whether the layers verify their input (ABI `verify`: checks too costly for every process, such as
    /// decoding a whole video). False only in the workers of `render --isolate` and of the studio, which
    /// draw frames of jobs their parent planned and verified.
    package var verifies = true
    /// Whether the files of the `audio` section are checked as `render --video` would find them (found, files,
    /// not too large; event logs read), without decoding them: `validate` and the studio. A run that makes no
    /// video needs none of them.
    package var checksSoundFiles = false
    /// The one job (its position among the jobs given) that is planned and prepared, nil: every job. A worker of
    /// `render --isolate` that serves one job of several (`worker --serve-job`) creates no other job's instances.
    package var plansOnly: Int? = nil
    /// Where the layers' instances are created when not in this process: `render --isolate` has a sandboxed
    /// worker create and verify them (`IsolatedPlanner`), so no plugin code parses media here; the jobs planned
    /// then hold no instance (`PlannedJob.drawsElsewhere`). Nil: in this process.
    package var creator: IsolatedPlanner? = nil
    /// What the caller calls the frame set, scale and output folder it gave, for the place of a
    /// problem with one of them (the command line sets its flags, from its option table).
    package var names = Names()

    /// The names of the settings a caller gives, as messages show them.
    package struct Names: Sendable {
        package var frames = "frames"
        package var scale = "scale"
        package var out = "out"
        package init() {}
    }

    package init(
        outputOverride: String? = nil, outputRoot: String? = nil, frames: String? = nil, shard: Shard = .whole,
        scale: Double? = nil, warmUp: LayerWarmUp = .frames
    ) {
        self.warmUp = warmUp
        self.outputOverride = outputOverride
        self.outputRoot = outputRoot
        self.frames = frames
        self.shard = shard
        self.scale = scale
    }
}

/// The warm-up phase: what the layers of a planned job learn before frames are drawn (plugins do
/// per-run work there, such as a physics simulation up to the run's first frame).
package enum LayerWarmUp: Sendable, Equatable {
    /// Nothing (`validate`, `submit`: no frame is drawn).
    case none
    /// The frames of the run, with the job's cache folder when it exists (ABI `prepare_with_cache`:
    /// `preview`, `trace`, the studio, `render --video`, which create nothing in the output folder).
    case frames
    /// The frames of the run and the job's cache folder, even before it exists (`render`, which
    /// writes the output folder the cache lives in; a plugin that keeps something makes the folder).
    case framesWithCache
    /// The job's last frame only, with the cache folder even before it exists: layers compute what
    /// leads up to it and keep it for later runs and shards, drawing nothing (`renderfarm prepare`).
    case fillCache
}

/// The first phases of a run (the RenderFarm article RenderPhases), which `RenderEngine` runs: *plan*
/// turns loaded jobs into planned jobs (effects looked up, parameters checked and filled, plugin
/// instances created, so a bad parameter fails before any output exists; output folders resolved
/// and confined), writing nothing; *open* locks each output folder a run writes; *warm up* tells the
/// layers what the run asks of them.
enum RenderPlan {
    /// Checks every job and creates its layers' instances, writing nothing: the jobs of this run's
    /// shard, and every problem of the others.
    static func plan(_ jobs: [LoadedJob], catalog: PluginCatalog, options: PlanOptions)
        -> (prepared: [PlannedJob], errors: [JobError])
    {
        var planned: [PlannedJob] = []
        var errors: [JobError] = []
        var whole = options
        whole.shard = .whole
        let positions = jobs.indices.filter { options.plansOnly == nil || options.plansOnly == $0 }
        let created = options.creator?.createdLayers(of: jobs, positions: positions) ?? [:]
        for index in positions {
            do {
                planned.append(
                    try plan(
                        jobs[index], catalog: catalog, options: whole, jobCount: jobs.count, created: created[index]))
            } catch {
                errors.append(error)
            }
        }
        errors += sharedFolders(planned)
        return (options.shard.parts(of: planned), merged(errors))
    }

    /// Tells the layers of planned jobs what the run asks of them (`options.warmUp`), after
    /// locking each output folder when the run writes them (`options.locking`): the jobs that are
    /// ready, and `errors` with what went wrong. A run with a problem writes nothing, not even a
    /// cache: layers are prepared only when every job planned, or when nothing is created (the
    /// frames of `preview`, which report what they can).
    static func warmUp(_ planned: [PlannedJob], errors: [JobError], options: PlanOptions)
        -> (prepared: [OpenJob], errors: [JobError])
    {
        guard options.warmUp == .frames || (options.warmUp != .none && errors.isEmpty) else {
            return (planned.map { OpenJob(job: $0, session: nil) }, errors)
        }
        var errors = errors
        let ready = planned.compactMap { job -> OpenJob? in
            do throws(JobError) {
                let session = try options.locking.map { locking throws(JobError) in
                    try job.openFolder(shard: locking.shard, task: locking.task)
                }
                try job.warmUpLayers(options.warmUp, folder: session?.descriptor)
                return OpenJob(job: job, session: session)
            } catch {
                errors.append(error)
                return nil
            }
        }
        return (ready, merged(errors))
    }

    /// `errors` with the errors of one file joined and repeated issues dropped: the variants of
    /// a job file share its rows and layers, and a problem in a row is told once.
    static func merged(_ errors: [JobError]) -> [JobError] {
        var result: [JobError] = []
        var positions: [String: Int] = [:]
        for error in errors {
            guard case .invalid(let file, let issues) = error else {
                result.append(error)
                continue
            }
            guard let position = positions[file], case .invalid(_, let earlier) = result[position] else {
                positions[file] = result.count
                result.append(error)
                continue
            }
            let known = Set(earlier.map(\.description))
            result[position] = .invalid(file: file, issues: earlier + issues.filter { !known.contains($0.description) })
        }
        return result
    }

    /// Jobs of one run whose output folders are the same or nested: each would overwrite or mix
    /// into the other's frames, journal and manifest.
    ///
    /// The folders are compared in sorted order with a stack of the folders that hold the current
    /// one, so a batch of thousands of variants costs a sort, not every pair.
    static func sharedFolders(_ jobs: [PlannedJob]) -> [JobError] {
        // "/"-terminated, so that "out/a" holds "out/a/b" but not "out/ab".
        let keys = jobs.map { realPath($0.outputDirectory) + "/" }
        var holders: [Int] = []
        var pairs: [(first: Int, second: Int)] = []
        for index in jobs.indices.sorted(by: { (keys[$0], $0) < (keys[$1], $1) }) {
            while let last = holders.last, !keys[index].hasPrefix(keys[last]) { holders.removeLast() }
            pairs += holders.map { (min($0, index), max($0, index)) }
            holders.append(index)
        }
        return pairs.sorted { ($0.second, $0.first) < ($1.second, $1.first) }.map { first, second in
            let relation =
                keys[first] == keys[second] ? "the same output folder as" : "an output folder nested with that of"
            let other = jobs[first].job.variant.map { "variant \($0.name) of " } ?? ""
            let issue = JobIssue(
                path: "output.dir",
                "\(jobs[second].outputDirectory) is \(relation) \(other)\(jobs[first].job.file) "
                    + "(\(jobs[first].outputDirectory)); give each job its own output.dir")
            return .invalid(file: jobs[second].job.file, issues: jobs[second].job.located([issue]))
        }
    }

    /// A layer whose effect and parameters passed: refused values replaced by their defaults, so the
    /// plugin checks the rest in the same pass.
    /// `eventOrigins`: where each event of each events parameter came from (`EventLog.resolveLocated`).
    typealias ValidatedLayer = (
        index: Int, plugin: LoadedPlugin, params: JSONObject, eventOrigins: [String: [String]]
    )

    /// What is wrong with a planning worker's reply for `job` that does not hold exactly the `validated` layers. A
    /// reply holding some of them names each layer left out: the worker's own search found no plugin for it (a
    /// plugin folder changed between the two searches, or the worker's sandbox cannot read it). A reply holding
    /// another layer is not of the protocol.
    static func unreported(_ validated: [ValidatedLayer], by reported: [Int: CreatedLayer], job: LoadedJob)
        -> [JobIssue]
    {
        let made = Set(validated.map(\.index))
        guard Set(reported.keys).isSubset(of: made) else {
            return [JobIssue(path: "", "the planning worker sent a reply the protocol does not have")]
        }
        return validated.filter { reported[$0.index] == nil }.map { layer in
            JobIssue(
                path: "\(job.spec.layers[layer.index].path).effect",
                "the planning worker made no instance of effect \"\(layer.plugin.info.id)\", which this process "
                    + "found in \(layer.plugin.info.path): its own search did not find it (the plugin folder changed "
                    + "meanwhile, or the worker's sandbox cannot read it); run again, or check the folder's permissions"
            )
        }
    }

    /// `created`: what a planning worker's instances gave (`options.creator`), else the instances are created here.
    static func plan(
        _ job: LoadedJob, catalog: PluginCatalog, options: PlanOptions, jobCount: Int,
        created remote: Result<[Int: CreatedLayer], IsolatedPlanner.Failure>? = nil
    ) throws(JobError) -> PlannedJob {
        var job = job
        // Problems of the file itself come first; the layers are still checked, so one pass shows all.
        var issues = job.issues
        // What filling a variant found (unknown placeholders, duplicate names) is told with the rest.
        let pending = job.variant?.issues ?? []
        if let scale = options.scale { issues += rescale(&job.spec.canvas, to: scale, named: options.names.scale) }
        let (validated, layerIssues) = validateLayers(job, catalog: catalog)
        issues += layerIssues
        let (frames, frameIssues) = frameSet(job.spec, options: options)
        issues += frameIssues
        if options.checksSoundFiles, let audio = job.spec.audio {
            issues += SoundFile.issues(of: audio, jobDirectory: job.directory)
        }
        var outputDirectory = ""
        let outputPath = options.outputOverride == nil ? "output.dir" : options.names.out
        do {
            outputDirectory = try resolveOutput(job, options: options, jobCount: jobCount)
            if options.refusesForeignFolders,
                let finding = ForeignFolder.finding(in: outputDirectory, prefix: job.spec.output.prefix)
            {
                issues.append(JobIssue(path: outputPath, ForeignFolder.message(finding, directory: outputDirectory)))
            }
        } catch {
            issues.append(JobIssue(path: outputPath, error.description))
        }
        var instances: [PluginInstance] = []
        let created: [CreatedLayer]
        if let creator = options.creator {
            switch remote {
            case .success(let reported) where Set(reported.keys) == Set(validated.map(\.index)):
                created = validated.map { reported[$0.index] ?? .failed("") }
                issues += creator.refusedInputs(job, layers: validated.map(\.index), catalog: catalog, created: created)
            case .success(let reported):
                created = []
                issues += unreported(validated, by: reported, job: job)
            case .failure(let failure):
                created = []
                issues.append(JobIssue(path: "", failure.message))
            case nil:
                created = []
                issues.append(JobIssue(path: "", "the planning worker was not asked for this job"))
            }
        } else {
            (instances, created) = createInstances(validated, job: job, verifying: options.verifies)
        }
        issues += createdIssues(validated, created: created, job: job)
        // Sounds played at a layer's moments: the layer and the moment must exist (known once the layers are made).
        if !issues.contains(where: { $0.severity == .error }) {
            issues += MomentTimes.issues(of: job.spec, moments: layerMoments(validated, created: created))
        }
        guard !issues.contains(where: { $0.severity == .error }) && pending.isEmpty else {
            throw .invalid(file: job.file, issues: pending + job.located(PluginProblems.inFileOrder(issues)))
        }
        let inputs = layerInputs(job, validated: validated, created: created)
        let (spec, layers) = (job.spec, validated.map { ($0.plugin, $0.params) })
        let identity = JobIdentity { FrameIdentity.canonical(spec, layers: layers, inputs: inputs) }
        let warnings = zip(validated, created).flatMap { layer, created in
            guard case .created(let warnings, _, _, _) = created else { return [JobIssue]() }
            return PluginProblems.issues(warnings, layer: job.spec.layers[layer.index], severity: .warning)
        }
        return PlannedJob(
            job: job, outputDirectory: outputDirectory, frames: frames,
            layers: options.creator == nil ? .here(instances) : .elsewhere(validated.map(\.plugin)),
            identity: identity, inputs: inputs.flatMap { $0 }, warnings: warnings,
            sounds: layerSounds(validated, created: created), moments: layerMoments(validated, created: created))
    }

    /// What the plugins said when their instances were created, as issues of their layers: a failure as
    /// errors, warnings as warnings; what one event of a log is told at the event's line.
    static func createdIssues(_ validated: [ValidatedLayer], created: [CreatedLayer], job: LoadedJob) -> [JobIssue] {
        zip(validated, created).flatMap { layer, created in
            let spec = job.spec.layers[layer.index]
            let found: [JobIssue]
            switch created {
            case .created(let warnings, _, _, _):
                found = PluginProblems.issues(warnings, layer: spec, severity: .warning)
            case .failed(let message): found = PluginProblems.issues(message, layer: spec)
            }
            return EventLog.locate(found, origins: layer.eventOrigins, path: spec.path)
        }
    }

    /// Each layer's effect looked up in `catalog` and its parameters typed (variants), resolved (event
    /// logs) and validated; the layers that can be created, and every problem found.
    static func validateLayers(_ job: LoadedJob, catalog: PluginCatalog) -> ([ValidatedLayer], [JobIssue]) {
        var issues: [JobIssue] = []
        var validated: [ValidatedLayer] = []
        // One event log may drive several layers and sounds: each takes the columns it knows.
        let readers = EventLog.readers(
            layers: job.spec.layers.compactMap { layer in
                catalog[layer.effect].map { (layer.params, $0.info.parameters, layer.folder) }
            }, audio: job.spec.audio)
        for (index, layer) in job.spec.layers.enumerated() {
            guard let plugin = catalog[layer.effect] else {
                let ids = catalog.plugins.keys.sorted()
                issues.append(
                    JobIssue(
                        path: "\(layer.path).effect",
                        "unknown effect \"\(layer.effect)\""
                            + Suggestion.hint(for: layer.effect, in: ids) + "; installed: "
                            + (ids.isEmpty ? "none" : ids.joined(separator: ", ")) + "; searched: "
                            + (catalog.searchPath.isEmpty ? "no folder" : catalog.searchPath.joined(separator: ", "))))
                continue
            }
            // A variant's CSV cells take the types the plugin's parameters declare.
            let typed =
                job.variant?.typed(layer.params, layer: layer.path, parameters: plugin.info.parameters) ?? layer.params
            // Event logs are read and checked here, so the plugin gets a checked, sorted list.
            let (params, eventIssues, origins) = EventLog.resolveLocated(
                typed, parameters: plugin.info.parameters, path: "\(layer.path).params",
                jobDirectory: layer.directory(in: job.directory), readers: readers, folder: layer.folder)
            issues += eventIssues
            let (filled, problems) = ParameterValidator.validate(
                params, against: plugin.info, path: "\(layer.path).params")
            issues += problems
            validated.append((index, plugin, filled, origins))
        }
        return (validated, issues)
    }

    /// The frames to render: `--frames` when given (within the job), else the job's own set.
    static func frameSet(_ spec: JobSpec, options: PlanOptions) -> (FrameSet, [JobIssue]) {
        guard let text = options.frames else { return (spec.frames, []) }
        do {
            let frames = try FrameSet(parsing: text, limit: JobDecoder.Limits.maxFrames)
            guard let outside = frames.frames.first(where: { $0 < 0 || $0 >= spec.frameCount }) else {
                return (frames, [])
            }
            return (
                frames,
                [JobIssue(path: options.names.frames, "frame \(outside) is outside the job (0-\(spec.frameCount - 1))")]
            )
        } catch {
            return (
                spec.frames,
                [JobIssue(path: options.names.frames, "\(error.message) (grammar: 1-100, 1-100:2, 1,3,5-9)")]
            )
        }
    }

    /// One plugin instance per validated layer that could be created, verified when `verifying`, and what
    /// creating each layer gave.
    static func createInstances(_ validated: [ValidatedLayer], job: LoadedJob, verifying: Bool)
        -> ([PluginInstance], [CreatedLayer])
    {
        var instances: [PluginInstance] = []
        var created: [CreatedLayer] = []
        for (index, plugin, params, _) in validated {
            switch createInstance(plugin, params: params, layer: index, job: job, verifying: verifying) {
            case .success(let instance):
                instances.append(instance)
                created.append(
                    .created(
                        warnings: instance.warnings, inputFiles: instance.inputFiles, sounds: instance.sounds,
                        moments: instance.moments))
            case .failure(let error):
                created.append(.failed(error.message))
            }
        }
        return (instances, created)
    }

    /// Creates layer `index`'s plugin instance; the typed error survives `withCString`, which rethrows untyped.
    static func createInstance(
        _ plugin: LoadedPlugin, params: JSONObject, layer index: Int, job: LoadedJob, verifying: Bool
    ) -> Result<PluginInstance, PluginCallError> {
        let spec = job.spec
        // A composition's layer sees the composition as its job, as when the composition is rendered alone.
        let layer = spec.layers[index]
        let scope = layer.scope
        let seed = rf_derive_seed(scope?.seed ?? spec.seed, UInt64(scope?.index ?? index))
        let duration = scope?.duration ?? spec.duration
        // job_dir points into the String only for the duration of create.
        return layer.directory(in: job.directory).withCString { directory in
            let context = rf_context(
                width: scope?.width ?? spec.canvas.width, height: scope?.height ?? spec.canvas.height,
                scale: spec.canvas.scale, fps: spec.fps, duration: duration,
                frame_count: UInt32(JobSpec.frameCount(duration: duration, fps: spec.fps)),
                layer_start: spec.clocks[index].startInComposition, seed: seed, job_dir: directory)
            do throws(PluginCallError) {
                return .success(
                    try PluginInstance(plugin: plugin, params: params, context: context, verifying: verifying))
            } catch {
                return .failure(error)
            }
        }
    }

    /// Applies `--scale`: the same limits as the job file's `canvas.scale`.
    static func rescale(_ canvas: inout Canvas, to scale: Double, named name: String) -> [JobIssue] {
        var scaled = canvas
        scaled.scale = scale
        let side = 1...Int(JobDecoder.Limits.maxSide)
        let rule =
            "the scale must be in (0, \(Int(JobDecoder.Limits.maxScale))] and each side 1…\(side.upperBound) pixels"
        // Pixel sizes are computed only from an accepted scale: 1e17 points would overflow Int.
        guard PlanOptions.acceptsScale(scale) else { return [JobIssue(path: name, "\(scale): \(rule)")] }
        guard side.contains(scaled.pixelWidth), side.contains(scaled.pixelHeight),
            scaled.pixelWidth * scaled.pixelHeight <= JobDecoder.Limits.maxPixels
        else {
            return [
                JobIssue(path: name, "\(scale) gives \(scaled.pixelWidth)×\(scaled.pixelHeight) pixels; \(rule)")
            ]
        }
        canvas = scaled
        return []
    }

    /// The absolute output folder: `--out` when given, else the job's `output.dir` resolved
    /// against the job's folder and confined to it (or to `--output-root`).
    static func resolveOutput(_ job: LoadedJob, options: PlanOptions, jobCount: Int) throws(OutputError) -> String {
        if let override = options.outputOverride {
            let base = URL(fileURLWithPath: override).standardizedFileURL
            return (jobCount > 1 ? base.appendingPathComponent(job.spec.name) : base).path
        }
        let root = realPath(URL(fileURLWithPath: options.outputRoot ?? job.directory).standardizedFileURL.path)
        let directory = job.spec.output.directory
        let resolved =
            directory.hasPrefix("/")
            ? URL(fileURLWithPath: directory).standardizedFileURL
            : URL(fileURLWithPath: job.directory).appendingPathComponent(directory).standardizedFileURL
        // Resolve symbolic links in the part that exists, so a link cannot smuggle output out.
        let real = realPath(resolved.path)
        guard real == root || real.hasPrefix(root.hasSuffix("/") ? root : root + "/") else {
            throw .outsideRoot(path: resolved.path, root: root)
        }
        return resolved.path
    }
}

/// `path` with every symbolic link in its existing part resolved (the rest need not exist yet).
func realPath(_ path: String) -> String {
    var existing = URL(fileURLWithPath: path)
    var rest: [String] = []
    while existing.path != "/" && !FileManager.default.fileExists(atPath: existing.path) {
        rest.insert(existing.lastPathComponent, at: 0)
        existing = existing.deletingLastPathComponent()
    }
    guard let resolved = realpath(existing.path, nil) else { return path }
    defer { free(resolved) }
    return rest.reduce(URL(fileURLWithPath: String(cString: resolved))) { $0.appendingPathComponent($1) }.path
}

/// Some jobs cannot be rendered; each error names its file and every problem in it.
package struct PlanError: Error, Equatable, CustomStringConvertible {
    package var errors: [JobError]
    package var description: String { errors.map(\.description).joined(separator: "\n") }
}
