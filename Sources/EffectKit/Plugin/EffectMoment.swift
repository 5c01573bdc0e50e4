/// A moment something happens to one of a layer's items (ABI `moments`): "launch", "land", "impact", ….
/// A job's sound can play at a layer's moments (RenderFarm article Sound), so a landing sound follows each
/// item whatever its seed or flight.
public struct EffectMoment: Sendable, Equatable {
    /// The item's id, as ``TraceItem/id`` names it.
    public var item: Int
    /// What happens: 1-32 of a-z, 0-9 and '-', starting with a letter.
    public var name: String
    /// Layer seconds.
    public var time: Double

    /// The most moments the host takes from one layer (ABI `moments`): more refuse the layer.
    public static let limit = 1_000_000
    /// The layer times a moment may have: within a day of the layer's 0 s.
    public static let times = -86_400.0...86_400.0

    public init(item: Int, name: String, time: Double) {
        self.item = item
        self.name = name
        self.time = time
    }
}
