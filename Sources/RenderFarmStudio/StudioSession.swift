import CairoKit
import FileInput
import FileOutput
import Foundation
import Locking
import RenderFarm
import RenderFarmJobs
import RenderFarmMedia
import RenderFarmSound
import StrictJSON

/// The job the author view edits: its text as on disk, what `validate` says about it, the job
/// prepared at each preview scale, and the frames drawn so far (by frame fingerprint).
final class StudioSession: Sendable {
    let options: StudioOptions
    private let state: Locked<State>
    /// Frames are drawn one at a time: plugin instances are not shared between threads.
    private let preview: Locked<StudioPreviews>

    private struct State {
        var text: String
        var catalog: PluginCatalog
        var validation: Validation
        /// Plans by variant, scale and hidden layers.
        var prepared: [PlanKey: Prepared] = [:]
        var cache = FrameCache(budget: StudioLimits.cacheBytes)
        /// The last sound mix made (`audio`), with what it was made from: variant, version, input generation and
        /// hidden layers.
        var mix: (key: [Int], wav: [UInt8]?)?
        var version = 1
        /// Counts changes of the files the layers read (`inputsChanged`).
        var inputGeneration = 0
        var shadow: PluginShadow
    }

    private struct PlanKey: Hashable {
        var variant: Int
        var scale: Double
        /// The layers left out (`HiddenLayers`), sorted.
        var hidden: [Int]
    }

    /// A job prepared for the previews, and the job file's text it was prepared from: the text, or the text
    /// without hidden layers. A preview worker is sent that text, not what the file holds by then.
    private struct Prepared {
        var job: PlannedJob
        var text: String
    }

    /// Plans kept for sets of hidden layers besides the job's own: hide and solo toggled back and forth reuse
    /// them, and a page cycling through many sets does not pile up plugin instances.
    private static let keptHiddenPlans = 8

    /// Tells this run's versions from another run's in `ETag`s (a page left open across a restart).
    private let instance = String(UInt64.random(in: 1...UInt64.max), radix: 36)
    /// Told of the files the job reads (`onFilesRead`).
    private let filesRead: Locked<(@Sendable (Set<String>, FileWatcher.Change) -> Void)?> = Locked(nil)

    init(options: StudioOptions) {
        self.options = options
        // The sound is mixed again after every edit: each file is decoded once per content, not once per mix.
        DecodedSounds.keep()
        preview = Locked(StudioPreviews(options: options))
        let catalog = PluginCatalog.discover(searchPath: options.pluginSearchPath)
        let text = Self.read(options.jobFile)
        state = Locked(
            State(
                text: text ?? "", catalog: catalog, validation: Self.validate(text, options, catalog),
                shadow: PluginShadow(folders: options.pluginSearchPath)))
    }

    /// Cache hits and misses so far, for tests and the page's footer.
    var cacheCounts: (hits: Int, misses: Int) { state.withLock { ($0.cache.hits, $0.cache.misses) } }

    var version: Int { state.withLock { $0.version } }

    /// How many times a file the layers read has changed since the studio started.
    var inputGeneration: Int { state.withLock { $0.inputGeneration } }

    /// The `ETag` of version `version` of the text: a save made from another version gets 409.
    private func tag(_ version: Int) -> String { "\"\(instance)-\(version)\"" }

    /// The `job` event told when the job changed (`source`: what changed it): its version and `ETag`, so a page
    /// that already shows that version, or a newer one of this run, need not read the job again.
    func jobEvent(source: String) -> String {
        let version = self.version
        return JSONValue.object([
            "version": .number(Double(version)), "etag": .string(tag(version)), "source": .string(source),
        ]).serialized()
    }

    /// Sets what is told of the files the job reads (the studio's file watcher): the files its text reads to make
    /// its jobs (`.definition`: its `variants.rows` file) now and whenever the text changes, and the files the
    /// current plans' layers read (`.inputs`) whenever a plan is made.
    func onFilesRead(_ observer: @escaping @Sendable (Set<String>, FileWatcher.Change) -> Void) {
        filesRead.withLock { $0 = observer }
        observer(definitionFiles, .definition)
    }

