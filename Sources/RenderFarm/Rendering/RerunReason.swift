import Foundation
import RenderFarmOutput

/// Why a run renders frames of a job that an earlier run in the same folder had rendered: read from
/// the folder's journals and `renderfarm.job.json` before the render starts (no checksums: frames
/// that the resume check then finds missing or corrupt are the ones not explained here).
package struct RerunReason: Sendable, Equatable {
    /// Frames of this run that no earlier run recorded.
    package var new = 0
    /// Frames recorded with another fingerprint.
    package var changed = 0
    /// Frames recorded with this run's fingerprint (skipped unless their file is missing or corrupt).
    package var recorded = 0
    /// Plugins whose version differs from the earlier run's: `physics-bounce 1.0.0 → 1.1.0`.
    package var pluginChanges: [String] = []
    /// Input files (`LayerInput`) whose content differs from the earlier run's: `assets/gift-pop.json`.
    package var inputChanges: [String] = []

    package init() {}

    /// Inspects `job`'s output folder.
    package init(_ job: PlannedJob) {
        let journals = Journal.files(in: job.outputDirectory).map { Journal.read(path: $0) }
        let fingerprints = job.frameFingerprints
        for index in job.frames.frames {
            let lines = journals.compactMap { $0[index] }
            if lines.isEmpty {
                new += 1
            } else if lines.contains(where: { $0.fingerprint == fingerprints[index] }) {
                recorded += 1
            } else {
                changed += 1
            }
        }
        guard changed > 0, let earlier = try? JobRecord.read(from: job.outputDirectory) else { return }
        let before = Dictionary(earlier.plugins.map { ($0.id, $0.version) }, uniquingKeysWith: { first, _ in first })
        pluginChanges = job.plugins.compactMap { plugin in
            guard let version = before[plugin.id], version != plugin.version else { return nil }
            return "\(plugin.id) \(version) → \(plugin.version)"
        }
        let recorded = Set(LayerInput.recorded(in: earlier.canonical).map { "\($0.file) \($0.sha256)" })
        var seen: Set<String> = []
        inputChanges = LayerInput.recorded(in: job.canonical).compactMap { input in
            recorded.contains("\(input.file) \(input.sha256)") || !seen.insert(input.file).inserted ? nil : input.file
        }
    }

    /// Adds another job's counts.
    package static func + (lhs: RerunReason, rhs: RerunReason) -> RerunReason {
        var sum = lhs
        sum.new += rhs.new
        sum.changed += rhs.changed
        sum.recorded += rhs.recorded
        sum.pluginChanges += rhs.pluginChanges.filter { !lhs.pluginChanges.contains($0) }
        sum.inputChanges += rhs.inputChanges.filter { !lhs.inputChanges.contains($0) }
        return sum
    }

    /// The parts of `todo` frames to render, e.g. `120 because the job changed`, `3 missing or corrupt`;
    /// empty on a first render (every frame new).
    package func explain(todo: Int) -> [String] {
        guard changed + recorded > 0 else { return [] }
        var parts: [String] = []
        if changed > 0 {
            parts.append(
                !pluginChanges.isEmpty
                    ? "\(changed) because a plugin changed (\(pluginChanges.joined(separator: ", ")))"
                    : !inputChanges.isEmpty
                        ? "\(changed) because an input file changed (\(inputChanges.joined(separator: ", ")))"
                        : "\(changed) because the job changed")
        }
        if new > 0 { parts.append("\(new) never rendered") }
        let damaged = todo - changed - new
        if damaged > 0 { parts.append("\(damaged) missing or corrupt") }
        return parts
    }
}
