import FileInput
import FileOutput
import Foundation
import Locking
import RenderFarm
import RenderFarmJobs
import StrictJSON

/// The job the author view edits: its text as on disk, what `validate` says about it, the job
/// prepared at each preview scale, and the frames drawn so far (by frame fingerprint).
final class StudioSession: Sendable {
    let options: StudioOptions
    private let state: Locked<State>
    /// Frames are drawn one at a time: plugin instances are not shared between threads.
    private let preview = Locked(FramePreview())

    private struct State {
        var text: String
        var catalog: PluginCatalog
        var validation: Validation
        var prepared: [Double: PlannedJob] = [:]
        var cache = FrameCache(budget: StudioLimits.cacheBytes)
        var version = 1
        var shadow: PluginShadow
    }

    init(options: StudioOptions) {
        self.options = options
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

    /// Reads the job file (and the plugins, when `plugins`) again; true when anything changed.
    @discardableResult
    func reload(plugins: Bool) -> Bool {
        let text = Self.read(options.jobFile)
        return state.withLock { state in
            guard plugins || text != state.text || (text == nil) != state.validation.missing else { return false }
            if plugins { state.catalog = PluginCatalog.discover(searchPath: state.shadow.searchPath()) }
            state.text = text ?? ""
            state.validation = Self.validate(text, options, state.catalog)
            state.prepared = [:]
            state.version += 1
            return true
        }
    }

    /// Validates `text` as the job file; when valid, writes it there atomically and makes it current.
    func apply(_ text: String) -> (written: Bool, validation: Validation) {
        let validation = state.withLock { Self.validate(text, options, $0.catalog) }
        guard validation.valid else { return (false, validation) }
        var failure: OutputError?
        Array(text.utf8).withUnsafeBytes { bytes in
            do {
                try AtomicFile.write(bytes, to: options.jobFile)
            } catch {
                failure = error as? OutputError ?? .io(path: options.jobFile, reason: "\(error)")
            }
        }
        if let failure { return (false, Validation(jobs: validation.jobs, errors: [], failure: failure.description)) }
        state.withLock { state in
            guard state.text != text else { return }
            state.text = text
            state.validation = validation
            state.prepared = [:]
            state.version += 1
        }
        return (true, validation)
    }

    /// Removes the copies of rebuilt plugins made for reloading.
    func removePluginCopies() { state.withLock { $0.shadow.removeCopies() } }

    /// Frame `index` of the current job at `scale` (the job's own when nil) as PNG bytes.
    func frame(_ index: Int, scale: Double?, debug: Bool) throws(StudioFailure) -> [UInt8] {
        let job = try prepared(scale: scale)
        let key = job.fingerprint(ofFrame: index) + (debug ? "+debug" : "")
        if let hit = state.withLock({ $0.cache.get(key) }) { return hit }
        let bytes = try preview.withLock { preview throws(StudioFailure) in
            do {
                return try preview.png(index, of: job, debug: debug)
            } catch {
                throw StudioFailure(status: 422, "\(error)")
            }
        }
        state.withLock { $0.cache.put(key, bytes) }
        return bytes
    }

    /// The current job prepared at `scale`, kept until the text or the plugins change.
    func prepared(scale: Double?) throws(StudioFailure) -> PlannedJob {
        try state.withLock { state throws(StudioFailure) in
            guard state.validation.valid, let job = state.validation.jobs.first else {
                throw StudioFailure(status: 409, "the job file is not valid; GET /api/job lists its problems")
            }
            let key = scale ?? 0
            // A file a layer reads (a Lottie file, an image) edited since: plan again, so its frames
            // get new fingerprints and are drawn from the new content.
            if let ready = state.prepared[key], !ready.inputsModified { return ready }
            let prepared: PlannedJob
            do {
                guard
                    let first = try RenderPlan.planAndWarmUp(
                        [job], catalog: state.catalog, options: PlanOptions(scale: scale)
                    )
                    .first
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
            state.prepared[key] = prepared
            return prepared
        }
    }

    /// `GET /api/job`: the text, its validation and what the page builds its controls from.
    var json: JSONValue {
        state.withLock { state in
            var object: JSONObject = [
                "file": .string(options.jobFile), "version": .number(Double(state.version)),
                "text": .string(state.text),
            ]
            for (key, value) in state.validation.json { object[key] = value }
            if let spec = state.validation.jobs.first?.spec {
                object["job"] = StudioJSON.job(spec)
                object["layers"] = .array(
                    spec.layers.map { StudioJSON.layer($0, plugin: state.catalog[$0.effect]?.info) })
            }
            return .object(object)
        }
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
        do {
            _ = try RenderPlan.planAndWarmUp(jobs, catalog: catalog)
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
