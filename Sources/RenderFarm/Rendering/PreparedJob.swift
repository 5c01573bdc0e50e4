import FileOutput
import Foundation
import Locking
import RenderFarmJobs
import RenderFarmOutput
import RenderFarmPluginABI
import StrictJSON

/// A job ready to render: validated against its plugins, instances created, output resolved.
public final class PreparedJob: Sendable {
    public let job: LoadedJob
    /// Absolute output folder.
    public let outputDirectory: String
    /// The frames this run is asked for (the job's set, or `--frames`, or a shard of it).
    public let frames: FrameSet
    /// The frames of the whole render this run is part of: `frames` before sharding.
    public let jobFrames: FrameSet
    /// The plugins of the layers, in layer order.
    public let plugins: [PluginInfo]
    /// A hash of everything that decides the pixels (<doc:OutputFolder>), shared by all frames.
    public let fingerprint: String
    /// Everything that decides the pixels, as hashed into `fingerprint`.
    let canonical: JSONValue
    /// The files the layers read, as hashed into `canonical` (`LayerInput`).
    let inputs: [LayerInput]
    let layers: [PluginInstance]
    /// `frameFingerprints`, once computed.
    private let fingerprintCache = Locked<FrameFingerprints?>(nil)
    /// The run's lock on the output folder, once `lockFolder` took it.
    private let heldLock = Locked<FolderLock?>(nil)
    /// How many bottom layers are frame-invariant (`RF_PLUGIN_FRAME_INVARIANT`): drawn once per
    /// worker with the background and copied into every frame.
    let staticLayerCount: Int

    var spec: JobSpec { job.spec }

    init(
        job: LoadedJob, outputDirectory: String, frames: FrameSet, jobFrames: FrameSet? = nil,
        layers: [PluginInstance], canonical: JSONValue, inputs: [LayerInput] = []
    ) {
        self.inputs = inputs
        self.job = job
        self.outputDirectory = outputDirectory
        self.frames = frames
        self.jobFrames = jobFrames ?? frames
        self.layers = layers
        self.canonical = canonical
        plugins = layers.map(\.plugin.info)
        staticLayerCount = layers.prefix { $0.plugin.info.frameInvariant }.count
        fingerprint = SHA256.hex(canonical.serialized(sortedKeys: true))
    }

    /// The lock `lockFolder` took, held as long as the job: writers of the folder use it.
    public var folderLock: FolderLock? { heldLock.withLock { $0 } }

    /// Creates the output folder and takes the lock of `shard` in it (kept in `folderLock`), before
    /// anything else is written there; `.output` names who holds it.
    func lockFolder(shard: Shard, task: String) throws(JobError) {
        do throws(OutputError) {
            try AtomicFile.createDirectory(outputDirectory)
            let lock = try FolderLock.acquire(outputDirectory, shard: shard, task: task)
            heldLock.withLock { $0 = lock }
        } catch {
            throw .output(file: job.file, error: error)
        }
    }

    /// Tells every layer what this run asks of it (ABI `prepare`, `prepare_with_cache`); a
    /// problem is the job's.
    func prepareLayers(_ preparation: LayerPreparation) throws(JobError) {
        guard let first = frames.frames.min(), let last = frames.frames.max() else { return }
        switch preparation {
        case .none: return
        case .frames: try prepareLayers(frames: first...last, writingCache: false)
        case .framesWithCache: try prepareLayers(frames: first...last, writingCache: true)
        case .fillCache: try prepareLayers(frames: last...last, writingCache: true)
        }
    }

    /// Prepares every layer for `frames` with its cache folder: always when `writingCache` (the plugin
    /// makes the folder when it first keeps something, so a job whose layers keep nothing has none),
    /// else only when the folder exists.
    private func prepareLayers(frames: ClosedRange<Int>, writingCache: Bool) throws(JobError) {
        var issues: [JobIssue] = []
        for (index, layer) in layers.enumerated() {
            let cache = cacheFolder(for: layer, whenMissing: writingCache)
            do {
                try layer.prepare(frames: frames, cache: cache)
            } catch {
                issues += PluginProblems.issues(error.message, layer: index, effect: spec.layers[index].effect)
            }
        }
        guard issues.isEmpty else { throw .invalid(file: job.file, issues: job.located(issues)) }
    }

