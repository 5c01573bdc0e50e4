import CairoKit
import Dispatch
import Locking
import RenderFarmMedia

/// What a feed's source made of one frame: a surface (the source's own, reused by its next
/// frame) and the attempts it took, or why there is none.
enum FedFrame {
    case made(ImageSurface, attempts: Int)
    case failed(String)
}

/// Frames made by concurrent workers, converted to the pipe format by the worker that made them,
/// and sent to ffmpeg strictly in order by one writer, with at most twice as many frames held as
/// there are workers (`FrameReorderBuffer`).
///
/// One concurrency style: the workers run on `FrameScheduler`'s Dispatch queue, the writer on a
/// serial Dispatch queue of its own (libdispatch gives a serial queue a thread even while the
/// workers' threads block, so the writer never waits behind them), and they meet only in the
/// buffer, which also carries the first failure.
struct VideoFeed: Sendable {
    let format: PipeFormat
    /// Workers (`-j`).
    let concurrency: Int
    let stop: StopSignal

    /// What a run came to.
    struct Outcome {
        /// Frames sent to ffmpeg, in order from the first.
        var written: Int
        /// Why the run ended early: a frame failed or ffmpeg stopped reading.
        var failure: String?
        /// The most frames held at once, made but not yet sent.
        var peakHeld: Int
    }

    /// Makes frames `0..<count` with `frame` on lanes of `makeSource()`, and sends them to `input`;
    /// `finished(position, attempts, done)` reports each frame once it is converted.
    func run<Source>(
        count: Int, into input: FrameSocket, makeSource: @escaping @Sendable () -> Source,
        frame: @escaping @Sendable (inout Source, Int) -> FedFrame,
        finished: @escaping @Sendable (_ position: Int, _ attempts: Int, _ done: Int) -> Void
    ) -> Outcome {
        let buffer = FrameReorderBuffer<[UInt8]>(capacity: 2 * max(1, concurrency))
        let writing = DispatchGroup()
        DispatchQueue(label: "renderfarm.video-writer").async(group: writing) {
            Self.write(from: buffer, to: input)
        }
        let format = format
        FrameScheduler(concurrency: concurrency).run(
            count: count,
            shouldStop: { [stop] in stop.isStopped || buffer.isCancelled },
            makeWorker: { Lane(source: makeSource(), converter: FrameConverter(format: format)) },
            perform: { (lane: inout Lane<Source>, position: Int) in
                guard buffer.waitForRoom(position) else { return }
                switch frame(&lane.source, position) {
                case .failed(let reason):
                    buffer.cancel(reason: reason)
                case .made(let surface, let attempts):
                    do throws(FrameFailure) {
                        let done = buffer.put(position, try lane.converter.convert(surface))
                        finished(position, attempts, done)
                    } catch {
                        buffer.cancel(reason: error.message)
                    }
                }
            })
        buffer.close()
        writing.wait()
        return Outcome(written: buffer.written, failure: buffer.failure, peakHeld: buffer.peakHeld)
    }

    /// One worker's source of frames and its converter.
    private struct Lane<Source> {
        var source: Source
        let converter: FrameConverter
    }

    /// The writer: frames in order until the last, or until ffmpeg stops reading.
    private static func write(from buffer: FrameReorderBuffer<[UInt8]>, to input: FrameSocket) {
        while let frame = buffer.take() {
            if let reason = frame.withUnsafeBytes({ input.send($0) }) {
                buffer.cancel(reason: reason)
                return
            }
        }
    }
}
