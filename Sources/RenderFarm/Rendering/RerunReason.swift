import Foundation
import RenderFarmOutput
import StrictJSON

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
    /// Plugins whose library differs from the earlier run's: `physics-bounce 1.0.0 → 1.1.0`, or
    /// `floating-heart rebuilt (same version 1.0.0)`.
    package var pluginChanges: [String] = []
    /// Input files (`LayerInput`) the earlier run read with other content: `assets/gift-pop.json`.
    package var inputChanges: [String] = []
    /// Places in the job file whose value differs from the earlier run's (`JobChanges`): `layers[1].params.fill`.
    package var jobChanges: [String] = []
    /// Whether the job's variant row (its values from the variants file) differs from the earlier run's.
    package var variantChanged = false

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
        guard changed > 0, let record = try? JobRecord.read(from: job.outputDirectory) else { return }
        // What the frames drawn again were drawn from (before an interrupted run of this job, that run's job).
        let earlier = record.drawnFrom(job)
        let libraries = Self.libraries(in: earlier)
        var seenPlugins: Set<String> = []
        pluginChanges = job.layerPlugins.compactMap { plugin in
            let info = plugin.info
            guard seenPlugins.insert(info.id).inserted, let old = libraries[info.id] else { return nil }
            if old.version != info.version { return "\(info.id) \(old.version) → \(info.version)" }
            guard old.sha256 != plugin.librarySHA256 else { return nil }
            return "\(info.id) rebuilt (same version \(info.version))"
        }
        // A file read before with other content; a file the edited job reads for the first time is the job's change.
        var before: [String: Set<String>] = [:]
        for input in LayerInput.recorded(in: earlier) { before[input.file, default: []].insert(input.sha256) }
        var seen: Set<String> = []
        inputChanges = LayerInput.recorded(in: job.canonical).compactMap { input in
            guard let hashes = before[input.file], !hashes.contains(input.sha256) else { return nil }
            return seen.insert(input.file).inserted ? input.file : nil
        }
        jobChanges = JobChanges.places(before: earlier, after: job.canonical, spec: job.spec)
        variantChanged = record.variant != nil && record.variant != job.job.variant?.json
    }

    /// The version and library hash of each plugin id in a canonical job's layers (the first of each).
    private static func libraries(in canonical: JSONValue) -> [String: (version: String, sha256: String)] {
        var libraries: [String: (version: String, sha256: String)] = [:]
        for layer in canonical.objectValue?["layers"]?.arrayValue ?? [] {
            guard let entry = layer.objectValue, let id = entry["effect"]?.stringValue, libraries[id] == nil,
                let version = entry["pluginVersion"]?.stringValue, let sha256 = entry["pluginSHA256"]?.stringValue
            else { continue }
            libraries[id] = (version, sha256)
        }
        return libraries
    }

    /// Adds another job's counts.
    package static func + (lhs: RerunReason, rhs: RerunReason) -> RerunReason {
        var sum = lhs
        sum.new += rhs.new
        sum.changed += rhs.changed
        sum.recorded += rhs.recorded
        sum.pluginChanges += rhs.pluginChanges.filter { !lhs.pluginChanges.contains($0) }
        sum.inputChanges += rhs.inputChanges.filter { !lhs.inputChanges.contains($0) }
        sum.jobChanges += rhs.jobChanges.filter { !lhs.jobChanges.contains($0) }
        sum.variantChanged = lhs.variantChanged || rhs.variantChanged
        return sum
    }

    /// Up to three of `items`, then how many more.
    private static func listed(_ items: [String]) -> String {
        let shown = items.prefix(3).joined(separator: ", ")
        return items.count > 3 ? shown + " and \(items.count - 3) more" : shown
    }

    /// The parts of `todo` frames to render, e.g. `120 because the job changed (layers[1].params.fill)`,
    /// `3 missing or corrupt`; empty on a first render (every frame new).
    package func explain(todo: Int) -> [String] {
        guard changed + recorded > 0 else { return [] }
        var parts: [String] = []
        if changed > 0 {
            var causes: [String] = []
            if !pluginChanges.isEmpty { causes.append("a plugin changed (\(Self.listed(pluginChanges)))") }
            if !inputChanges.isEmpty { causes.append("an input file changed (\(Self.listed(inputChanges)))") }
            if !jobChanges.isEmpty {
                let what = variantChanged ? "the variants file changed" : "the job changed"
                causes.append("\(what) (\(Self.listed(jobChanges)))")
            }
            if causes.isEmpty { causes.append("the job changed") }
            parts.append("\(changed) because " + causes.joined(separator: " and "))
        }
        if new > 0 { parts.append("\(new) never rendered") }
        let damaged = todo - changed - new
        if damaged > 0 { parts.append("\(damaged) missing or corrupt") }
        return parts
    }
}
