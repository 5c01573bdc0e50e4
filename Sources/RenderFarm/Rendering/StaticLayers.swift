import CairoKit
import Locking

/// The background and static bottom layers of one job, drawn once in this process and shared by every worker
/// that draws the job's frames, each of which copies them into its frames.
///
/// The first worker to need them draws them; workers that need them meanwhile wait for that drawing instead of
/// drawing their own copy, as each worker used to. The layers are drawn whole, on a surface of their own, exactly
/// as a worker draws them at every frame under `RENDERFARM_STATIC_LAYERS=redraw` (same bytes, tested). Drawing
/// them in bands of rows, each worker one band, would halve their time at `-j 2`, but a band is a drawing under a
/// clip, and cairo draws strokes, fills, text and scaled images under a clip a level apart here and there from
/// the same drawing without one: 5 of 60 generated drawings over an opaque background, 17 of 60 over a
/// transparent one, differed in some rows (measured with a band version of this type, not kept).
///
/// The pixels stay while a worker holds a `Lease` on them (its current job) and are freed when the last lease
/// ends, as each worker's own copy was; a frame of the job asked for after that draws them again. When the
/// drawing fails, every worker that waited for it fails its frame with that failure, and the next call draws anew.
final class StaticLayers: Sendable {
    private let state = Locked(State())

    /// The drawn layers: written by the worker that draws them, then only read (the lock orders the two).
    /// `@unchecked Sendable` on that contract.
    final class Pixels: @unchecked Sendable {
        let surface: ImageSurface

        init(_ surface: ImageSurface) { self.surface = surface }
    }

    /// A worker's hold on the drawn layers: they stay while a lease on them lasts.
    final class Lease: Sendable {
        private let pixels: Pixels
        private let layers: StaticLayers

        /// The static layers, drawn: only read (`ImageSurface.copyPixels(from:)`).
        var surface: ImageSurface { pixels.surface }

        fileprivate init(_ pixels: Pixels, of layers: StaticLayers) {
            self.pixels = pixels
            self.layers = layers
        }

        deinit { layers.state.withLock { $0.release() } }
    }

    private struct State {
        /// Counts the drawings that ended; a waiter waits for it to move on from the drawing it waits for.
        var generation = 0
        /// Whether a worker is drawing the layers.
        var drawing = false
        /// The last drawing that ended well, while a lease on it lasts.
        var drawn: Pixels?
        var leases = 0
        /// The failure of the drawing of `generation`, when it failed.
        var failed: (generation: Int, failure: FrameFailure)?

        mutating func lease(of layers: StaticLayers) -> Lease? {
            guard let drawn else { return nil }
            leases += 1
            return Lease(drawn, of: layers)
        }

        mutating func release() {
            leases -= 1
            if leases == 0 { drawn = nil }
        }

        /// Ends the drawing under way, with its pixels or its failure.
        mutating func finish(_ outcome: Result<Pixels, FrameFailure>) {
            switch outcome {
            case .success(let pixels): drawn = pixels
            case .failure(let failure): failed = (generation, failure)
            }
            drawing = false
            generation += 1
        }
    }

    /// What a worker does next.
    private enum Step {
        case use(Lease)
        case draw(generation: Int)
        case wait(generation: Int)
        case fail(FrameFailure)
    }

    /// The static layers of a `width` × `height` canvas: drawn with `draw` unless they are drawn or being drawn.
    /// `draw` gets a context on a transparent surface and draws the background and the static layers on it.
    func lease(width: Int, height: Int, draw: (DrawingContext) throws(FrameFailure) -> Void) throws(FrameFailure)
        -> Lease
    {
        // The drawing this worker made or waited for.
        var joined: Int?
        while true {
            switch next(joined: joined) {
            case .use(let lease):
                return lease
            case .fail(let failure):
                throw failure
            case .draw(let generation):
                joined = generation
                let outcome = Result { () throws(FrameFailure) in try Self.drawn(width: width, height: height, draw) }
                state.withLock { $0.finish(outcome) }
            case .wait(let generation):
                joined = generation
                state.withLock(when: { $0.generation != generation }, { _ in })
            }
        }
    }

    /// Under the lock: the failure of the drawing this worker `joined`, a lease on the drawn layers, the drawing
    /// to make, or the drawing to wait for.
    private func next(joined: Int?) -> Step {
        state.withLock { state -> Step in
            if let joined, let failed = state.failed, failed.generation == joined { return .fail(failed.failure) }
            if state.drawing { return .wait(generation: state.generation) }
            if let lease = state.lease(of: self) { return .use(lease) }
            state.drawing = true
            return .draw(generation: state.generation)
        }
    }

    /// A new surface with `draw`'s drawing.
    private static func drawn(width: Int, height: Int, _ draw: (DrawingContext) throws(FrameFailure) -> Void)
        throws(FrameFailure) -> Pixels
    {
        let surface: ImageSurface
        let context: DrawingContext
        do {
            surface = try ImageSurface(width: width, height: height)
            context = try DrawingContext(surface: surface)
        } catch {
            throw .drawing(error.description)
        }
        try draw(context)
        surface.flush()
        return Pixels(surface)
    }
}
