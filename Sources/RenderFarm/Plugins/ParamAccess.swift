import CairoKit
import Foundation
import RenderFarmPluginABI
import StrictJSON

/// The host side of `rf_param_access`: typed getters over a layer's validated parameters, for
/// plugins written in C. A store lives only for the duration of one `create` call; it owns the
/// C strings it hands out and frees them when it goes away.
final class ParamStore {
    let values: JSONObject
    private var strings: [UnsafeMutablePointer<CChar>] = []

    init(_ values: JSONObject) {
        self.values = values
    }

    deinit { strings.forEach { free($0) } }

    /// A C string that stays valid until the store is freed.
    func keep(_ text: String) -> UnsafePointer<CChar>? {
        guard let copy = strdup(text) else { return nil }
        strings.append(copy)
        return UnsafePointer(copy)
    }

    /// The numbers behind a colour, point, rect, size or number list.
    func numbers(_ name: String) -> [Double]? {
        switch values[name] {
        case .string(let text)?:
            guard let color = Color(hex: text) else { return nil }
            return [color.red, color.green, color.blue, color.alpha]
        case .number(let side)?:
            return [side, side]
        case .array(let elements)?:
            let numbers = elements.compactMap(\.doubleValue)
            return numbers.count == elements.count ? numbers : nil
        case .object(let rect)?:
            let numbers = ["x", "y", "width", "height"].compactMap { rect[$0]?.doubleValue }
            return numbers.count == 4 ? numbers : nil
        default:
            return nil
        }
    }

    /// Runs `body` with the C view of this store: the opaque handle and the getter table.
    func withHandle<T>(_ body: (OpaquePointer, UnsafePointer<rf_param_access>) -> T) -> T {
        withExtendedLifetime(self) {
            withUnsafePointer(to: paramAccessTable) { table in
                body(OpaquePointer(Unmanaged.passUnretained(self).toOpaque()), table)
            }
        }
    }

    fileprivate static func from(_ handle: OpaquePointer?) -> ParamStore? {
        guard let handle else { return nil }
        return Unmanaged<ParamStore>.fromOpaque(UnsafeRawPointer(handle)).takeUnretainedValue()
    }
}

// The getters must be C function pointers: no captures, state only through the handle.
private let paramAccessTable = rf_param_access(
    number: { handle, name, out in
        guard let store = ParamStore.from(handle), let name, let out else { return 0 }
        switch store.values[String(cString: name)] {
        case .number(let value)?: out.pointee = value
        case .bool(let flag)?: out.pointee = flag ? 1 : 0
        default: return 0
        }
        return 1
    },
    numbers: { handle, name, out, capacity in
        guard let store = ParamStore.from(handle), let name, let numbers = store.numbers(String(cString: name)) else {
            return 0
        }
        if let out {
            for (index, number) in numbers.prefix(capacity).enumerated() { out[index] = number }
        }
        return numbers.count
    },
    string: { handle, name in
        guard let store = ParamStore.from(handle), let name,
            let text = store.values[String(cString: name)]?.stringValue
        else { return nil }
        return store.keep(text)
    },
    json: { handle, name in
        guard let store = ParamStore.from(handle), let name, let value = store.values[String(cString: name)] else {
            return nil
        }
        return store.keep(value.serialized())
    }
)
