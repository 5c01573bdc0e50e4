/// A sound an effect's layer plays (ABI `sounds`): an audio stream of one of its ``Effect/inputFiles`` and the
/// part of it heard at each time of the layer. The host mixes it into the job's sound, through the layer's
/// time and at its `gain`, unless the layer is `muted`; no pixel depends on it.
///
/// At layer time `t ≥ start` the layer plays `sourceStart + (t − start) × speed` seconds of the file's own
/// timeline (its container's timestamps). Without `loops` it is heard while `(t − start) × speed <
/// sourceLength`; with it, the part starts again each time it ends, for as long as the layer lasts.
public struct EffectSound: Sendable, Equatable {
    /// The file: one of the effect's ``Effect/inputFiles``.
    public var file: String
    /// The audio stream's index in the file; nil for its first audio stream.
    public var stream: Int?
    /// Decibels, -96…24; the layer's own `gain` adds to it.
    public var gain: Double
    public var start: Double
    public var sourceStart: Double
    /// `.infinity`: to the file's end (not with `loops`).
    public var sourceLength: Double
    /// File seconds per layer second, 0.01…100.
    public var speed: Double
    public var loops: Bool

    public init(
        file: String, stream: Int? = nil, gain: Double = 0, start: Double = 0, sourceStart: Double = 0,
        sourceLength: Double = .infinity, speed: Double = 1, loops: Bool = false
    ) {
        self.file = file
        self.stream = stream
        self.gain = gain
        self.start = start
        self.sourceStart = sourceStart
        self.sourceLength = sourceLength
        self.speed = speed
        self.loops = loops
    }
}
