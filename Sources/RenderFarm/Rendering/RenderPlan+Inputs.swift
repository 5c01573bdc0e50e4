import RenderFarmJobs
import RenderFarmOutput

extension RenderPlan {
    /// What each layer's frames read besides the job: the event logs the job names as files (read by
    /// the host) and the files the layer's plugin names (ABI `input_files`), hashed.
    static func layerInputs(_ job: LoadedJob, validated: [ValidatedLayer], instances: [PluginInstance])
        -> [[LayerInput]]
    {
        zip(validated, instances).map { layer, instance in
            let logs = layer.plugin.info.parameters.filter { $0.kind == .events }.compactMap {
                job.spec.layers[layer.index].params[$0.name]?.stringValue
            }
            return LayerInput.hashing(logs, layer: layer.index, reader: .host, jobDirectory: job.directory)
                + LayerInput.hashing(
                    instance.inputFiles, layer: layer.index, reader: .plugin, jobDirectory: job.directory)
        }
    }
}
