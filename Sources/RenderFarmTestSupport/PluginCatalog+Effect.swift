import EffectKit
import RenderFarmJobs

extension PluginCatalog {
    /// Makes a Swift `Effect` compiled into this program a plugin of every catalog the process discovers
    /// from now on, through its `PluginExport`, as a library's `rf_plugin_main` would give it (see
    /// `register(id:type:named:descriptor:)`). The engine itself links no EffectKit: this is for tests
    /// and for programs that embed the engine with effects of their own.
    @discardableResult
    package static func register(_ effect: any Effect.Type) throws(PluginLoadError) -> LoadedPlugin {
        let export = PluginExport(effect)
        return try register(id: effect.descriptor.id, type: ObjectIdentifier(effect), named: "\(effect)") { host in
            export.descriptor(forHost: host)
        }
    }
}
