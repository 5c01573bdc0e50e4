import CPNGWriter
import CairoKit
import FileOutput
import Foundation
import RenderFarmPluginABI

/// How long each step of a frame took, in milliseconds.
package struct FrameTimings: Sendable, Equatable {
    package var draw = 0.0
    package var convert = 0.0
    package var encode = 0.0
    package var write = 0.0

    package var total: Double { draw + convert + encode + write }

    package static func + (lhs: FrameTimings, rhs: FrameTimings) -> FrameTimings {
        FrameTimings(
            draw: lhs.draw + rhs.draw, convert: lhs.convert + rhs.convert,
            encode: lhs.encode + rhs.encode, write: lhs.write + rhs.write)
    }
}

/// A rendered and written frame.
struct WrittenFrame {
    var sha256: String
    var bytes: Int
    var opaque: Bool
    var timings: FrameTimings
}

/// Why a frame could not be produced: the plugin failed or its worker process died (may be
/// retried), or output failed.
enum FrameFailure: Error {
    case plugin(layer: Int, effect: String, message: String)
    case drawing(String)
    /// `render --isolate`: the worker process crashed or timed out on the frame.
    case worker(String)
    case output(OutputError)
    /// `render --isolate` was stopped (SIGINT, SIGTERM) and its grace period ended: the frame's worker was
    /// killed, and the frame is neither done nor failed.
    case interrupted

    var message: String {
        switch self {
        case .plugin(let layer, let effect, let message): "layer \(layer) (\(effect)): \(message)"
        case .drawing(let message), .worker(let message): message
        case .output(let error): error.description
        case .interrupted: "interrupted: its worker process was stopped with the render"
        }
    }
}

/// Draws and writes frames, one at a time, for one lane of the scheduler: in this process
/// (`FrameWorker`) or in a worker process (`WorkerProcess`, `render --isolate`).
protocol FrameExecutor: AnyObject {
    /// Draws, encodes and atomically writes frame `index` of `job` into `folder`, its output folder.
    func render(_ index: Int, of job: PlannedJob, into folder: FolderDescriptor) throws(FrameFailure) -> WrittenFrame
}

/// One worker's reusable frame machinery: a surface for the current canvas size, a lease on the static
/// bottom layers of the current job (drawn once in the process, `StaticLayers`), and a PNG encoder.
/// Nothing on the per-frame path allocates a surface, parses JSON or looks up a dictionary.
/// Not `Sendable`: it lives on the worker that made it.
final class FrameWorker: FrameExecutor {
    private let cacheStaticLayers: Bool
    /// Video without alpha: frames composited over an opaque colour.
    private let matted: MattedCanvas?
    private var canvas: (surface: ImageSurface, context: DrawingContext)?
    private var staticLayers: (job: PlannedJob, lease: StaticLayers.Lease)?
    private let encoder = FrameEncoder()
    /// Where a render watches what this worker draws (nil: nobody watches).
    private let lane: DrawingLane?
    /// The surfaces of layers that compose, kept from frame to frame.
    private lazy var compositor = LayerCompositor(lane: lane, keepsStillSources: cacheStaticLayers)

    /// `cacheStaticLayers: false` draws every layer at every frame (same bytes, for verification).
    /// With a `matte`, every frame is drawn as its PNG is and then composited over that opaque colour
    /// (as `encode` composites the PNGs): frames for video presets without alpha. Drawing the layers
    /// over the matte instead would let a blend mode mix with the matte where the PNG mixes with
    /// transparency.
    init(cacheStaticLayers: Bool = true, matte: Color? = nil, lane: DrawingLane? = nil) {
        self.cacheStaticLayers = cacheStaticLayers
        matted = matte.map(MattedCanvas.init)
        self.lane = lane
    }

    /// Draws, encodes and atomically writes frame `index` of `job` into `folder`, its output folder.
    func render(_ index: Int, of job: PlannedJob, into folder: FolderDescriptor) throws(FrameFailure)
        -> WrittenFrame
    {
        var timings = FrameTimings()
        let clock = ContinuousClock()
        let start = clock.now
        lane?.begin(job: job.spec.name, frame: index)
        defer { lane?.end() }
        let surface = try draw(index, of: job)
        timings.draw = milliseconds(clock.now - start)

        var pngTiming = rf_png_timing()
        let encoded = try encode(surface, of: job, timing: &pngTiming)
        timings.convert = Double(pngTiming.convert_ns) / 1e6
        timings.encode = Double(pngTiming.encode_ns) / 1e6
        let opaque = encoder.opaque

        let writeStart = clock.now
        let sha256 = SHA256.hex(encoded)
        do {
            try job.writeFrame(encoded, index: index, into: folder)
        } catch {
            throw .output(error)
        }
        timings.write = milliseconds(clock.now - writeStart)
        return WrittenFrame(sha256: sha256, bytes: encoded.count, opaque: opaque, timings: timings)
    }

