import FileOutput
import Foundation
import Locking
import RenderFarmJobs
import RenderFarmOutput
import RenderFarmPluginABI
import StrictJSON

/// A job after the *plan* phase: validated against its plugins, instances created, output folder
/// resolved; ready to render once its folder is open and its layers warmed up.
package final class PlannedJob: Sendable {
    package let job: LoadedJob
    /// Absolute output folder.
    package let outputDirectory: String
    /// The frames this run is asked for (the job's set, or `--frames`, or a shard of it).
    package let frames: FrameSet
    /// The frames of the whole render this run is part of: `frames` before sharding.
    package let jobFrames: FrameSet
    /// The plugins of the layers, in layer order.
    package let plugins: [PluginInfo]
    /// A hash of everything that decides the pixels (<doc:OutputFolder>), shared by all frames.
    package var fingerprint: String { identity.value.fingerprint }
    /// Everything that decides the pixels, as hashed into `fingerprint`.
    var canonical: JSONValue { identity.value.canonical }
    /// Both, made on first use: a plan that is only checked (`validate`) never encodes the job and never
    /// reads its plugin libraries whole.
    private let identity: JobIdentity
    /// The files the layers read, as hashed into `canonical` (`LayerInput`).
    let inputs: [LayerInput]
    /// The layers' plugin instances; empty when they live in other processes (`drawsElsewhere`).
    let layers: [PluginInstance]
    /// The plugins of the layers, in layer order.
    let layerPlugins: [LoadedPlugin]
    /// Whether the instances were created in other processes (`render --isolate`: in sandboxed workers, which
    /// draw the frames and report the frame keys, `setFrameFingerprints`); this process holds none.
    package let drawsElsewhere: Bool
    /// What the plugins' `create` warned about, at each layer's place in the job file.
    package let warnings: [JobIssue]
    /// The sound each layer's plugin plays (ABI `sounds`), by layer index; layers without sound left out.
    package let sounds: [Int: [DeclaredSound]]
    /// The moments of each layer's items (ABI `moments`), by layer index; layers without moments left out.
    package let moments: [Int: [DeclaredMoment]]
    /// `frameFingerprints`, once computed.
    private let fingerprintCache = Locked<FrameFingerprints?>(nil)
    /// How many bottom layers are frame-invariant (`RF_PLUGIN_FRAME_INVARIANT`) and drawn the same
    /// way at every frame: drawn once in the process with the background and copied into every frame.
    let staticLayerCount: Int
    /// Those layers, drawn: shared by the workers that draw this job's frames.
    let staticLayers = StaticLayers()
    /// How each layer's own time follows the job's (groups, `speed`, `loop`, `end`).
    let clocks: [LayerClock]

    var spec: JobSpec { job.spec }

    /// Where the layers' instances are.
    enum Layers {
        /// In this process.
        case here([PluginInstance])
        /// In other processes, which created them from these plugins.
        case elsewhere([LoadedPlugin])
    }

    init(
        job: LoadedJob, outputDirectory: String, frames: FrameSet, jobFrames: FrameSet? = nil,
        layers: Layers, identity: JobIdentity, inputs: [LayerInput] = [], warnings: [JobIssue] = [],
        sounds: [Int: [DeclaredSound]] = [:], moments: [Int: [DeclaredMoment]] = [:]
    ) {
        self.inputs = inputs
        self.job = job
        self.outputDirectory = outputDirectory
        self.frames = frames
        self.jobFrames = jobFrames ?? frames
        switch layers {
        case .here(let instances):
            self.layers = instances
            layerPlugins = instances.map(\.plugin)
            drawsElsewhere = false
        case .elsewhere(let plugins):
            self.layers = []
            layerPlugins = plugins
            drawsElsewhere = true
        }
        self.warnings = warnings
        self.sounds = sounds
        self.moments = moments
        self.identity = identity
        plugins = layerPlugins.map(\.info)
        clocks = job.spec.clocks
        staticLayerCount = Self.staticLayerCount(job.spec, invariant: plugins.map(\.frameInvariant))
    }

    /// The output folder.
    package var folder: OutputFolder { OutputFolder(outputDirectory) }

    /// Creates the output folder and takes the lock of `shard` in it, before anything else is written
    /// there: the session the run holds until it ends (`ReadyRun`). `.output` names who holds it.
    func openFolder(shard: Shard, task: String) throws(JobError) -> OutputFolder.Session {
        do throws(OutputError) {
            return try folder.open(shard: shard, task: task)
        } catch {
            throw .output(file: job.file, error: error)
        }
    }

    /// Writes frame `index` whole into `folder`, the output folder the run holds open: a symbolic link or
    /// special file in its place is refused, never written through.
    func writeFrame(_ bytes: UnsafeRawBufferPointer, index: Int, into folder: FolderDescriptor) throws(OutputError) {
        try folder.write(bytes, to: spec.output.fileName(ofFrame: index))
    }

    /// Tells every layer what this run asks of it (ABI `prepare`, `prepare_with_cache`); a problem is the
    /// job's. `folder` is the output folder when the run holds it open, whose cache the layers are given.
    func warmUpLayers(_ warmUp: LayerWarmUp, folder: FolderDescriptor?) throws(JobError) {
        guard let first = frames.frames.min(), let last = frames.frames.max() else { return }
        switch warmUp {
        case .none: return
        case .frames: try warmUpLayers(frames: first...last, writingCache: false, folder: folder)
        case .framesWithCache: try warmUpLayers(frames: first...last, writingCache: true, folder: folder)
        case .fillCache: try warmUpLayers(frames: last...last, writingCache: true, folder: folder)
        }
    }

    /// Prepares every layer for `frames` with its cache folder: always when `writingCache` (the plugin
    /// makes the folder when it first keeps something, so a job whose layers keep nothing has none),
    /// else only when the folder exists. A cache folder that is a link (or no folder) is refused first,
    /// before any plugin or worker is given its path.
    private func warmUpLayers(frames: ClosedRange<Int>, writingCache: Bool, folder: FolderDescriptor?)
        throws(JobError)
    {
        var issues: [JobIssue] = []
        // Instances elsewhere prepare there; their cache folders are refused here all the same when they are links.
        for plugin in layerPlugins where drawsElsewhere {
            do {
                _ = try cacheFolder(for: plugin, whenMissing: writingCache, in: folder)
            } catch {
                throw .output(file: job.file, error: error)
            }
        }
        for (index, layer) in layers.enumerated() {
            let cache: String?
            do {
                cache = try cacheFolder(for: layer.plugin, whenMissing: writingCache, in: folder)
            } catch {
                throw .output(file: job.file, error: error)
            }
            do {
                try layer.prepare(frames: layerFrames(frames, layer: index), cache: cache)
            } catch {
                issues += PluginProblems.issues(error.message, layer: spec.layers[index])
            }
        }
        guard issues.isEmpty else { throw .invalid(file: job.file, issues: job.located(issues)) }
    }

    /// The folder of `layer`'s plugin in the job's cache (ABI `prepare_with_cache`): its path when it
    /// exists (cleared of files that a writer which died left half-written), or `whenMissing`; nil
    /// otherwise. The host never makes or removes it: shards of one job prepare side by side, and a
    /// folder one removed could be the one another is about to write into. `renderfarm.cache` and the
    /// plugin's folder are opened without following a link: a link or a file in their place is refused
    /// (a link would let a plugin, and a sandboxed worker's write rule, reach outside the output folder).
    private func cacheFolder(for plugin: LoadedPlugin, whenMissing: Bool, in folder: FolderDescriptor?)
        throws(OutputError) -> String?
    {
        let id = plugin.info.id
        let path = (cacheFolder as NSString).appendingPathComponent(id)
        // No output folder yet (a preview before any render): no cache either.
        guard let output = folder ?? (try? FolderDescriptor(opening: outputDirectory)),
            let caches = try output.subfolder(FolderLayout.cache), let own = try caches.subfolder(id)
        else { return whenMissing ? path : nil }
        // EffectCache writes `.rf-tmp-…` and renames it.
        own.removeStale()
        return path
    }

    /// Whether a file the layers read was modified since the job was planned: its frames would
    /// draw from the new content, so a plan kept for long (the studio's) is made again.
    package var inputsModified: Bool { inputs.contains(where: \.isModified) }

    /// The output folder's subfolder of plugin caches (`RF_CACHE_FOLDER`).
    package var cacheFolder: String { folder.file(FolderLayout.cache) }

    /// The same job asked for `frames` only (its instances shared); `jobFrames` stays.
    func with(frames: FrameSet) -> PlannedJob {
        PlannedJob(
            job: job, outputDirectory: outputDirectory, frames: frames, jobFrames: jobFrames,
            layers: drawsElsewhere ? .elsewhere(layerPlugins) : .here(layers), identity: identity, inputs: inputs,
            warnings: warnings, sounds: sounds, moments: moments)
    }

    /// Whether a layer's plugin reports frame keys (ABI `frame_key`).
    package var hasKeyedLayers: Bool { layerPlugins.contains { $0.frameKey != nil } }

    /// Gives the frame fingerprints a worker computed from its instances' frame keys (`drawsElsewhere`), checked
    /// by the caller; before the first use of `frameFingerprints`.
    package func setFrameFingerprints(_ fingerprints: FrameFingerprints) {
        fingerprintCache.withLock { $0 = fingerprints }
    }

    /// The fingerprint of each frame of this run, from the layers' frame keys where they report
    /// them (computed on first use, after `warmUpLayers`; for instances elsewhere, given by
    /// `setFrameFingerprints`, else the job's for every frame).
    package var frameFingerprints: FrameFingerprints {
        fingerprintCache.withLock { cache in
            if let cache { return cache }
            let computed = computeFrameFingerprints()
            cache = computed
            return computed
        }
    }

    /// The fingerprint of frame `index` as a job-wide key (the job's, bound to the frame number),
    /// without asking plugins for frame keys: for caches that last one process.
    package func fingerprint(ofFrame index: Int) -> String {
        FrameFingerprints.fingerprint(job: fingerprint, frame: index)
    }

    /// Absolute path of frame `index`.
    package func path(ofFrame index: Int) -> String {
        (outputDirectory as NSString).appendingPathComponent(spec.output.fileName(ofFrame: index))
    }

    /// How each layer's plugin instance was created, in layer order: for tools that drive the
    /// same plugins through the C ABI themselves (renderfarm-bench's C host).
    package var layerCreations: [LayerCreation] {
        layers.map { LayerCreation(plugin: $0.plugin.info, start: $0.layerStart, seed: $0.seed, params: $0.params) }
    }

    /// The ABI's view of frame `index` for layer `layer`, or nil when the layer is not drawn then
    /// (after its `end`, or outside a group's span). A layer whose time runs at another speed or
    /// loops sees the job time and frame at which a plain layer would be at its local time (the
    /// frame at or before it): effects that step frame by frame follow it too. A layer of a composition sees the
    /// frame and time of the composition file's timeline, as rendered alone. `time`: a job time other than the
    /// frame's, a motion blur sample's.
    func abiFrame(_ index: Int, layer: Int, time: Double? = nil) -> rf_frame? {
        let time = time ?? spec.time(ofFrame: index)
        let clock = clocks[layer]
        guard let local = clock.localTime(at: time) else { return nil }
        // A composition's layer is at the frame and time of the composition file's own timeline.
        let scope = spec.layers[layer].scope
        guard !clock.isShift || scope != nil else { return rf_frame(index: UInt32(index), time: time, local: local) }
        let shown = clock.startInComposition + local
        let count = scope.map { JobSpec.frameCount(duration: $0.duration, fps: spec.fps) } ?? spec.frameCount
        let frame = min(max(0, (shown * spec.fps + 1e-9).rounded(.down)), Double(count - 1))
        return rf_frame(index: UInt32(frame), time: shown, local: local)
    }

    /// What a frame draws one after the other: the layers, or the composition's entries.
    var drawnEntryCount: Int { spec.isComposed ? spec.composition.count : layers.count }

    /// The frames layer `layer` is asked to draw when the run draws `frames`: the same, unless its
    /// time runs at another speed or loops.
    func layerFrames(_ frames: ClosedRange<Int>, layer: Int) -> ClosedRange<Int> {
        guard !clocks[layer].isShift else { return frames }
        let shown = frames.compactMap { abiFrame($0, layer: layer).map { Int($0.index) } }
        guard let first = shown.min(), let last = shown.max() else { return frames }
        return first...last
    }

    /// The bottom layers drawn the same at every frame: still layers (`isStill`) at the top of the list that
    /// are not another layer's mask.
    private static func staticLayerCount(_ spec: JobSpec, invariant: [Bool]) -> Int {
        guard spec.isComposed else { return invariant.prefix { $0 }.count }
        return spec.composition.prefix { node in
            !node.isMask && isStill(node) { $0 < invariant.count && invariant[$0] }
        }.count
    }

    /// Whether `node` draws the same at every frame, given the transformation it is drawn with: a frame-invariant
    /// effect without time fields, keyframes, a mask or motion blur (a sample falls before the start of a group
    /// holding the layer, or after its end, at some frames and not at others, and is then left out).
    func isStill(_ node: LayerNode) -> Bool {
        Self.isStill(node) { $0 < plugins.count && plugins[$0].frameInvariant }
    }

    private static func isStill(_ node: LayerNode, invariant: (Int) -> Bool) -> Bool {
        guard case .effect(let index) = node.content, invariant(index) else { return false }
        return !node.hasSpan && !node.fields.isAnimated && node.fields.mask == nil && node.fields.motionBlur == nil
    }
}

/// What the engine passed to one layer's `create`, besides the canvas and timing of the job:
/// the plugin, the layer's start and seed, and its parameters with defaults filled (give them
/// to `ParamStore` for `params_json` and the getters' answers).
package struct LayerCreation: Sendable {
    package var plugin: PluginInfo
    /// `rf_context.layer_start`, seconds.
    package var start: Double
    /// `rf_context.seed`: `rf_derive_seed(job seed, layer index)`.
    package var seed: UInt64
    package var params: JSONObject
}

/// A job's canonical form (`FrameIdentity.canonical`) and its fingerprint, made once, on first use, from what
/// its plan found.
final class JobIdentity: Sendable {
    private let make: @Sendable () -> JSONValue
    private let made = Locked<(canonical: JSONValue, fingerprint: String)?>(nil)

    init(_ make: @escaping @Sendable () -> JSONValue) { self.make = make }

    var value: (canonical: JSONValue, fingerprint: String) {
        made.withLock { made in
            if let made { return made }
            let canonical = make()
            let value = (canonical, SHA256.hex(canonical.serialized(sortedKeys: true)))
            made = value
            return value
        }
    }
}