    /// The files besides the job file that the current text reads to make its jobs.
    private var definitionFiles: Set<String> {
        state.withLock { Set(JobLoader.definitionFiles(Array($0.text.utf8), file: options.jobFile)) }
    }

    /// Tells the observer of the files the text reads after the text changed.
    private func tellDefinitionFiles() {
        if let observer = filesRead.withLock({ $0 }) { observer(definitionFiles, .definition) }
    }

    /// A file the layers read changed: the plans are made again on the next request, so the frames
    /// that file decides get new fingerprints and are drawn again; the others stay cached.
    func inputsChanged() {
        state.withLock { state in
            state.prepared = [:]
            state.inputGeneration += 1
        }
    }

    /// Reads the job file (and the plugins, when `plugins`) again; true when anything changed. With
    /// `definition`, a file the job file reads to make its jobs (`definitionFiles`) changed: the jobs are
    /// made again from the same text, and they are a new version when they differ.
    ///
    /// The file is read under the lock a save writes it under: a read made before a save's write
    /// and told after it would put the older text back as a new version, and the page's next
    /// save, made from the version its save was answered with, would be refused as stale.
    @discardableResult
    func reload(plugins: Bool, definition: Bool = false) -> Bool {
        let (changed, textChanged) = state.withLock { state in
            let text = Self.read(options.jobFile)
            let textChanged = text != state.text || (text == nil) != state.validation.missing
            guard plugins || definition || textChanged else { return (false, false) }
            if plugins { state.catalog = PluginCatalog.discover(searchPath: state.shadow.searchPath()) }
            let validation = Self.validate(text, options, state.catalog)
            // A data file touched, or saved with the same rows, is no new version: the page's next save stays current.
            guard
                plugins || textChanged || validation.jobs != state.validation.jobs
                    || validation.lines != state.validation.lines
            else { return (false, false) }
            state.text = text ?? ""
            state.validation = validation
            state.prepared = [:]
            state.version += 1
            return (true, textChanged)
        }
        if textChanged { tellDefinitionFiles() }
        return changed
    }

    /// What a save came to.
    enum Save {
        case written(Validation)
        /// Not written: invalid, or the file could not be written (`failure`).
        case refused(Validation)
        /// Not written: made from another version than the current text (`If-Match`).
        case stale
    }

    /// Validates `text` as the job file; when valid and made from the current version (`ifMatch`,
    /// an `ETag`; nil skips the check), writes it there atomically and makes it current.
    func apply(_ text: String, ifMatch: String?) -> Save {
        // An edit on disk the watcher has not told yet still makes the version stale.
        reload(plugins: false)
        let (save, textChanged) = state.withLock { state -> (Save, Bool) in
            if let ifMatch, ifMatch != tag(state.version) { return (.stale, false) }
            let validation = Self.validate(text, options, state.catalog)
            guard validation.valid else { return (.refused(validation), false) }
            do throws(OutputError) {
                try AtomicFile.write(Array(text.utf8), to: options.jobFile)
            } catch {
                return (.refused(Validation(jobs: validation.jobs, errors: [], failure: error.description)), false)
            }
            guard state.text != text else { return (.written(validation), false) }
            state.text = text
            state.validation = validation
            state.prepared = [:]
            state.version += 1
            return (.written(validation), true)
        }
        if textChanged { tellDefinitionFiles() }
        return save
    }

    /// Removes the copies of rebuilt plugins made for reloading.
    func removePluginCopies() { state.withLock { $0.shadow.removeCopies() } }

