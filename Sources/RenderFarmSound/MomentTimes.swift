import RenderFarmJobs
import StrictJSON

/// When a sound played at a layer's moments is heard (`"at": {"layer": …, "moment": …}`, <doc:Sound>): each
/// moment of that name the layer's plugin declared (ABI `moments`), through the layer's and its groups' time,
/// plus the offset. The layer and the moment are looked up by name, so a misspelt one is refused, never silent.
package enum MomentTimes {
    /// The job seconds at which the sound at `path` plays, in order; or the problem with its reference.
    package static func resolve(
        _ reference: AudioSpec.MomentReference, path: String, job: JobSpec, moments: [Int: [DeclaredMoment]]
    ) -> Result<[Double], JobIssue> {
        let clocks = job.clocks
        guard let index = clocks.indices.first(where: { clocks[$0].name == reference.layer }) else {
            let names = clocks.compactMap(\.name)
            return .failure(
                JobIssue(
                    path: path + ".at.layer",
                    "no effect layer named \"\(reference.layer)\"" + Suggestion.hint(for: reference.layer, in: names)
                        + (names.isEmpty
                            ? "; give the layer a \"name\"" : "; named layers: " + names.joined(separator: ", "))))
        }
        let declared = moments[index] ?? []
        let matching = declared.filter { $0.name == reference.moment }
        guard !matching.isEmpty else {
            var names: [String] = []
            for moment in declared where !names.contains(moment.name) { names.append(moment.name) }
            let layer = "layer \"\(reference.layer)\" (\(job.layers[index].effect))"
            return .failure(
                JobIssue(
                    path: path + ".at.moment",
                    names.isEmpty
                        ? "\(layer) reports no moments"
                        : "\(layer) has no moment \"\(reference.moment)\""
                            + Suggestion.hint(for: reference.moment, in: names)
                            + "; its moments: " + names.joined(separator: ", ")))
        }
        let times = matching.compactMap { clocks[index].jobTime(ofLocal: $0.time) }.map { $0 + reference.offset }
        return .success(times.filter { $0 >= 0 && $0 <= job.duration }.sorted())
    }

    /// What `validate` says of the sounds of `job` played at moments: an unknown layer or moment, located.
    package static func issues(of job: JobSpec, moments: [Int: [DeclaredMoment]]) -> [JobIssue] {
        (job.audio?.sounds ?? []).enumerated().compactMap { index, sound in
            guard case .moment(let reference) = sound.times else { return nil }
            if case .failure(let issue) = resolve(
                reference, path: "audio.sounds[\(index)]", job: job, moments: moments)
            {
                return issue
            }
            return nil
        }
    }
}