    /// The folder of `layer`'s plugin in the job's cache (ABI `prepare_with_cache`): its path when it
    /// exists (cleared of files that a writer which died left half-written), or `whenMissing`; nil
    /// otherwise. The host never makes or removes it: shards of one job prepare side by side, and a
    /// folder one removed could be the one another is about to write into.
    private func cacheFolder(for layer: PluginInstance, whenMissing: Bool) -> String? {
        let folder = URL(fileURLWithPath: outputDirectory)
            .appendingPathComponent(Self.cacheFolderName).appendingPathComponent(layer.plugin.info.id).path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            return whenMissing ? folder : nil
        }
        // EffectCache writes `.rf-tmp-…` and renames it.
        StagedFile.removeStale(in: folder)
        return folder
    }

    /// Whether a file the layers read was modified since the job was planned: its frames would
    /// draw from the new content, so a plan kept for long (the studio's) is made again.
    public var inputsModified: Bool { inputs.contains(where: \.isModified) }

    /// The output folder's subfolder of plugin caches (`RF_CACHE_FOLDER`).
    public static let cacheFolderName = FolderLayout.cache

    /// The same job asked for `frames` only (its instances shared); `jobFrames` stays.
    func with(frames: FrameSet) -> PreparedJob {
        PreparedJob(
            job: job, outputDirectory: outputDirectory, frames: frames, jobFrames: jobFrames, layers: layers,
            canonical: canonical, inputs: inputs)
    }

    /// The fingerprint of each frame of this run, from the layers' frame keys where they report
    /// them (computed on first use, after `prepareLayers`).
    public var frameFingerprints: FrameFingerprints {
        fingerprintCache.withLock { cache in
            if let cache { return cache }
            let computed = computeFrameFingerprints()
            cache = computed
            return computed
        }
    }

    /// The fingerprint of frame `index` as a job-wide key (the job's, bound to the frame number),
    /// without asking plugins for frame keys: for caches that last one process.
    public func fingerprint(ofFrame index: Int) -> String {
        FrameFingerprints.fingerprint(job: fingerprint, frame: index)
    }

    /// Absolute path of frame `index`.
    public func path(ofFrame index: Int) -> String {
        (outputDirectory as NSString).appendingPathComponent(spec.output.fileName(ofFrame: index))
    }

    /// How each layer's plugin instance was created, in layer order: for tools that drive the
    /// same plugins through the C ABI themselves (renderfarm-bench's C host).
    public var layerCreations: [LayerCreation] {
        layers.map { LayerCreation(plugin: $0.plugin.info, start: $0.layerStart, seed: $0.seed, params: $0.params) }
    }

    /// The ABI's view of frame `index` for a layer that starts at `layerStart`.
    func abiFrame(_ index: Int, layerStart: Double) -> rf_frame {
        let time = spec.time(ofFrame: index)
        return rf_frame(index: UInt32(index), time: time, local: time - layerStart)
    }
}

/// What the engine passed to one layer's `create`, besides the canvas and timing of the job:
/// the plugin, the layer's start and seed, and its parameters with defaults filled (give them
/// to `ParamStore` for `params_json` and the getters' answers).
public struct LayerCreation: Sendable {
    public var plugin: PluginInfo
    /// `rf_context.layer_start`, seconds.
    public var start: Double
    /// `rf_context.seed`: `rf_derive_seed(job seed, layer index)`.
    public var seed: UInt64
    public var params: JSONObject
}

extension PreparedJob {
    /// What the plugins' `create` warned about, at each layer's place in the job file.
    public var warnings: [JobIssue] {
        layers.enumerated().flatMap { index, layer in
            PluginProblems.issues(layer.warnings, layer: index, effect: layer.plugin.info.id, severity: .warning)
        }
    }
}