    /// Frame `index` of variant `variant` of the current job at `scale` (the job's own when nil), without the
    /// effect layers at `hidden` (`HiddenLayers`), as PNG bytes.
    func frame(_ index: Int, variant: Int = 0, scale: Double?, hiding hidden: [Int] = [], debug: Bool)
        throws(StudioFailure) -> [UInt8]
    {
        let prepared = try plan(variant: variant, scale: scale, hiding: hidden)
        let job = prepared.job
        let key = job.fingerprint(ofFrame: index) + (debug ? "+debug" : "")
        if let hit = state.withLock({ $0.cache.get(key) }) { return hit }
        let folders = state.withLock { $0.catalog.searchPath }
        let bytes = try preview.withLock { preview throws(StudioFailure) in
            do {
                return try preview.png(
                    index, of: job, text: prepared.text, scale: scale, pluginFolders: folders, debug: debug)
            } catch {
                throw StudioFailure(status: 422, "\(error)")
            }
        }
        state.withLock { $0.cache.put(key, bytes) }
        return bytes
    }

    /// The sound of variant `variant` of the current job under its whole timeline (frame 0 to its end), without
    /// the layers at `hidden`, as a WAV file: the mix `render --video` and `renderfarm mix` make (<doc:Sound>), for
    /// the page to play with its frames; nil when the job has no sound. Kept until the job, a file its layers read,
    /// a sound file or the hidden layers change.
    func audio(variant: Int = 0, hiding hidden: [Int] = []) throws(StudioFailure) -> [UInt8]? {
        let job = try plan(variant: variant, scale: nil, hiding: hidden).job
        let key = state.withLock { [variant, $0.version, $0.inputGeneration, -1] + hidden }
        if let made = state.withLock({ $0.mix }), made.key == key { return made.wav }
        let track: SoundTrack?
        do {
            track = try SoundTrack.mix(of: job, frames: Array(0..<job.job.spec.frameCount), ffmpeg: FFmpeg.locate())
        } catch {
            throw StudioFailure(status: 422, "\(error)")
        }
        let wav = track?.wav
        state.withLock { $0.mix = (key, wav) }
        // The sound files are inputs too: an edit of one is told as the layers' files are, and mixes again.
        let folder = URL(fileURLWithPath: job.job.directory, isDirectory: true)
        let files = Set(
            (track?.inputs ?? []).map { URL(fileURLWithPath: $0.file, relativeTo: folder).standardizedFileURL.path })
        if !files.isEmpty, let observer = filesRead.withLock({ $0 }) { observer(files, .inputs) }
        return wav
    }

    /// Variant `variant` of the current job prepared at `scale`, kept until the text, the plugins or
    /// a file the layers read change.
    func prepared(variant: Int = 0, scale: Double?) throws(StudioFailure) -> PlannedJob {
        try plan(variant: variant, scale: scale, hiding: []).job
    }

