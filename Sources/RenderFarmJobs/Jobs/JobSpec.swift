import CairoKit
import StrictJSON

/// A job file, version 1 (<doc:JobFileReference>), decoded and validated, with defaults filled.
public struct JobSpec: Sendable, Equatable {
    /// The newest job-file version this renderer reads.
    public static let supportedVersion = 1

    public var version: Int
    public var name: String
    public var seed: UInt64
    public var canvas: Canvas
    public var fps: Double
    public var duration: Double
    /// The frames to render, within `0..<frameCount`.
    public var frames: FrameSet
    public var output: OutputSettings
    /// How many times a failing frame is tried again.
    public var retries: Int
    /// The effect layers, in drawing order (those inside groups where their group is drawn).
    public var layers: [LayerSpec]
    /// How the layers are drawn together: the job's list of layers and groups with their
    /// host-level fields (the RenderFarm article ComposingLayers).
    public var composition: [LayerNode] = []

    /// Frames in the job's timeline: `duration × fps`, rounded.
    public var frameCount: Int { Self.frameCount(duration: duration, fps: fps) }

    package static func frameCount(duration: Double, fps: Double) -> Int { Int((duration * fps).rounded()) }

    /// Job time of frame `index`.
    public func time(ofFrame index: Int) -> Double { Double(index) / fps }
}

/// The drawing surface: size in points, pixels per point, and the colour under every layer.
public struct Canvas: Sendable, Equatable {
    public var width: Double
    public var height: Double
    public var scale: Double
    public var background: Color

    /// Size in pixels.
    public var pixelWidth: Int { Int((width * scale).rounded()) }
    public var pixelHeight: Int { Int((height * scale).rounded()) }
}

/// Where and how frames are written.
public struct OutputSettings: Sendable, Equatable {
    /// As written in the job (relative to the job file's folder unless absolute).
    public var directory: String
    public var prefix: String
    public var padding: Int
    public var compression: Compression
    /// How a frame that draws the same as an earlier one of the run is written (`output.duplicates`).
    public var duplicates: Duplicates = .copy

    /// How a frame that draws the same as an earlier frame is written: from the earlier frame's
    /// file, never drawn again.
    public enum Duplicates: String, Sendable, CaseIterable {
        /// A copy of the file (default): every frame is a file of its own.
        case copy
        /// A hard link to the file: no extra space; both names share one inode.
        case link
    }

    /// File name of frame `index`, e.g. `frame_00042.png`.
    public func fileName(ofFrame index: Int) -> String {
        Self.fileName(prefix: prefix, padding: padding, frame: index)
    }

    /// File name of frame `index` for a prefix and zero padding (shared with `JobRecord`).
    package static func fileName(prefix: String, padding: Int, frame index: Int) -> String {
        let digits = String(index)
        let zeros = String(repeating: "0", count: max(0, padding - digits.count))
        return prefix + zeros + digits + ".png"
    }
}

/// PNG compression: a zlib level and a row filter strategy.
public struct Compression: Sendable, Equatable {
    public var level: Int
    /// Whether libpng tries every row filter (smaller, slower) instead of none (<doc:Performance>).
    public var adaptiveFilters: Bool

    /// Level 1 without row filters: about 4× faster than cairo's writer at a modest size cost.
    public static let fast = Compression(level: 1, adaptiveFilters: false)
    /// Level 9 with adaptive row filters: the smallest files.
    public static let small = Compression(level: 9, adaptiveFilters: true)

    /// A job's `output.compression` number: levels 0–3 skip row filters, 4–9 use them.
    public init(level: Int) {
        self.init(level: level, adaptiveFilters: level >= 4)
    }

    public init(level: Int, adaptiveFilters: Bool) {
        self.level = level
        self.adaptiveFilters = adaptiveFilters
    }
}

/// One effect layer: which plugin, when it starts in its list, and its parameters as written.
public struct LayerSpec: Sendable, Equatable {
    public var effect: String
    public var start: Double
    public var params: JSONObject
    /// Where it is in the job file: `layers[2]`, `layers[1].group[0]`.
    public var path: String
}
