import EffectKit
import Locking
import RenderFarmPluginABI

extension PluginCatalog {
    /// Effects compiled into this program and registered, by id, with the type that registered each id.
    private static let registered = Locked<[String: (type: ObjectIdentifier, plugin: LoadedPlugin)]>([:])

    /// Makes a Swift `Effect` compiled into this program a plugin of every catalog the process
    /// discovers from now on, without a library or `dlopen`: for tests that drive the engine in
    /// process, and for programs that embed it.
    ///
    /// The effect goes through the same C ABI as a library's (`PluginExport`), so the host cannot
    /// tell them apart except by `info.path`, which names this program's executable: its sha256 is
    /// the plugin's identity in frame fingerprints and the manifest, so a rebuilt program re-renders.
    /// A registered effect wins over a library with the same id on the search path (which becomes a
    /// `duplicateID` diagnostic). Worker processes (`--isolate`, Slurm tasks) are other programs and
    /// do not see it: those need a library.
    ///
    /// Registering the same type again returns the first registration; another type with a taken id
    /// throws `duplicateID`, and an invalid descriptor throws as a library's would.
    @discardableResult
    package static func register(_ effect: any Effect.Type) throws(PluginLoadError) -> LoadedPlugin {
        let type = ObjectIdentifier(effect)
        let executable = executablePath()
        return try registered.withLock { (registered) throws(PluginLoadError) -> LoadedPlugin in
            let id = effect.descriptor.id
            if let existing = registered[id] {
                guard existing.type == type else {
                    throw .duplicateID(id: id, path: "\(effect)", firstPath: existing.plugin.info.path)
                }
                return existing.plugin
            }
            let export = PluginExport(effect)
            guard let raw = export.descriptor(forHost: RF_ABI_VERSION) else { throw .incompatible(path: executable) }
            let plugin = try LoadedPlugin(
                descriptor: raw.assumingMemoryBound(to: rf_plugin.self), path: executable)
            if let problem = plugin.info.descriptorRefusals.first {
                throw .invalidDescriptor(path: "\(effect)", reason: problem)
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
