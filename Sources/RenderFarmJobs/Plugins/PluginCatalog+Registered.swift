import Locking
import RenderFarmPluginABI

extension PluginCatalog {
    /// Effects compiled into this program and registered, by id, with the type that registered each id.
    private static let registered = Locked<[String: (type: ObjectIdentifier, plugin: LoadedPlugin)]>([:])

    /// Makes a plugin compiled into this program a plugin of every catalog the process discovers from
    /// now on, without a library or `dlopen`: for tests that drive the engine in process, and for
    /// programs that embed it. `descriptor` is the plugin's `rf_plugin_descriptor` entry point
    /// (RenderFarmTestSupport registers an EffectKit `Effect` type through its `PluginExport`).
    ///
    /// The plugin goes through the same C ABI as a library's, so the host cannot tell them apart
    /// except by `info.path`, which names this program's executable: its sha256 is the plugin's
    /// identity in frame fingerprints and the manifest, so a rebuilt program re-renders. A registered
    /// plugin wins over a library with the same id on the search path (which becomes a `duplicateID`
    /// diagnostic). Worker processes (`--isolate`, Slurm tasks) are other programs and do not see it:
    /// those need a library.
    ///
    /// Registering the same `type` again returns the first registration; another type with a taken id
    /// throws `duplicateID`, and an invalid descriptor throws as a library's would.
    @discardableResult
    package static func register(
        id: String, type: ObjectIdentifier, named name: String, descriptor: (UInt32) -> UnsafeRawPointer?
    ) throws(PluginLoadError) -> LoadedPlugin {
        let executable = executablePath()
        return try registered.withLock { (registered) throws(PluginLoadError) -> LoadedPlugin in
            if let existing = registered[id] {
                guard existing.type == type else {
                    throw .duplicateID(id: id, path: name, firstPath: existing.plugin.info.path)
                }
                return existing.plugin
            }
            guard let raw = descriptor(RF_ABI_VERSION) else { throw .incompatible(path: executable) }
            let plugin = try LoadedPlugin(
                descriptor: raw.assumingMemoryBound(to: rf_plugin.self), path: executable)
            if let problem = plugin.info.descriptorRefusals.first {
                throw .invalidDescriptor(path: name, reason: problem)
            }
            registered[id] = (type, plugin)
            return plugin
        }
    }

    /// The registered effects' plugins, by id.
    static var registeredPlugins: [String: LoadedPlugin] {
        registered.withLock { $0.mapValues(\.plugin) }
    }
}
