import RenderFarmJobs
import RenderFarmOutput

extension RenderPlan {
    /// What each layer's frames read besides the job: the event logs the job names as files (read by
    /// the host) and the files the layer's plugin names (ABI `input_files`), hashed.
    static func layerInputs(_ job: LoadedJob, validated: [ValidatedLayer], created: [CreatedLayer]) -> [[LayerInput]] {
        zip(validated, created).map { layer, created in
            let logs = layer.plugin.info.parameters.filter { $0.kind == .events }.compactMap {
                job.spec.layers[layer.index].params[$0.name]?.stringValue
            }
            guard case .created(_, let files, _, _) = created else { return [] }
            let spec = job.spec.layers[layer.index]
            let folder = spec.directory(in: job.directory)
            return LayerInput.hashing(
                logs, layer: layer.index, reader: .host, jobDirectory: job.directory, folder: folder)
                + LayerInput.hashing(
                    files, layer: layer.index, reader: .plugin, jobDirectory: job.directory, folder: folder)
                + LayerInput.hashing(
                    spec.scope?.files ?? [], layer: layer.index, reader: .composition, jobDirectory: job.directory)
        }
    }

    /// The sound each created layer plays (ABI `sounds`), by layer index; layers without sound left out.
    static func layerSounds(_ validated: [ValidatedLayer], created: [CreatedLayer]) -> [Int: [DeclaredSound]] {
        var sounds: [Int: [DeclaredSound]] = [:]
        for (layer, created) in zip(validated, created) {
            guard case .created(_, _, let declared, _) = created, !declared.isEmpty else { continue }
            sounds[layer.index] = declared
        }
        return sounds
    }

    /// Each created layer's moments (ABI `moments`), by layer index; layers without moments left out.
    static func layerMoments(_ validated: [ValidatedLayer], created: [CreatedLayer]) -> [Int: [DeclaredMoment]] {
        var moments: [Int: [DeclaredMoment]] = [:]
        for (layer, created) in zip(validated, created) {
            guard case .created(_, _, _, let declared) = created, !declared.isEmpty else { continue }
            moments[layer.index] = declared
        }
        return moments
    }
}
