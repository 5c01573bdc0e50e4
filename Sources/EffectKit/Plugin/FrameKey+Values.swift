import CairoKit

extension FrameKey.Hasher {
    /// Combines a colour's four components.
    public mutating func combine(_ color: Color) {
        for component in [color.red, color.green, color.blue, color.alpha] { combine(component) }
    }

    public mutating func combine(_ point: Point) {
        combine(point.x)
        combine(point.y)
    }

    public mutating func combine(_ size: Size) {
        combine(size.width)
        combine(size.height)
    }

    /// Combines a value that may be absent, so that nil and a present value never collide.
    public mutating func combine(_ color: Color?) {
        combine(color != nil)
        if let color { combine(color) }
    }
}

extension FrameKey {
    /// The key of a frame on which an effect draws nothing, whatever its time or parameters.
    public static let nothingDrawn = Hasher().finalize()
}
