import RenderFarmPluginABI
import StrictJSON

/// One moment something happens to an item of a layer, as its plugin declared it (ABI `moments`): an item
/// launched, landed, hit something. A job's sound plays at a layer's moments (`AudioSpec.Sound.Times.moment`),
/// and `renderfarm trace --moments` lists them. The plugin's id never matters.
package struct DeclaredMoment: Sendable, Equatable {
    /// The item's id, as the plugin's trace names it.
    package var item: Int
    /// What happens: "launch", "land", "impact", ….
    package var name: String
    /// Layer seconds.
    package var time: Double

    /// Moments of one layer, at most (renderfarm_plugin.h, `RF_MOMENTS_MAX`).
    package static let perLayer = Int(RF_MOMENTS_MAX)
    /// Layer seconds a moment may lie at: a day either way of the layer's 0 s (`RF_MOMENT_TIME_MAX`).
    static let times = -RF_MOMENT_TIME_MAX...RF_MOMENT_TIME_MAX

    /// Whether `name` is a moment's name: 1-32 of a-z, 0-9 and '-', starting with a letter.
    package static func isName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (1...32).contains(bytes.count), let first = bytes.first, (0x61...0x7A).contains(first) else {
            return false
        }
        return bytes.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D }
    }

    /// The moment, or why it is refused (a problem of the layer, as create's are).
    static func checked(item: Int, name: String, time: Double) -> Result<DeclaredMoment, DeclaredSound.Problem> {
        guard isName(name) else {
            return .failure(
                .init(
                    message: "its moment \"\(name.prefix(40))\": a name is 1-32 of a-z, 0-9 and '-', starting with a "
                        + "letter"))
        }
        guard time.isFinite, times.contains(time) else {
            return .failure(.init(message: "its moment \"\(name)\" of item \(item) at \(time) s: not within a day"))
        }
        return .success(DeclaredMoment(item: item, name: name, time: time))
    }

    /// The moment a plugin handed the host, checked; a problem for a null pointer, a size too small or no name.
    static func checked(_ pointer: UnsafePointer<rf_moment>?) -> Result<DeclaredMoment, DeclaredSound.Problem> {
        guard let pointer else { return .failure(.init(message: "its moment: the plugin passed none (NULL)")) }
        let size = Int(pointer.pointee.struct_size)
        guard let end = MemoryLayout<rf_moment>.offset(of: \rf_moment.time), size >= end + MemoryLayout<Double>.size
        else { return .failure(.init(message: "its moment: struct_size is \(size); set it to sizeof(rf_moment)")) }
        let moment = pointer.pointee
        guard let name = moment.name else { return .failure(.init(message: "its moment has no name")) }
        return checked(item: Int(moment.item), name: String(cString: name), time: moment.time)
    }

    /// How a planning worker sends it (`IsolatedPlanner`).
    package var json: JSONValue {
        .object(["item": .number(Double(item)), "name": .string(name), "time": .number(time)])
    }

    /// A moment a planning worker sent, checked as the plugin's own are; nil when it is not one.
    package init?(json: JSONValue) {
        guard let object = json.objectValue, let item = object["item"]?.doubleValue, item == item.rounded(),
            (0...Double(UInt32.max)).contains(item), let name = object["name"]?.stringValue,
            let time = object["time"]?.doubleValue,
            case .success(let moment) = Self.checked(
                item: Int(item), name: name, time: time)
        else { return nil }
        self = moment
    }

    private init(item: Int, name: String, time: Double) {
        self.item = item
        self.name = name
        self.time = time
    }
}
