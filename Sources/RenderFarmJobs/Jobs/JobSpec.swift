import CairoKit
import Foundation
import StrictJSON

/// A job file, version 1 (<doc:JobFileReference>), decoded and validated, with defaults filled.
package struct JobSpec: Sendable, Equatable, Encodable {
    /// The newest job-file version this renderer reads.
    package static let supportedVersion = 1

    package var version: Int
    package var name: String
    package var seed: UInt64
    package var canvas: Canvas
    package var fps: Double
    package var duration: Double
    /// The frames to render, within `0..<frameCount`.
    package var frames: FrameSet
    package var output: OutputSettings
    /// How many times a failing frame is tried again.
    package var retries: Int
    /// The effect layers, in drawing order (those inside groups where their group is drawn).
    package var layers: [LayerSpec]
    /// How the layers are drawn together: the job's list of layers and groups with their
    /// host-level fields (the RenderFarm article ComposingLayers).
    package var composition: [LayerNode] = []
    /// The `audio` section (<doc:Sound>): mixed into videos, never part of a frame.
    package var audio: AudioSpec? = nil
    /// The layers and groups the file turns off (`"enabled": false`): in neither `layers` nor `composition`.
    package var disabled: [DisabledLayer] = []

    /// Frames in the job's timeline: `duration × fps`, rounded.
    package var frameCount: Int { Self.frameCount(duration: duration, fps: fps) }

    package static func frameCount(duration: Double, fps: Double) -> Int { Int((duration * fps).rounded()) }

    /// Job time of frame `index`.
    package func time(ofFrame index: Int) -> Double { Double(index) / fps }
}

/// The drawing surface: size in points, pixels per point, and the colour under every layer.
package struct Canvas: Sendable, Equatable, Encodable {
    package var width: Double
    package var height: Double
    package var scale: Double
    package var background: Color

    /// Size in pixels.
    package var pixelWidth: Int { Int((width * scale).rounded()) }
    package var pixelHeight: Int { Int((height * scale).rounded()) }
}

/// Where and how frames are written.
package struct OutputSettings: Sendable, Equatable, Encodable {
    /// As written in the job (relative to the job file's folder unless absolute).
    package var directory: String
    package var prefix: String
    package var padding: Int
    package var compression: Compression
    /// How a frame that draws the same as an earlier one of the run is written (`output.duplicates`).
    package var duplicates: Duplicates = .copy

    /// How a frame that draws the same as an earlier frame is written: from the earlier frame's
    /// file, never drawn again.
    package enum Duplicates: String, Sendable, CaseIterable, Encodable {
        /// A copy of the file (default): every frame is a file of its own.
        case copy
        /// A hard link to the file: no extra space; both names share one inode.
        case link
    }

    /// File name of frame `index`, e.g. `frame_00042.png`.
    package func fileName(ofFrame index: Int) -> String {
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
package struct Compression: Sendable, Equatable, Encodable {
    package var level: Int
    /// Whether libpng tries every row filter (smaller, slower) instead of the level's own way (<doc:Performance>).
    package var adaptiveFilters: Bool

    /// Level 1: RenderFarm's own encoder, which filters rows itself (<doc:Performance>); the default.
    package static let fast = Compression(level: 1, adaptiveFilters: false)
    /// Level 9 with adaptive row filters: the smallest files.
    package static let small = Compression(level: 9, adaptiveFilters: true)

    /// A job's `output.compression` number: level 1 is RenderFarm's encoder, levels 0, 2 and 3 skip row
    /// filters, 4–9 use libpng's adaptive ones.
    package init(level: Int) {
        self.init(level: level, adaptiveFilters: level >= 4)
    }

    package init(level: Int, adaptiveFilters: Bool) {
        self.level = level
        self.adaptiveFilters = adaptiveFilters
    }
}

/// One effect layer: which plugin, when it starts in its list, and its parameters as written.
package struct LayerSpec: Sendable, Equatable, Encodable {
    package var effect: String
    package var start: Double
    package var params: JSONObject
    /// Where it is in the job file: `layers[2]`, `layers[1].group[0]`, or in a composition file the job places
    /// `layers[3].composition.layers[0]`.
    package var path: String
    /// The composition the layer comes from; nil for a layer of the job file itself.
    package var scope: LayerScope? = nil

    /// The folder of the file that declares the layer, relative to the job's folder: "" for the job file.
    package var folder: String { scope?.folder ?? "" }

    /// The folder its relative asset paths resolve in (its plugin's `job_dir`): the job's folder
    /// `jobDirectory`, or the folder of the composition file that declares the layer.
    package func directory(in jobDirectory: String) -> String {
        folder.isEmpty ? jobDirectory : (jobDirectory as NSString).appendingPathComponent(folder)
    }
}

/// What a layer of a composition (the RenderFarm article ComposingLayers, "Compositions") sees as its job: the
/// composition file's canvas size, duration and seed, and its folder for asset paths, so that it draws as it does
/// when the composition file is rendered alone.
package struct LayerScope: Sendable, Equatable, Encodable {
    /// The composition files that hold the layer, outermost first, relative to the job's folder.
    package var files: [String]
    /// The innermost composition's canvas size in points, and its duration in seconds.
    package var width: Double
    package var height: Double
    package var duration: Double
    /// The innermost composition's seed.
    package var seed: UInt64
    /// The layer's place among the innermost composition's effect layers, counted as its job counts them: the
    /// second half of the layer's seed.
    package var index: Int

    /// The innermost file's folder, relative to the job's folder ("" for one beside the job file).
    package var folder: String { ((files.last ?? "") as NSString).deletingLastPathComponent }
}
