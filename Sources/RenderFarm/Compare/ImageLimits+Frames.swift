import CairoKit
import RenderFarmJobs

extension ImageLimits {
    /// Rendered frames and references read back (`compare`, `preview` of an output folder): the canvas
    /// limits of a job file, files up to 1 GiB, inflated against their size first (a reference may come from anywhere).
    static let frames = ImageLimits(
        maxFileBytes: 1 << 30, maxSide: Int(JobDecoder.Limits.maxSide), maxPixels: JobDecoder.Limits.maxPixels,
        inflateBudget: true)
}
