import RenderFarm
import RenderFarmJobs
import StrictJSON

extension CommonOptions {
    /// The plugin `id` in `catalog`, or nil after saying which ids are installed (with a
    /// "did you mean" hint) and which folders were searched; the caller then exits 69.
    static func plugin(_ id: String, in catalog: PluginCatalog, terminal: Terminal) -> LoadedPlugin? {
        if let plugin = catalog[id] { return plugin }
        let ids = catalog.plugins.keys.sorted()
        terminal.error(
            "no plugin \"\(id)\"" + Suggestion.hint(for: id, in: ids) + "; installed: "
                + (ids.isEmpty ? "none" : ids.joined(separator: ", ")) + "; searched: "
                + catalog.searchPath.joined(separator: ", "))
        return nil
    }
}