    /// Variant `variant` of the current job without the effect layers at `hidden`, prepared at `scale`, and the
    /// text it was prepared from.
    private func plan(variant: Int, scale: Double?, hiding hidden: [Int]) throws(StudioFailure) -> Prepared {
        let made = try state.withLock { state throws(StudioFailure) -> (Prepared, Set<String>?) in
            guard state.validation.valid, !state.validation.jobs.isEmpty else {
                throw StudioFailure(status: 409, "the job file is not valid; GET /api/job lists its problems")
            }
            guard state.validation.jobs.indices.contains(variant) else {
                throw StudioFailure(
                    status: 400, "variant=\(variant): the job has variants 0…\(state.validation.jobs.count - 1)")
            }
            var job = state.validation.jobs[variant]
            let key = PlanKey(variant: variant, scale: scale ?? 0, hidden: hidden)
            // A file a layer reads (a Lottie file, an image) edited since: plan again, so its frames
            // get new fingerprints and are drawn from the new content.
            if let ready = state.prepared[key], !ready.job.inputsModified { return (ready, nil) }
            var text = state.text
            if !hidden.isEmpty {
                text = try HiddenLayers.text(text, hiding: hidden, of: job.spec)
                let jobs: [LoadedJob]
                do {
                    jobs = try JobLoader.loadAll(Array(text.utf8), file: options.jobFile)
                } catch {
                    throw StudioFailure(status: 422, "the job without the hidden layers: \(error)")
                }
                // The same variants: taking layers out changes no variant's row.
                guard jobs.indices.contains(variant) else {
                    throw StudioFailure(status: 422, "the job without the hidden layers has no variant \(variant)")
                }
                job = jobs[variant]
            }
            let prepared: PlannedJob
            do {
                guard
                    let first = try RenderEngine(
                        catalog: state.catalog,
                        options: Self.planOptions(
                            options, catalog: state.catalog, text: text, variant: job.variant?.index, scale: scale)
                    )
                    .prepare([job]).first
                else { throw StudioFailure(status: 409, "the job has no frames") }
                prepared = first
            } catch let failure as StudioFailure {
                throw failure
            } catch {
                throw StudioFailure(status: 400, "\(error)")
            }
            let canvas = prepared.job.spec.canvas
            guard canvas.pixelWidth * canvas.pixelHeight <= StudioLimits.maxFramePixels else {
                throw StudioFailure(
                    status: 413,
                    "a \(canvas.pixelWidth)×\(canvas.pixelHeight) frame is larger than the studio's "
                        + "\(StudioLimits.maxFramePixels) pixels; ask for a smaller scale")
            }
            let hiding = state.prepared.keys.filter { !$0.hidden.isEmpty }
            if !hidden.isEmpty, hiding.count >= Self.keptHiddenPlans {
                for other in hiding { state.prepared[other] = nil }
            }
            let made = Prepared(job: prepared, text: text)
            state.prepared[key] = made
            return (made, Set(state.prepared.values.flatMap(\.job.inputPaths)))
        }
        if let files = made.1, let observer = filesRead.withLock({ $0 }) { observer(files, .inputs) }
        return made.0
    }

    /// `GET /api/job`: the text, its validation and what the page builds its controls from, for
    /// variant `variant` (the first when out of range).
    func json(variant: Int = 0) -> JSONValue {
        state.withLock { state in
            var object: JSONObject = [
                "file": .string(options.jobFile), "version": .number(Double(state.version)),
                "etag": .string(tag(state.version)), "text": .string(state.text),
                "inputGeneration": .number(Double(state.inputGeneration)),
            ]
            for (key, value) in state.validation.json { object[key] = value }
            // The blend modes a layer's `blend` takes, and the effects a layer can be made of (the page's "add layer").
            object["blendModes"] = .array(BlendMode.allCases.map { .string($0.rawValue) })
            // The names a keyframe's timing takes, for the keyframe editor.
            object["timings"] = .array(KeyframeTiming.names.map { .string($0) })
            object["effects"] = .array(
                state.catalog.plugins.keys.sorted().compactMap { id in
                    state.catalog.plugins[id].map {
                        .object([
                            "id": .string(id), "summary": .string($0.info.summary),
                            "parameters": .array($0.info.parameters.map(StudioJSON.parameter)),
                        ])
                    }
                })
            let jobs = state.validation.jobs
            let chosen = jobs.indices.contains(variant) ? variant : 0
            if jobs.contains(where: { $0.variant != nil }) {
                object["variants"] = .array(jobs.compactMap { $0.variant?.json })
                object["variant"] = .number(Double(chosen))
            }
            if let spec = jobs.indices.contains(chosen) ? jobs[chosen].spec : nil {
                object["job"] = StudioJSON.job(spec)
                object["layers"] = .array(
                    zip(spec.layers, spec.clocks).map {
                        StudioJSON.layer($0, clock: $1, plugin: state.catalog[$0.effect]?.info)
                    })
                // The layers and groups turned off (`"enabled": false`), which the panel lists to turn on again.
                object["disabled"] = .array(
                    spec.disabled.map {
                        .object([
                            "path": .string($0.path), "effect": $0.effect.map(JSONValue.string) ?? .null,
                            "name": $0.name.map(JSONValue.string) ?? .null,
                        ])
                    })
            }
            return .object(object)
        }
    }

