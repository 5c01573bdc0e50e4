import Foundation
import RenderFarmJobs
import RenderFarmPluginABI
import StrictJSON

extension PluginCheck {
    /// How far from a traced item's position, in points, a drawn pixel must be found.
    static let traceReach = 12.0
    /// Items fainter or smaller than this are not expected to leave pixels.
    static let traceVisibleFloor = 0.05

    /// Where the plugin traces: the output is a JSON array of items with the documented fields,
    /// and every visible item on the canvas has drawn pixels near its position (only `comparingPixels`: frames
    /// that differ when drawn again say nothing about where items are drawn).
    func traceFindings(_ instance: PluginInstance, _ serial: [Int: Frame], comparingPixels: Bool = true)
        -> [PluginFinding]
    {
        guard plugin.info.canTrace else { return [PluginFinding(.note, "trace", "not offered; not checked")] }
        var problems: [String] = []
        var warnings: [String] = []
        var checkedItems = 0
        for index in setting.frames {
            let time = Double(index) / setting.fps
            let items: [JSONValue]
            switch instance.trace(frame: rf_frame(index: UInt32(index), time: time, local: time)) {
            case .failure(let error) where error.isUnsupported && index == setting.frames.first:
                return [PluginFinding(.note, "trace", "not offered (trace answers RF_ERROR_UNSUPPORTED); not checked")]
            case .failure(let error):
                problems.append("frame \(index): \(error.message)")
                continue
            case .success(let value):
                guard let array = value.arrayValue else {
                    problems.append("frame \(index): the trace is not a JSON array")
                    continue
                }
                items = array
            }
            let frame = comparingPixels ? serial[index] : nil
            var ids: Set<Double> = []
            var visibleOnCanvas = 0
            for item in items {
                guard let object = item.objectValue, let id = object["id"]?.doubleValue,
                    let x = object["x"]?.doubleValue, let y = object["y"]?.doubleValue,
                    let visible = object["visible"]?.boolValue
                else {
                    problems.append(
                        "frame \(index): an item lacks id, x, y or visible: \(item.serialized().prefix(80))")
                    continue
                }
                if !ids.insert(id).inserted { problems.append("frame \(index): id \(id) appears twice") }
                let alpha = object["alpha"]?.doubleValue ?? 1
                let scale = object["scale"]?.doubleValue ?? 1
                guard visible, alpha >= Self.traceVisibleFloor, scale >= Self.traceVisibleFloor,
                    x >= 0, y >= 0, x < setting.width, y < setting.height
                else { continue }
                guard let frame else { continue }
                visibleOnCanvas += 1
                checkedItems += 1
                if !drawn(near: x, y, in: frame) {
                    problems.append(
                        "frame \(index): item \(ObjectReader.format(id)) is visible at (\(ObjectReader.format(x)), \(ObjectReader.format(y))) but nothing is drawn within \(Int(Self.traceReach)) points"
                    )
                }
            }
            if let frame, visibleOnCanvas == 0, !frame.isBlank, !items.isEmpty {
                warnings.append("frame \(index) has pixels but no traced item is visible on the canvas")
            }
        }
        if !problems.isEmpty {
            let more = problems.count > 3 ? " (and \(problems.count - 3) more)" : ""
            return [PluginFinding(.failure, "trace", problems.prefix(3).joined(separator: "; ") + more)]
        }
        guard comparingPixels else {
            return [
                PluginFinding(
                    .note, "trace",
                    "a JSON array of items with the documented fields at each of \(setting.frames.count) frames; "
                        + "where they are drawn is not checked: frames are not deterministic")
            ]
        }
        var findings = [
            PluginFinding(
                .pass, "trace",
                "\(checkedItems) visible items over \(setting.frames.count) frames, each with pixels drawn near it")
        ]
        findings += warnings.map { PluginFinding(.warning, "trace", $0) }
        return findings
    }

    /// Whether any pixel within `traceReach` points of (x, y) has a non-zero alpha.
    private func drawn(near x: Double, _ y: Double, in frame: Frame) -> Bool {
        let scale = setting.scale
        let width = Int((setting.width * scale).rounded())
        let height = frame.pixels.count / max(1, frame.stride)
        let reach = Int((Self.traceReach * scale).rounded(.up))
        let cx = Int(x * scale)
        let cy = Int(y * scale)
        for row in max(0, cy - reach)...min(height - 1, cy + reach) {
            for column in max(0, cx - reach)...min(width - 1, cx + reach) {
                // ARGB32 in native (little-endian) order: alpha is the fourth byte.
                if frame.pixels[row * frame.stride + column * 4 + 3] != 0 { return true }
            }
        }
        return false
    }
}
