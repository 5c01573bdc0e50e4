import RenderFarmPluginABI
import StrictJSON

/// Where the job places a layer: what `create` learns about its canvas and timeline.
public struct EffectContext: Sendable, Equatable {
    /// Canvas size in points.
    public var width: Double
    public var height: Double
    /// Pixels per point (the host has already applied it to the cairo context).
    public var scale: Double
    public var fps: Double
    /// Job duration in seconds.
    public var duration: Double
    public var frameCount: Int
    /// Job time at which the layer's local time is 0.
    public var layerStart: Double
    /// The layer's seed; derive per-item seeds with `itemSeed(_:)`.
    public var seed: UInt64
    /// Absolute folder of the job file, for relative asset paths.
    public var jobDirectory: String
    /// Absolute folder that holds the plugin's library (links resolved), for assets shipped beside it; nil when the
    /// host is older than ABI v1's `plugin_dir`. Name every asset read from it in `Effect.inputFiles`.
    public var pluginDirectory: String?

    public init(
        width: Double, height: Double, scale: Double = 1, fps: Double = 60, duration: Double,
        frameCount: Int? = nil, layerStart: Double = 0, seed: UInt64 = 0, jobDirectory: String = ".",
        pluginDirectory: String? = nil
    ) {
        self.width = width
        self.height = height
        self.scale = scale
        self.fps = fps
        self.duration = duration
        self.frameCount = frameCount ?? Int((duration * fps).rounded())
        self.layerStart = layerStart
        self.seed = seed
        self.jobDirectory = jobDirectory
        self.pluginDirectory = pluginDirectory
    }

    /// The seed of item `index` of this layer (`rf_derive_seed`, the same rule in every plugin).
    public func itemSeed(_ index: Int) -> UInt64 { rf_derive_seed(seed, UInt64(index)) }

    /// The seed of item `index` of group `group` (a particle cell, say): the same rule one level down, so
    /// each group's items draw independently of the other groups and of how many items each has.
    public func itemSeed(_ index: Int, inGroup group: Int) -> UInt64 {
        rf_derive_seed(itemSeed(group), UInt64(index))
    }

    /// How long the layer runs: from its start to the end of the job.
    public var layerDuration: Double { max(0, duration - layerStart) }
}

/// One frame to draw: its index, job time and layer-local time in seconds.
public struct FrameTime: Sendable, Equatable {
    public var index: Int
    public var time: Double
    public var local: Double

    public init(index: Int, time: Double, local: Double) {
        self.index = index
        self.time = time
        self.local = local
    }
}

/// The state of one item at one frame, as `renderfarm trace` prints it.
public struct TraceItem: Sendable, Equatable {
    public var id: Int
    /// Position in points (which point of the item is the effect's documented anchor).
    public var position: Point
    public var scale: Double
    public var alpha: Double
    public var visible: Bool
    /// Effect-specific extras: spawn time, path control points, velocity, ...
    public var plan: JSONObject
    /// Effect-specific state printed beside `x` and `y` (e.g. `vx`, `vy` of a physics body).
    public var fields: JSONObject

    public init(
        id: Int, position: Point, scale: Double = 1, alpha: Double = 1, visible: Bool, plan: JSONObject = JSONObject(),
        fields: JSONObject = JSONObject()
    ) {
        self.id = id
        self.position = position
        self.scale = scale
        self.alpha = alpha
        self.visible = visible
        self.plan = plan
        self.fields = fields
    }

    /// The JSON object of ABI's `trace` output.
    public var json: JSONValue {
        var object = JSONObject()
        object["id"] = .number(Double(id))
        object["x"] = .number(position.x)
        object["y"] = .number(position.y)
        for (key, value) in fields { object[key] = value }
        object["scale"] = .number(scale)
        object["alpha"] = .number(alpha)
        object["visible"] = .bool(visible)
        object["plan"] = .object(plan)
        return .object(object)
    }
}