    /// Where each effect layer's points are on the canvas at frame `index` of variant `variant` (the
    /// layers of `json(variant:)`, in its order): the map through the layer's transform and those of the
    /// groups holding it, as the engine draws it (`LayerClock.placement`), cairo's six numbers; null while
    /// the layer is not drawn. The page puts a layer's canvas handles through it.
    func placements(frame index: Int, variant: Int = 0) throws(StudioFailure) -> JSONValue {
        try state.withLock { state throws(StudioFailure) -> JSONValue in
            let jobs = state.validation.jobs
            guard state.validation.valid, jobs.indices.contains(variant) else {
                throw StudioFailure(status: 409, "the job file is not valid, or has no variant \(variant)")
            }
            let spec = jobs[variant].spec
            guard (0..<spec.frameCount).contains(index) else {
                throw StudioFailure(status: 422, "frame \(index) is not in the job (0…\(spec.frameCount - 1))")
            }
            let t = spec.time(ofFrame: index)
            return .object([
                "frame": .number(Double(index)),
                "layers": .array(
                    spec.clocks.map { clock in
                        clock.placement(at: t).map { .array($0.numbers.map(JSONValue.number)) } ?? .null
                    }),
            ])
        }
    }

    /// How the studio plans `text` as the job file (variant `variant`, every one when nil) at `scale`: when its
    /// previews are drawn by sandboxed workers, a planning worker of the same kind creates and verifies the
    /// instances (`IsolatedPlanner`, sent the text: an edit is checked before it is saved), so no plugin code runs
    /// in the studio's process but loading the libraries; otherwise here.
    static func planOptions(
        _ options: StudioOptions, catalog: PluginCatalog, text: String, variant: Int?, scale: Double?
    ) -> PlanOptions {
        var plan = PlanOptions(scale: scale)
        guard let previewWorker = options.previewWorker else { return plan }
        let folders = StudioOptions.existingFolders(catalog.searchPath)
        plan.creator = IsolatedPlanner(
            arguments: previewWorker(options.jobFile, variant, scale, folders), pluginFolders: folders, scale: scale,
            jobText: Array(text.utf8), environment: options.environment)
        return plan
    }

    /// The job file's text; nil when it is missing, not a regular file, or larger than a job file may be.
    private static func read(_ path: String) -> String? {
        guard let bytes = try? InputFile.read(path, limit: JobLoader.maxFileBytes) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// What `renderfarm validate FILE` says about `text` as the contents of the job file.
    static func validate(_ text: String?, _ options: StudioOptions, _ catalog: PluginCatalog) -> Validation {
        guard let text else { return Validation(jobs: [], errors: [.missing(file: options.jobFile)]) }
        let jobs: [LoadedJob]
        do {
            jobs = try JobLoader.loadAll(Array(text.utf8), file: options.jobFile)
        } catch {
            return Validation(jobs: [], errors: [error])
        }
        if catalog.plugins.isEmpty {
            return Validation(
                jobs: jobs, errors: [],
                failure: "no plugins found; searched: \(catalog.searchPath.joined(separator: ", "))")
        }
        // A missing music file is told while the job is edited, as `validate` tells it; the plans of the
        // previews, made from text validated so, do not open the sound files again.
        var plan = planOptions(options, catalog: catalog, text: text, variant: nil, scale: nil)
        plan.checksSoundFiles = true
        do {
            _ = try RenderEngine(catalog: catalog, options: plan).prepare(jobs)
            return Validation(jobs: jobs, errors: [])
        } catch {
            return Validation(jobs: jobs, errors: error.errors)
        }
    }
}

/// A request the studio cannot answer with what was asked: a status and a message.
struct StudioFailure: Error {
    var status: Int
    var message: String

    init(status: Int, _ message: String) {
        self.status = status
        self.message = message
    }
}
