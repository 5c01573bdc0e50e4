import Foundation
import RenderFarmJobs
import StrictJSON

/// What a sandboxed worker may reach from the moment it locks itself in, before its plugins' instances are
/// created (`WorkerSandbox.lockIn`): its jobs' folders and what they name, since a plugin's `create` and
/// `verify` open the files its parameters name and only then say which they read (ABI `input_files`).
///
/// The render applies the same scope to what the instances say: under `--isolate` a file a plugin names
/// outside it is refused at planning, as the worker could not have read it (`RenderPlan`).
package struct WorkerScope: Sendable, Equatable {
    /// Files and folders read (beside the system's files, `WorkerSandbox.systemReadPaths`).
    package var read: [String]
    /// Folders written (those that exist).
    package var write: [String]
    /// The largest frame's bytes, for the address-space limit.
    package var frameBytes: Int

    /// The scope of a worker of `jobs` with the plugins of `catalog`: it reads each job's folder, the event logs
    /// its layers name (which the worker reads to give the plugin its events), the plugin folders `pluginFolders`
    /// and the folders of the jobs' plugin libraries with their links resolved (where a plugin finds its assets,
    /// ABI `plugin_dir`); it writes `cacheFolders`. `scale` replaces the canvases' scale (`--scale`). A file
    /// elsewhere is not in reach, whatever a parameter names: a string parameter may hold any text.
    package init(
        jobs: [LoadedJob], catalog: PluginCatalog, pluginFolders: [String], cacheFolders: [String],
        scale: Double? = nil
    ) {
        var read = pluginFolders
        for job in jobs {
            read.append(job.directory)
            for layer in job.spec.layers {
                guard let plugin = catalog[layer.effect] else { continue }
                read.append(
                    URL(fileURLWithPath: plugin.info.path).resolvingSymlinksInPath().deletingLastPathComponent().path)
                for parameter in plugin.info.parameters where parameter.kind == .events {
                    guard let log = layer.params[parameter.name]?.stringValue, !log.isEmpty else { continue }
                    read.append(log.hasPrefix("/") ? log : (job.directory as NSString).appendingPathComponent(log))
                }
            }
        }
        self.read = Array(Set(read.map(Self.standardized))).filter { $0 != "/" }.sorted()
        write = Array(Set(cacheFolders.map(Self.standardized))).sorted()
        frameBytes = jobs.map { Self.frameBytes($0.spec.canvas, scale: scale) }.max() ?? 0
    }

    /// The paths of `paths` a worker of this scope cannot read: those that do not lie, once their links are
    /// resolved, in a path of `read` or of the system's files a worker reads.
    package func unreadable(_ paths: [String]) -> [String] {
        let roots = (read + WorkerSandbox.systemReadPaths(mapped: [])).map { realPath(Self.standardized($0)) }
            .filter { $0 != "/" }
        return paths.filter { path in
            let resolved = realPath(Self.standardized(path))
            return !roots.contains { resolved == $0 || resolved.hasPrefix($0.hasSuffix("/") ? $0 : $0 + "/") }
        }
    }

    private static func standardized(_ path: String) -> String { URL(fileURLWithPath: path).standardizedFileURL.path }

    /// A worker's peak for `canvas` at `scale` (its own when nil), before its layers are known: as if it had static
    /// layers (`MemoryBudget.workerBytes`).
    private static func frameBytes(_ canvas: Canvas, scale: Double?) -> Int {
        let scale = scale ?? canvas.scale
        let pixels = (canvas.width * scale).rounded() * (canvas.height * scale).rounded()
        let counted = pixels.isFinite && pixels > 0 ? min(pixels, Double(JobDecoder.Limits.maxPixels)) : 0
        return MemoryBudget.workerBytes(pixels: Int(counted), staticLayers: true, isolated: true)
    }
}
