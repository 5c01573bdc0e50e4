import CCairo

/// A cairo call reported a non-success status.
public struct CairoError: Error, Equatable, CustomStringConvertible {
    /// The raw `cairo_status_t` value.
    public let status: UInt32
    /// What was being done, e.g. "creating a 750×1334 surface".
    public let operation: String

    init(_ status: cairo_status_t, _ operation: String) {
        self.status = status.rawValue
        self.operation = operation
    }

    public var description: String {
        let reason = String(cString: cairo_status_to_string(cairo_status_t(rawValue: status)))
        return "cairo: \(operation): \(reason)"
    }

    /// Throws when `status` is not success.
    static func check(_ status: cairo_status_t, _ operation: @autoclosure () -> String) throws(CairoError) {
        if status != CAIRO_STATUS_SUCCESS { throw CairoError(status, operation()) }
    }
}
