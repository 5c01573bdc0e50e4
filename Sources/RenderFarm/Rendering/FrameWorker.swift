import CPNGWriter
import CairoKit
import Foundation

/// How long each step of a frame took, in milliseconds.
public struct FrameTimings: Sendable, Equatable {
    public var draw = 0.0
    public var convert = 0.0
    public var encode = 0.0
    public var write = 0.0

    public var total: Double { draw + convert + encode + write }

    public static func + (lhs: FrameTimings, rhs: FrameTimings) -> FrameTimings {
        FrameTimings(draw: lhs.draw + rhs.draw, convert: lhs.convert + rhs.convert,
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

/// Why a frame could not be produced: the plugin failed (may be retried) or output failed.
enum FrameFailure: Error {
    case plugin(layer: Int, effect: String, message: String)
    case drawing(String)
    case output(OutputError)

    var message: String {
        switch self {
        case .plugin(let layer, let effect, let message): "layer \(layer) (\(effect)): \(message)"
        case .drawing(let message): message
        case .output(let error): error.description
        }
    }
}

/// One worker's reusable frame machinery: a surface per canvas size and a PNG encoder.
/// Not `Sendable`: it lives on the worker that made it.
final class FrameWorker {
    private var surfaces: [Int: (surface: ImageSurface, context: DrawingContext)] = [:]
    private var encoder = rf_png_encoder()

    deinit { rf_png_encoder_free(&encoder) }

    /// Draws, encodes and atomically writes frame `index` of `job`.
    func render(_ index: Int, of job: PreparedJob) throws(FrameFailure) -> WrittenFrame {
        var timings = FrameTimings()
        let clock = ContinuousClock()
        let start = clock.now
        let surface = try draw(index, of: job)
        timings.draw = milliseconds(clock.now - start)

        var pngTiming = rf_png_timing()
        var message = [CChar](repeating: 0, count: 256)
        let compression = job.spec.output.compression
        let status = rf_png_encode_argb32(
            &encoder, surface.bytes, UInt32(surface.width), UInt32(surface.height), surface.stride,
            Int32(compression.level), compression.adaptiveFilters ? RF_PNG_FILTER_ADAPTIVE : RF_PNG_FILTER_NONE,
            &pngTiming, &message, message.count)
        guard status == 0 else {
            throw .drawing(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        timings.convert = Double(pngTiming.convert_ns) / 1e6
        timings.encode = Double(pngTiming.encode_ns) / 1e6
        let opaque = encoder.opaque != 0

        let writeStart = clock.now
        let encoded = UnsafeRawBufferPointer(start: encoder.data, count: encoder.length)
        let sha256 = SHA256.hex(encoded)
        do {
            try AtomicFile.write(encoded, to: job.path(ofFrame: index))
        } catch {
            throw .output(error)
        }
        timings.write = milliseconds(clock.now - writeStart)
        return WrittenFrame(sha256: sha256, bytes: encoder.length, opaque: opaque, timings: timings)
    }

    /// Draws frame `index` of `job` on this worker's surface for the job's canvas and returns
    /// it, flushed. The surface is reused by the next call.
    func draw(_ index: Int, of job: PreparedJob) throws(FrameFailure) -> ImageSurface {
        let (surface, context) = try canvas(for: job)
        let canvas = job.spec.canvas
        context.save()
        context.setOperatorSource()
        context.setSource(canvas.background)
        context.paint()
        context.setOperatorOver()
        context.scale(canvas.scale, canvas.scale)
        for (layer, instance) in job.layers.enumerated() {
            context.save()
            let failure = instance.render(on: context.pointer, frame: job.abiFrame(index, layerStart: instance.layerStart))
            context.restore()
            if let failure {
                context.restore()
                throw .plugin(layer: layer, effect: instance.plugin.info.id, message: failure.message)
            }
        }
        context.restore()
        do {
            try context.checkStatus("drawing frame \(index)")
        } catch {
            // A context in an error state stays broken: drop it so the next frame starts clean.
            surfaces[key(job)] = nil
            throw .drawing(error.description)
        }
        surface.flush()
        return surface
    }

    private func key(_ job: PreparedJob) -> Int {
        job.spec.canvas.pixelWidth << 32 | job.spec.canvas.pixelHeight
    }

    private func canvas(for job: PreparedJob) throws(FrameFailure) -> (ImageSurface, DrawingContext) {
        if let existing = surfaces[key(job)] { return existing }
        do {
            let surface = try ImageSurface(width: job.spec.canvas.pixelWidth, height: job.spec.canvas.pixelHeight)
            let created = (surface: surface, context: try DrawingContext(surface: surface))
            surfaces[key(job)] = created
            return created
        } catch {
            throw .drawing(error.description)
        }
    }

    private func milliseconds(_ duration: Duration) -> Double {
        let parts = duration.components
        return Double(parts.seconds) * 1000 + Double(parts.attoseconds) / 1e15
    }
}
