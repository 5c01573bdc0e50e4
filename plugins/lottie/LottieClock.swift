import EffectKit

/// Maps a job frame index to the Lottie frame drawn there, with exact arithmetic.
///
/// The animation starts at layer time `start`; from then on Lottie time runs at `speed` times job time.
/// Lottie frame f (counted from the composition's in point, `ip`) is shown from Lottie time f / fr on,
/// so job frame n shows frame ⌊(n − offset) × rate⌋, where offset = (layer start + start) × job fps and
/// rate = fr × speed / job fps, both exact fractions fixed in `create`. Frame n depends on n alone: no
/// sum of steps, so the 1,000th loop starts exactly where the first did.
struct LottieClock: Sendable, Equatable {
    /// Job frames before the animation's first frame (may be fractional).
    let offset: Rational
    /// Lottie frames per job frame.
    let rate: Rational
    /// Frames in one play of the animation: out point − in point, as rlottie counts them.
    let frameCount: Int
    /// How many times it plays; nil repeats for ever.
    let loops: Int?
    /// Whether the last frame stays after the last loop (else nothing is drawn).
    let hold: Bool

    /// What is drawn at a job frame.
    enum Sample: Sendable, Equatable {
        /// Nothing: before the start, or after the last loop without `hold`.
        case hidden
        /// Frame `frame` (0 = the in point) of play number `loop` (0-based).
        case frame(Int, loop: Int)
    }

    /// The largest denominator kept for `offset` and `rate` (exact for every fps, speed and start
    /// written with up to six decimals), so that n × denominators stays far inside 128 bits.
    private static let denominatorLimit: Int128 = 1_000_000_000

    /// Fails with a message naming the input that has no exact fraction.
    init(
        jobFPS: Double, layerStart: Double, start: Double, speed: Double, lottieFPS: Double, frameCount: Int,
        loops: Int?, hold: Bool
    ) throws(EffectError) {
        guard let jobRate = Rational(approximating: jobFPS), jobRate > Rational(0) else {
            throw EffectError("the job's fps \(jobFPS) has no exact fraction")
        }
        guard let layerStart = Rational(approximating: layerStart) else {
            throw EffectError("the layer's start \(layerStart) has no exact fraction")
        }
        guard let start = Rational(approximating: start) else {
            throw EffectError(parameter: "start", "\(start) has no exact fraction")
        }
        guard let speed = Rational(approximating: speed), speed > Rational(0) else {
            throw EffectError(parameter: "speed", "\(speed) must be a positive number")
        }
        guard let lottieRate = Rational(approximating: lottieFPS), lottieRate > Rational(0) else {
            throw EffectError(parameter: "file", "the frame rate fr \(lottieFPS) must be a positive number")
        }
        self.offset = Self.bounded((layerStart + start) * jobRate)
        self.rate = Self.bounded(lottieRate * speed / jobRate)
        self.frameCount = max(1, frameCount)
        self.loops = loops
        self.hold = hold
    }

    /// The Lottie frame at job frame `index`.
    func sample(at index: Int) -> Sample {
        let elapsed = (Rational(Int128(index)) - offset) * rate
        guard !(elapsed < Rational(0)) else { return .hidden }
        let played = elapsed.floor
        let count = Int128(frameCount)
        let loop = played / count
        if let loops, loop >= Int128(loops) {
            return hold ? .frame(frameCount - 1, loop: loops - 1) : .hidden
        }
        return .frame(Int(played % count), loop: loop > Int128(Int.max) ? Int.max : Int(loop))
    }

    /// `value` itself when its denominator is small enough, else its closest fraction that has one.
    private static func bounded(_ value: Rational) -> Rational {
        guard value.denominator > denominatorLimit else { return value }
        return Rational(approximating: value.doubleValue, maxDenominator: denominatorLimit) ?? value
    }
}
