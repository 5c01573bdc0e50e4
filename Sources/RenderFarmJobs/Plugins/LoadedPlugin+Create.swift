import Foundation
import Locking
import RenderFarmPluginABI

extension LoadedPlugin {
    /// Calls the descriptor's `create_with_plugin` when its `struct_size` covers that field and
    /// it is set (so one set of functions can serve several descriptors), else `create`.
    package func create(
        _ args: UnsafePointer<rf_create_args>, _ context: UnsafePointer<rf_context>,
        _ out: UnsafeMutablePointer<UnsafeMutableRawPointer?>, _ err: UnsafeMutablePointer<CChar>, _ errlen: Int
    ) -> Int32 {
        let plugin = descriptor.pointee
        if covers(\.plugin_data, size: MemoryLayout<UnsafeRawPointer>.size),
            let createWithPlugin = plugin.create_with_plugin
        {
            return createWithPlugin(descriptor, args, context, out, err, errlen)
        }
        return plugin.create?(args, context, out, err, errlen) ?? -1
    }

    /// The descriptor's `prepare`, when its `struct_size` covers it and it is set.
    package var prepare:
        (@convention(c) (UnsafeMutableRawPointer?, UInt32, UInt32, UnsafeMutablePointer<CChar>?, Int) -> Int32)?
    {
        covers(\.prepare, size: MemoryLayout<UnsafeRawPointer>.size) ? descriptor.pointee.prepare : nil
    }

    /// The descriptor's `prepare_with_cache`, when its `struct_size` covers it and it is set.
    package var prepareWithCache:
        (
            @convention(c) (
                UnsafeMutableRawPointer?, UInt32, UInt32, UnsafePointer<CChar>?, UnsafeMutablePointer<CChar>?, Int
            ) -> Int32
        )?
    {
        covers(\.prepare_with_cache, size: MemoryLayout<UnsafeRawPointer>.size)
            ? descriptor.pointee.prepare_with_cache : nil
    }

    /// The descriptor's `frame_key`, when its `struct_size` covers it and it is set.
    package var frameKey:
        (@convention(c) (UnsafeMutableRawPointer?, UnsafePointer<rf_frame>?, UnsafeMutablePointer<UInt8>?) -> Int32)?
    {
        covers(\.frame_key, size: MemoryLayout<UnsafeRawPointer>.size) ? descriptor.pointee.frame_key : nil
    }

    /// The descriptor's `input_files`, when its `struct_size` covers it and it is set.
    package var inputFiles:
        (@convention(c) (UnsafeMutableRawPointer?, rf_write_fn?, UnsafeMutableRawPointer?) -> Int32)?
    {
        covers(\.input_files, size: MemoryLayout<UnsafeRawPointer>.size) ? descriptor.pointee.input_files : nil
    }

    /// The descriptor's `verify`, when its `struct_size` covers it and it is set.
    package var verify: (@convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<CChar>?, Int) -> Int32)? {
        covers(\.verify, size: MemoryLayout<UnsafeRawPointer>.size) ? descriptor.pointee.verify : nil
    }

    /// The descriptor's `sounds`, when its `struct_size` covers it and it is set.
    package var sounds: (@convention(c) (UnsafeMutableRawPointer?, rf_sound_fn?, UnsafeMutableRawPointer?) -> Int32)? {
        covers(\.sounds, size: MemoryLayout<UnsafeRawPointer>.size) ? descriptor.pointee.sounds : nil
    }

    /// The descriptor's `moments`, when its `struct_size` covers it and it is set.
    package var moments: (@convention(c) (UnsafeMutableRawPointer?, rf_moment_fn?, UnsafeMutableRawPointer?) -> Int32)?
    {
        covers(\.moments, size: MemoryLayout<UnsafeRawPointer>.size) ? descriptor.pointee.moments : nil
    }

    /// Writes the folder that holds the library into the plugin's `plugin_dir` variable, when its `struct_size`
    /// covers that field and it is set: once per process, before any instance is created (`PluginCatalog.load`).
    /// The library's path is resolved first, so a plugin linked into a plugin folder finds the assets beside
    /// its real file.
    func tellFolder() {
        guard covers(\.plugin_dir, size: MemoryLayout<UnsafeRawPointer>.size),
            let variable = descriptor.pointee.plugin_dir
        else { return }
        let folder = URL(fileURLWithPath: info.path).resolvingSymlinksInPath().deletingLastPathComponent()
            .standardizedFileURL.path
        Self.toldVariables.withLock { told in
            guard told.insert(UInt(bitPattern: variable)).inserted else { return }
            // Kept for the life of the process, as the library is (renderfarm_plugin.h).
            variable.pointee = UnsafePointer(strdup(folder))
        }
    }

    /// The `plugin_dir` variables written in this process (their addresses): each is written once, so a library
    /// loaded again by another catalog, or through another path, is never written while an instance reads it.
    private static let toldVariables = Locked<Set<UInt>>([])

    /// Whether the plugin's `struct_size` reaches past `field` (of `size` bytes): fields added to
    /// ABI v1 after its first release are read only then.
    private func covers(_ field: PartialKeyPath<rf_plugin>, size: Int) -> Bool {
        guard let offset = MemoryLayout<rf_plugin>.offset(of: field) else { return false }
        return Int(descriptor.pointee.struct_size) >= offset + size
    }
}
