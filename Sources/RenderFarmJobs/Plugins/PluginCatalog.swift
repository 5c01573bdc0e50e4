import FileInput
import Foundation
import Locking
import RenderFarmPluginABI

/// Every plugin found on the search path (<doc:CommandLine>, "Conventions"), by id, plus what could not be loaded.
package struct PluginCatalog: Sendable {
    package let plugins: [String: LoadedPlugin]
    /// Load failures, ABI mismatches and duplicate ids, in the order they were met.
    package let diagnostics: [PluginLoadError]
    /// The folders that were searched, in order.
    package let searchPath: [String]

    /// The default search path: `extra` (from `--plugin-path`), then `RENDERFARM_PLUGIN_PATH`, then the
    /// user's plugin folder (`userFolder`), then the running executable's folder, then
    /// `<prefix>/lib/renderfarm/plugins`.
    package static func searchPath(
        extra: [String] = [], environment: [String: String] = ProcessInfo.processInfo.environment
    )
        -> [String]
    {
        var folders = extra
        if let variable = environment["RENDERFARM_PLUGIN_PATH"] {
            folders += variable.split(separator: ":").map(String.init)
        }
        if let user = userFolder(environment: environment) { folders.append(user) }
        let executable = executableFolder()
        folders.append(executable.path)
        folders.append(executable.deletingLastPathComponent().appendingPathComponent("lib/renderfarm/plugins").path)
        var seen: Set<String> = []
        return folders.map { URL(fileURLWithPath: $0).standardizedFileURL.path }.filter { seen.insert($0).inserted }
    }

    /// The effects registered in this program (`register`), then every `*.so` in `searchPath`,
    /// folders in order and files sorted by name; the first plugin with a given id wins. A plugin
    /// whose parameter table breaks a rule (`descriptorRefusals`) is refused, naming its first problem.
    package static func discover(searchPath: [String]) -> PluginCatalog {
        discover(searchPath: searchPath, loading: { _ in true })
    }

    /// `discover` for jobs whose layers use the plugins `ids`: a library whose file name says which plugin it
    /// holds (`librenderfarm-ID.so`, as every built-in and scaffold is named) is loaded only when ID is one of
    /// them; a library named otherwise is loaded, since only its descriptor tells its id. A command that checks a
    /// job so loads neither libav nor Pango for a job that uses neither, and runs no code of a library it does
    /// not use. When an id is then missing (a library named for another id holds it, or no library does), the
    /// whole search path is loaded after all, so that the catalog and its messages (every installed id, the
    /// nearest one) are those of `discover`.
    package static func discover(searchPath: [String], using ids: Set<String>) -> PluginCatalog {
        let found = discover(searchPath: searchPath) { name in conventionalID(of: name).map(ids.contains) ?? true }
        return ids.isSubset(of: found.plugins.keys) ? found : discover(searchPath: searchPath)
    }

    /// The plugin id a library's file name gives (`librenderfarm-ID.so`), nil for another name.
    static func conventionalID(of name: String) -> String? {
        let prefix = "librenderfarm-"
        let suffix = ".so"
        guard name.hasPrefix(prefix), name.hasSuffix(suffix), name.count > prefix.count + suffix.count else {
            return nil
        }
        return String(name.dropFirst(prefix.count).dropLast(suffix.count))
    }

    /// Every library of `searchPath` whose file name `loading` accepts, loaded in order (see `discover`).
    private static func discover(searchPath: [String], loading: (String) -> Bool) -> PluginCatalog {
        var plugins = registeredPlugins
        var diagnostics: [PluginLoadError] = []
        for folder in searchPath {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { continue }
            for name in names.sorted() where name.hasSuffix(".so") && loading(name) {
                let path = (folder as NSString).appendingPathComponent(name)
                do throws(PluginLoadError) {
                    let plugin = try load(path)
                    if let problem = plugin.info.descriptorRefusals.first {
                        throw .invalidDescriptor(
                            path: path,
                            reason:
                                "\(problem); fix the parameter table (`renderfarm plugin check \(path)` lists every "
                                + "problem)")
                    }
                    if let first = plugins[plugin.info.id] {
                        diagnostics.append(.duplicateID(id: plugin.info.id, path: path, firstPath: first.info.path))
                    } else {
                        plugins[plugin.info.id] = plugin
                    }
                } catch {
                    diagnostics.append(error)
                }
            }
        }
        return PluginCatalog(plugins: plugins, diagnostics: diagnostics, searchPath: searchPath)
    }

    /// The plugins sorted by id.
    package var sorted: [LoadedPlugin] { plugins.values.sorted { $0.info.id < $1.info.id } }

    package subscript(id: String) -> LoadedPlugin? { plugins[id] }

    /// Opens one library and reads its descriptor. Libraries stay loaded for the life of the
    /// process: unloading a Swift plugin breaks later runtime type checks.
    package static func load(_ path: String) throws(PluginLoadError) -> LoadedPlugin {
        // dlopen opens the file itself and would wait on a named pipe: refuse anything but a regular
        // file first (the folder is the operator's search path, so the window until dlopen is benign).
        do {
            try InputFile.check(path)
        } catch {
            throw .cannotOpen(path: path, reason: error.reason)
        }
        guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE) else {
            let reason = dlerror().map { String(cString: $0) } ?? "unknown error"
            throw .cannotOpen(path: path, reason: reason)
        }
        guard let symbol = dlsym(handle, RF_PLUGIN_ENTRY_POINT) else { throw .notAPlugin(path: path) }
        let entry = unsafeBitCast(symbol, to: rf_plugin_main_fn.self)
        guard let descriptor = entry(RF_ABI_VERSION) else { throw .incompatible(path: path) }
        let plugin = try LoadedPlugin(descriptor: descriptor, path: path)
        plugin.tellFolder()
        return plugin
    }

    /// The user's own plugin folder, searched by default with no root and no variable:
    /// `$XDG_DATA_HOME/renderfarm/plugins`, or `~/.local/share/renderfarm/plugins` when XDG_DATA_HOME is unset or
    /// not absolute (the XDG Base Directory rule); nil without a home folder.
    package static func userFolder(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return URL(fileURLWithPath: data).appendingPathComponent("renderfarm/plugins").standardizedFileURL.path
        }
        guard let home = environment["HOME"], home.hasPrefix("/") else { return nil }
        return URL(fileURLWithPath: home).appendingPathComponent(".local/share/renderfarm/plugins")
            .standardizedFileURL.path
    }

    /// The folder of the running executable, symlinks resolved (`<prefix>/bin` when installed).
    package static func executableFolder() -> URL {
        URL(fileURLWithPath: executablePath()).resolvingSymlinksInPath().deletingLastPathComponent()
    }

    package static func executablePath() -> String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    /// The `renderfarm` program that worker processes (`render --isolate`, `plugin check`'s sandbox) and the
    /// scripts `submit` writes run: this executable, unless a program that runs the engine in its own process
    /// (the test bundle) has named the binary with `runWorkers(with:)`.
    package static var workerExecutable: String { namedWorkerExecutable.withLock { $0 } ?? executablePath() }

    /// Makes `workerExecutable` the `renderfarm` binary at `path`, for a program that is not that binary.
    package static func runWorkers(with path: String) { namedWorkerExecutable.withLock { $0 = path } }

    private static let namedWorkerExecutable = Locked<String?>(nil)
}
