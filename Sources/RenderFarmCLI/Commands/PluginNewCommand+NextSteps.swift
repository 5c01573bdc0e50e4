import Foundation
import RenderFarm
import RenderFarmJobs

/// What `plugin new` tells an author after writing a project: the exact `PKG_CONFIG_PATH` line when pkg-config
/// would not find this installation's SDK (a C build then fails on `cairo.h`, which hides the cause), and where
/// to install the library so that renderfarm finds it.
extension PluginNewCommand {
    /// Where pkg-config stands on the SDK of the running renderfarm.
    enum SDKLookup: Equatable {
        /// pkg-config finds this installation's `renderfarm-plugin.pc`.
        case found
        /// This renderfarm is installed with its `.pc` in `folder`, which pkg-config does not search (or it finds
        /// another installation's first, in `other`).
        case notSearched(folder: String, other: String?)
        /// This renderfarm is not installed (a build folder) and pkg-config finds no SDK.
        case none
    }

    /// The lines printed after "created …": build, then install. `project` is the folder as the user named it,
    /// `absolute` the same folder from the root.
    static func nextSteps(
        language: PluginScaffold.Language, project: String, absolute: String, sdk: SDKLookup, userFolder: String?
    ) -> [String] {
        var lines: [String] = []
        if language == .c {
            switch sdk {
            case .found: break
            case .notSearched(let folder, let other):
                lines.append(
                    other.map { "pkg-config finds another renderfarm's SDK first (\($0)); before make, run:" }
                        ?? "pkg-config does not search this renderfarm's SDK (\(folder)); before make, run:")
                lines.append("  export PKG_CONFIG_PATH=\"\(folder)${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}\"")
            case .none:
                lines.append(
                    "pkg-config finds no renderfarm-plugin SDK: install RenderFarm (make install PREFIX=DIR) and "
                        + "export PKG_CONFIG_PATH=DIR/lib/pkgconfig")
            }
        }
        lines.append("next: cd \(project) && make && make test && make check")
        let library = language == .c ? absolute : absolute + "/.build/release"
        if let userFolder {
            lines.append("install: make install-user copies the library into \(userFolder), which renderfarm searches")
            lines.append("  by default; or use it where it is built: export RENDERFARM_PLUGIN_PATH=\(library)")
        } else {
            lines.append(
                "install: export RENDERFARM_PLUGIN_PATH=\(library), or make install (into the SDK's plugin folder)")
        }
        return lines
    }

    /// Asks pkg-config for this installation's SDK: `<prefix>/lib/pkgconfig/renderfarm-plugin.pc`, where
    /// `<prefix>` is the folder above the executable's.
    static func lookUpSDK() -> SDKLookup {
        let prefix = PluginCatalog.executableFolder().deletingLastPathComponent()
        let folder = prefix.appendingPathComponent("lib/pkgconfig").standardizedFileURL.path
        let installed = FileManager.default.fileExists(atPath: folder + "/renderfarm-plugin.pc")
        let found = pkgConfigFolder()
        guard installed else { return found == nil ? .none : .found }
        guard let found else { return .notSearched(folder: folder, other: nil) }
        return realPath(found) == realPath(folder) ? .found : .notSearched(folder: folder, other: found)
    }

    /// The folder of the `renderfarm-plugin.pc` pkg-config finds (its `pcfiledir`), or nil.
    private static func pkgConfigFolder() -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let pkgConfig = ProcessInfo.processInfo.environment["PKG_CONFIG"] ?? "pkg-config"
        process.arguments = [pkgConfig, "--variable=pcfiledir", "renderfarm-plugin"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return process.terminationStatus == 0 && !text.isEmpty ? text : nil
    }

    private static func realPath(_ path: String) -> String {
        URL(fileURLWithPath: path).resolvingSymlinksInPath().standardizedFileURL.path
    }
}
