/// How often a frame is tried, for PNG output and for video alike: once, then again after each
/// plugin, drawing or worker failure, up to the job's `retries`. An output failure (disk full,
/// folder gone) is never retried, nor a frame interrupted with its render.
struct RetryPolicy: Sendable {
    /// Attempts at most: the first and the retries.
    let attempts: Int

    init(retries: Int) {
        attempts = max(0, retries) + 1
    }

    /// What the attempts at one frame came to, with the number of attempts made.
    enum Outcome<Value> {
        case succeeded(Value, attempts: Int)
        case failed(FrameFailure, attempts: Int)
    }

    /// Runs `attempt` until it succeeds, fails with an output error, or has run `attempts` times.
    func run<Value>(_ attempt: () throws(FrameFailure) -> Value) -> Outcome<Value> {
        var made = 0
        while true {
            made += 1
            do {
                return .succeeded(try attempt(), attempts: made)
            } catch {
                if case .output = error { return .failed(error, attempts: made) }
                if case .interrupted = error { return .failed(error, attempts: made) }
                if made >= attempts { return .failed(error, attempts: made) }
            }
        }
    }
}
