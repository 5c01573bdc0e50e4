import Foundation

/// How much memory a render may take, and how many frames in flight fit in it.
///
/// A worker keeps a canvas surface (4 bytes a pixel), a second one with the static bottom layers
/// when the job has any (shared by the workers on one job, but each job's own), and the PNG encoder's
/// buffers (filtered rows and the compressed frame, under one more canvas in the worst case); a worker
/// process (`--isolate`) adds its own runtime and plugins. Measured on 4096² and 8192² canvases: 1.7
/// and 2.7 canvases a worker, without and with static layers, which the estimate covers.
package struct MemoryBudget: Sendable, Equatable {
    /// The most the render's workers may take, in bytes.
    package var bytes: Int

    package init(bytes: Int) {
        self.bytes = bytes
    }

    /// Half of `machineBytes`.
    package static var `default`: MemoryBudget { MemoryBudget(bytes: machineBytes / 2) }

    /// The machine's memory, or the control group's limit when that is lower.
    package static var machineBytes: Int {
        let pages = sysconf(Int32(_SC_PHYS_PAGES))
        let pageSize = sysconf(Int32(_SC_PAGESIZE))
        let total = pages > 0 && pageSize > 0 ? pages * pageSize : 8 << 30
        guard let text = try? String(contentsOfFile: "/sys/fs/cgroup/memory.max", encoding: .utf8),
            let limit = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)), limit > 0
        else { return total }
        return min(total, limit)
    }

    /// What the process takes besides its workers: the runtime, plugins and plans.
    static let baseBytes = 64 << 20
    /// What a worker process adds to its frame buffers (`--isolate`).
    static let workerProcessBytes = 48 << 20

    /// The estimated peak of one worker drawing `job`'s frames.
    package static func workerBytes(_ job: PlannedJob, isolated: Bool) -> Int {
        workerBytes(
            pixels: job.spec.canvas.pixelWidth * job.spec.canvas.pixelHeight, staticLayers: job.staticLayerCount > 0,
            isolated: isolated)
    }

    /// The estimated peak of one worker drawing frames of `pixels` pixels: a frame surface, one more for the
    /// static layers when it has them, the encoder's buffer, and the worker process when `isolated`.
    static func workerBytes(pixels: Int, staticLayers: Bool, isolated: Bool) -> Int {
        pixels * 4 * (staticLayers ? 3 : 2) + (isolated ? workerProcessBytes : 0)
    }

    /// How many of `requested` workers fit, drawing the largest frames of `jobs`.
    package func workers(for jobs: [PlannedJob], requested: Int, isolated: Bool) -> Fit {
        let perWorker = jobs.map { Self.workerBytes($0, isolated: isolated) }.max() ?? 0
        guard perWorker > 0 else { return Fit(workers: requested, perWorker: 0, budget: self) }
        let fitting = max(0, bytes - Self.baseBytes) / perWorker
        return Fit(workers: min(requested, fitting), perWorker: perWorker, budget: self)
    }

    /// The workers that fit, and why.
    package struct Fit: Sendable, Equatable {
        /// At most the workers asked for; 0 when not even one fits.
        package var workers: Int
        /// The estimated peak of one worker, in bytes.
        package var perWorker: Int
        package var budget: MemoryBudget
    }

    /// `bytes` for people: `1.5 GB`, `640 MB` (powers of 1024).
    package static func shown(_ bytes: Int) -> String {
        let units = ["bytes", "KB", "MB", "GB", "TB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(bytes) bytes" : String(format: value < 10 ? "%.1f" : "%.0f", value) + " " + units[unit]
    }

    /// Parses a size: bytes, or a number with K, M, G or T (powers of 1024, an optional `B` or
    /// `iB` after it), e.g. `512M`, `1.5G`, `24GiB`; nil when it is not one.
    package static func parse(_ text: String) -> Int? {
        var digits = text.trimmingCharacters(in: .whitespaces).uppercased()
        for suffix in ["IB", "B"] where digits.hasSuffix(suffix) && digits.count > suffix.count {
            digits.removeLast(suffix.count)
            break
        }
        let scales: [Character: Double] = ["K": 0x1p10, "M": 0x1p20, "G": 0x1p30, "T": 0x1p40]
        var scale = 1.0
        if let last = digits.last, let factor = scales[last] {
            scale = factor
            digits.removeLast()
        }
        guard let number = Double(digits), number.isFinite, number > 0, number * scale < 1e18 else { return nil }
        return Int(number * scale)
    }
}
