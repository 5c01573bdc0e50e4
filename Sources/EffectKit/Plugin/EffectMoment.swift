import RenderFarmPluginABI

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

    /// The most moments the host takes from one layer (ABI `RF_MOMENTS_MAX`): more refuse the layer.
    public static let limit = Int(RF_MOMENTS_MAX)
    /// The layer times a moment may have: within a day of the layer's 0 s (ABI `RF_MOMENT_TIME_MAX`).
    public static let times = -RF_MOMENT_TIME_MAX...RF_MOMENT_TIME_MAX

    public init(item: Int, name: String, time: Double) {
        self.item = item
        self.name = name
        self.time = time
    }
}
