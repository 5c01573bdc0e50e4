import Foundation
import StrictJSON

/// The `bounds` parameter of the physics effects: whether the canvas edges (or a rect's) are barriers,
/// like UIKit's `translatesReferenceBoundsIntoBoundary`. The seed sets it to NO, hence the default `false`.
public enum PhysicsBounds {
    /// The row of the parameter table, shared by the effects that simulate.
    public static let parameter = ParameterSpec(
        "bounds", .json, default: false,
        doc: "true: the canvas edges are barriers (translatesReferenceBoundsIntoBoundary); a rect: its edges; "
            + "false: none, as in the seed")

    /// The four edges of the bounds as barriers (clockwise from the top-left corner); none for `false`.
    public static func barriers(_ value: JSONValue?, canvas: Size) throws(EffectError) -> [PhysicsBarrier] {
        let rect: Rect
        switch value {
        case nil, .bool(false)?: return []
        case .bool(true)?: rect = Rect(x: 0, y: 0, width: canvas.width, height: canvas.height)
        case .object?:
            rect = try EffectParameters.rect(value, parameter: "bounds")
            guard rect.width > 0, rect.height > 0 else {
                throw EffectError(
                    parameter: "bounds", "width and height must be positive" + EffectParameters.got(value))
            }
        case let other?:
            throw EffectError(
                parameter: "bounds",
                "expected true, false or a rect {\"x\", \"y\", \"width\", \"height\"}, got \(other.shortText)")
        }
        let corners = [
            Point(rect.minX, rect.minY), Point(rect.maxX, rect.minY), Point(rect.maxX, rect.maxY),
            Point(rect.minX, rect.maxY),
        ]
        return corners.indices.map { PhysicsBarrier(from: corners[$0], to: corners[($0 + 1) % 4]) }
    }

    /// `3 of 5 items leave the canvas by 2.1 s (set "bounds": true or add barriers)`, or nil when none leaves;
    /// `within` names the seconds simulated when the recording stops before the layer ends.
    public static func warning(_ recording: PhysicsRecording, within probe: Double? = nil) -> EffectError? {
        let departures = recording.departures.values
        guard let last = departures.max() else { return nil }
        let items = recording.itemCount == 1 ? "item" : "items"
        let verb = departures.count == 1 ? "leaves" : "leave"
        let span = probe.map { " (in the first " + String(format: "%.0f", $0) + " s)" } ?? ""
        return EffectError(
            "\(departures.count) of \(recording.itemCount) \(items) \(verb) the canvas by "
                + String(format: "%.1f", last) + " s\(span) (set \"bounds\": true or add barriers)")
    }
}
