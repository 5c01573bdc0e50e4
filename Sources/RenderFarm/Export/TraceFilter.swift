import Foundation
import StrictJSON

/// Narrows and shortens `renderfarm trace` output: only some items (`--items`), and a compact form
/// (`--compact`) that gives each item's plan once, on its first frame (and again when its layer's
/// `matrix` has changed since, as the plan's path moves with it), and rounds the numbers (the frame's
/// time too; its index stays exact).
package struct TraceFilter: Sendable {
    /// Item ids to keep in every layer; nil keeps all.
    package var items: Set<Int>?
    /// Whether plans appear only on an item's first frame and numbers are rounded to `precision`.
    package var compact: Bool
    /// Compact output rounds item numbers (points, seconds, scale, alpha) to this step.
    package static let precision = 1e-4

    package init(items: Set<Int>? = nil, compact: Bool = false) {
        self.items = items
        self.compact = compact
    }

    /// Whether the filter changes anything (the default output stays exactly as it is).
    package var isIdentity: Bool { items == nil && !compact }

    /// Applies the filter to trace lines in frame order (a plan is kept where its item first appears,
    /// and where its layer's matrix differs from the one of the item's last plan).
    package func apply(_ lines: [JSONValue]) -> [JSONValue] {
        guard !isIdentity else { return lines }
        // Each item's layer matrix where its plan was last given (null for a layer without one).
        var planned: [[Int]: JSONValue] = [:]
        return lines.map { line in
            guard var object = line.objectValue, let layers = object["layers"]?.arrayValue else { return line }
            if compact, let time = object["time"] { object["time"] = Self.rounded(time) }
            object["layers"] = .array(
                layers.map { layer in
                    guard var layerObject = layer.objectValue, let items = layerObject["items"]?.arrayValue else {
                        return layer
                    }
                    let index = layerObject["layer"]?.doubleValue.map { Int($0) } ?? -1
                    let matrix = layerObject["matrix"] ?? .null
                    if compact, let numbers = layerObject["matrix"] { layerObject["matrix"] = Self.rounded(numbers) }
                    layerObject["items"] = .array(
                        items.compactMap { item in
                            guard var itemObject = item.objectValue else { return item }
                            let id = itemObject["id"]?.doubleValue.map { Int($0) } ?? -1
                            if let keep = self.items, !keep.contains(id) { return nil }
                            guard compact else { return item }
                            if planned[[index, id]] == matrix {
                                itemObject["plan"] = nil
                            } else {
                                planned[[index, id]] = matrix
                            }
                            return Self.rounded(.object(itemObject))
                        })
                    return .object(layerObject)
                })
            return .object(object)
        }
    }

    /// Every number in `value` rounded to `precision` (integers stay as they are).
    static func rounded(_ value: JSONValue) -> JSONValue {
        switch value {
        case .number(let number): return .number(round(number))
        case .array(let elements): return .array(elements.map(rounded))
        case .object(let object):
            var result = JSONObject()
            for (key, element) in object { result[key] = rounded(element) }
            return .object(result)
        default: return value
        }
    }

    /// Rounds to the nearest multiple of `precision` (4 decimals), as the shortest double that prints so:
    /// 0.1235, not 0.12350000000000001.
    private static func round(_ number: Double) -> Double {
        guard number.isFinite, abs(number) < 1e15 else { return number }
        return Double(String(format: "%.4f", number)) ?? number
    }
}
