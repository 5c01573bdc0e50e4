import RenderFarmJobs

extension PlanOptions {
    /// Whether `scale` is in (0, `JobDecoder.Limits.maxScale`]: the one check every scale given from
    /// outside (`--scale`, the studio's `?scale=`; `canvas.scale` is read with the same limit) passes
    /// before any pixel size is computed from it (the canvas then bounds the pixels).
    package static func acceptsScale(_ scale: Double) -> Bool { scale > 0 && scale <= JobDecoder.Limits.maxScale }
}
