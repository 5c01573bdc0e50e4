import CairoKit
import Foundation
import RenderFarmPluginABI
import StrictJSON

/// The host side of `rf_param_access`: typed getters over a layer's validated parameters, for
/// plugins written in C. A store lives only for the duration of one `create` call; it owns the
/// C strings it hands out and frees them when it goes away.
///
/// Public so that tools driving plugins without the engine (renderfarm-bench's C host) hand
/// them exactly what the engine does: `paramsJSON` and the getters' answers come from here.
package final class ParamStore {
    package let values: JSONObject
    private var strings: [UnsafeMutablePointer<CChar>] = []

    package init(_ values: JSONObject) {
        self.values = values
    }

    /// `rf_create_args.params_json`: the whole object, defaults filled.
    package var paramsJSON: String { values.isEmpty ? "{}" : JSONValue.object(values).serialized() }

    /// What the `number` getter gives for `name` (NUMBER, INTEGER, BOOL), nil when it returns 0.
    package func number(_ name: String) -> Double? {
        switch values[name] {
        case .number(let value)?: value
        case .bool(let flag)?: flag ? 1 : 0
        default: nil
        }
    }

    /// What the `string` getter gives for `name` (STRING, ENUM), nil when it returns NULL.
    package func string(_ name: String) -> String? { values[name]?.stringValue }

    /// What the `json` getter gives for `name`, nil when it returns NULL.
    package func json(_ name: String) -> String? { values[name]?.serialized() }

    deinit { strings.forEach { free($0) } }

    /// A C string that stays valid until the store is freed.
    package func keep(_ text: String) -> UnsafePointer<CChar>? {
        guard let copy = strdup(text) else { return nil }
        strings.append(copy)
        return UnsafePointer(copy)
    }

    /// The numbers behind a colour, point, rect, size or number list (the `numbers` getter).
    package func numbers(_ name: String) -> [Double]? {
        switch values[name] {
        case .string(let text)?:
            guard let color = Color(hex: text) else { return nil }
            return [color.red, color.green, color.blue, color.alpha]
        case .number(let side)?:
            return [side, side]
        case .array(let elements)? where elements.contains(where: { $0.stringValue != nil }):
            // A colour list: r, g, b, a of each colour in turn.
            let colors = elements.compactMap { $0.stringValue.flatMap(Color.init(hex:)) }
            guard colors.count == elements.count else { return nil }
            return colors.flatMap { [$0.red, $0.green, $0.blue, $0.alpha] }
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
    package func withHandle<T>(_ body: (OpaquePointer, UnsafePointer<rf_param_access>) -> T) -> T {
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
        guard let store = ParamStore.from(handle), let name, let out,
            let value = store.number(String(cString: name))
        else { return 0 }
        out.pointee = value
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
        guard let store = ParamStore.from(handle), let name, let text = store.string(String(cString: name)) else {
            return nil
        }
        return store.keep(text)
    },
    json: { handle, name in
        guard let store = ParamStore.from(handle), let name, let text = store.json(String(cString: name)) else {
            return nil
        }
        return store.keep(text)
    }
)
