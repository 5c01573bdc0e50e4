import EffectKit

private let export = PluginExport(Particles.self)

/// The plugin's entry point (renderfarm_plugin.h).
@_cdecl("rf_plugin_main")
public func rf_plugin_main(_ hostVersion: UInt32) -> UnsafeRawPointer? {
    export.descriptor(forHost: hostVersion)
}
