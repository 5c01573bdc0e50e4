extension PlanOptions {
    /// The largest scale `--scale`, `canvas.scale` and the studio's `?scale=` accept, in pixels per point.
    public static let maxScale = 8.0

    /// Whether `scale` is in (0, `maxScale`]: the one check every scale given from outside passes
    /// before any pixel size is computed from it (the canvas then bounds the pixels).
    public static func acceptsScale(_ scale: Double) -> Bool { scale > 0 && scale <= maxScale }
}