    /// Encodes `surface` as `job`'s PNG frames are encoded; the bytes are valid until the next call.
    func encode(_ surface: ImageSurface, of job: PlannedJob, timing: inout rf_png_timing)
        throws(FrameFailure) -> UnsafeRawBufferPointer
    {
        try encoder.encode(
            surface.bytes, width: surface.width, height: surface.height, stride: surface.stride,
            compression: job.spec.output.compression, timing: &timing)
    }

    /// Draws frame `index` of `job` on this worker's surface and returns it, flushed: the static
    /// bottom layers copied in (drawn once per process), the other layers drawn. The surface is
    /// reused by the next call. PNG output, video frames and contact sheets all start here.
    func draw(_ index: Int, of job: PlannedJob) throws(FrameFailure) -> ImageSurface {
        let (surface, context) = try canvas(for: job)
        let cached = cacheStaticLayers && job.staticLayerCount > 0 ? try staticSurface(for: job, frame: index) : nil
        if let cached {
            // Same size and format (both made here for this canvas), so the rows line up.
            surface.copyPixels(from: cached)
        }
        do {
            try drawLayers(
                job, frame: index, layers: (cached == nil ? 0 : job.staticLayerCount)..<job.drawnEntryCount,
                on: context, background: cached == nil)
        } catch {
            // A context in an error state stays broken: drop it so the next frame starts clean.
            if case .drawing = error { canvas = nil }
            throw error
        }
        surface.flush()
        guard let matted, !job.spec.canvas.background.isOpaque else { return surface }
        do {
            return try matted.composite(surface)
        } catch {
            throw .drawing(error.description)
        }
    }

    /// Draws the background (unless copied in already) and `layers` of frame `index` (for a job that
    /// composes, the entries of its composition).
    private func drawLayers(
        _ job: PlannedJob, frame index: Int, layers: Range<Int>, on context: DrawingContext,
        background: Bool
    ) throws(FrameFailure) {
        let canvas = job.spec.canvas
        context.save()
        if background {
            context.setOperatorSource()
            context.setSource(canvas.background)
            context.paint()
        }
        context.setOperatorOver()
        context.scale(canvas.scale, canvas.scale)
        if job.spec.isComposed {
            // The static layers are the composition's first entries, one effect layer each.
            do {
                try compositor.draw(job, frame: index, nodes: layers, on: context)
            } catch {
                context.restore()
                throw error
            }
        } else {
            for layer in layers {
                let instance = job.layers[layer]
                context.save()
                // A job that does not compose draws every layer at every frame.
                let frame = job.abiFrame(index, layer: layer) ?? rf_frame()
                lane?.layer(layer, effect: instance.plugin.info.id)
                let failure = instance.render(on: context.pointer, frame: frame)
                context.restore()
                if let failure {
                    context.restore()
                    throw .plugin(layer: layer, effect: instance.plugin.info.id, message: failure.message)
                }
            }
        }
        context.restore()
        do {
            try context.checkStatus("drawing frame \(index)")
        } catch {
            throw .drawing(error.description)
        }
    }

    private func canvas(for job: PlannedJob) throws(FrameFailure) -> (ImageSurface, DrawingContext) {
        let width = job.spec.canvas.pixelWidth
        let height = job.spec.canvas.pixelHeight
        if let canvas, canvas.surface.width == width, canvas.surface.height == height { return canvas }
        canvas = nil
        do {
            let surface = try ImageSurface(width: width, height: height)
            let created = (surface: surface, context: try DrawingContext(surface: surface))
            canvas = created
            return created
        } catch {
            throw .drawing(error.description)
        }
    }

    /// The background and static bottom layers of `job`, drawn once in this process (by this worker, or by
    /// another that needed them first).
    private func staticSurface(for job: PlannedJob, frame index: Int) throws(FrameFailure) -> ImageSurface {
        if let staticLayers, staticLayers.job === job { return staticLayers.lease.surface }
        staticLayers = nil
        let canvas = job.spec.canvas
        let lease = try job.staticLayers.lease(width: canvas.pixelWidth, height: canvas.pixelHeight) {
            (context) throws(FrameFailure) in
            try drawLayers(job, frame: index, layers: 0..<job.staticLayerCount, on: context, background: true)
        }
        staticLayers = (job, lease)
        return lease.surface
    }

    private func milliseconds(_ duration: Duration) -> Double {
        duration.seconds * 1000
    }
}
