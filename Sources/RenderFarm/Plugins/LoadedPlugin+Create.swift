import RenderFarmPluginABI

extension LoadedPlugin {
    /// Calls the descriptor's `create_with_plugin` when its `struct_size` covers that field and
    /// it is set (so one set of functions can serve several descriptors), else `create`.
    func create(
        _ args: UnsafePointer<rf_create_args>, _ context: UnsafePointer<rf_context>,
        _ out: UnsafeMutablePointer<UnsafeMutableRawPointer?>, _ err: UnsafeMutablePointer<CChar>, _ errlen: Int
    ) -> Int32 {
        let plugin = descriptor.pointee
        let end =
            (MemoryLayout<rf_plugin>.offset(of: \rf_plugin.plugin_data) ?? Int.max)
            + MemoryLayout<UnsafeRawPointer>.size
        if Int(plugin.struct_size) >= end, let createWithPlugin = plugin.create_with_plugin {
            return createWithPlugin(descriptor, args, context, out, err, errlen)
        }
        return plugin.create?(args, context, out, err, errlen) ?? -1
    }
}
