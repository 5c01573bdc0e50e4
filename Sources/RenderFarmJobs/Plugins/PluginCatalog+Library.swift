import Foundation

extension PluginCatalog {
    /// Loads one library by path, outside any search path (`renderfarm plugin check LIB`).
    package static func loadLibrary(_ path: String) throws(PluginLoadError) -> LoadedPlugin {
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        return try load(absolute)
    }
}
