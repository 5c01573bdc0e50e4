import Foundation
import RenderFarmPluginABI
import StrictJSON
import Synchronization

/// A plugin library loaded into the process, with its descriptor read into `info`.
///
/// `@unchecked Sendable`: `descriptor` points at static, immutable data owned by the library,
/// which is never unloaded (RTLD_NODELETE, no dlclose), and the functions it holds are called
/// under the thread-safety level the plugin declared (see `PluginInstance`).
public final class LoadedPlugin: @unchecked Sendable {
    public let info: PluginInfo
    let descriptor: UnsafePointer<rf_plugin>
    /// Serialises every `render` of a plugin that declared `RF_THREADS_UNSAFE`.
    let pluginLock = Mutex(())

    init(descriptor: UnsafePointer<rf_plugin>, path: String) throws(PluginLoadError) {
        self.descriptor = descriptor
        let plugin = descriptor.pointee
        func text(_ pointer: UnsafePointer<CChar>?) -> String { pointer.map { String(cString: $0) } ?? "" }
        let id = text(plugin.id)
        guard plugin.abi_version == RF_ABI_VERSION else {
            throw .abiMismatch(path: path, pluginVersion: plugin.abi_version)
        }
        guard !id.isEmpty, id.utf8.count <= 64, plugin.create != nil, plugin.render != nil, plugin.destroy != nil else {
            throw .invalidDescriptor(path: path, reason: "missing id, create, render or destroy")
        }
        var parameters: [PluginParameter] = []
        if let table = plugin.params {
            for index in 0..<Int(plugin.param_count) {
                parameters.append(try Self.parameter(table[index], path: path))
            }
        }
        let safety: PluginInfo.ThreadSafety =
            switch plugin.thread_safety {
            case RF_THREADS_FULL: .full
            case RF_THREADS_INSTANCE: .instance
            default: .unsafe
            }
        // `flags` exists only in descriptors whose struct_size reaches it (renderfarm_plugin.h).
        let flagsEnd = (MemoryLayout<rf_plugin>.offset(of: \rf_plugin.flags) ?? Int.max) + MemoryLayout<UInt32>.size
        let flags = Int(plugin.struct_size) >= flagsEnd ? plugin.flags : 0
        info = PluginInfo(
            id: id, identifier: text(plugin.identifier), version: text(plugin.version), summary: text(plugin.summary),
            threadSafety: safety, parameters: parameters, canTrace: plugin.trace != nil, path: path,
            frameInvariant: flags & RF_PLUGIN_FRAME_INVARIANT != 0)
    }

    private static func parameter(_ row: rf_param, path: String) throws(PluginLoadError) -> PluginParameter {
        let name = row.name.map { String(cString: $0) } ?? ""
        let kind: PluginParameter.Kind
        switch row.type {
        case RF_PARAM_NUMBER: kind = .number
        case RF_PARAM_INTEGER: kind = .integer
        case RF_PARAM_BOOL: kind = .bool
        case RF_PARAM_COLOR: kind = .color
        case RF_PARAM_POINT: kind = .point
        case RF_PARAM_RECT: kind = .rect
        case RF_PARAM_STRING: kind = .string
        case RF_PARAM_ENUM: kind = .choice
        case RF_PARAM_SIZE: kind = .size
        case RF_PARAM_NUMBER_LIST: kind = .numberList
        case RF_PARAM_JSON: kind = .json
        case RF_PARAM_COLOR_LIST: kind = .colorList
        default:
            throw .invalidDescriptor(path: path, reason: "parameter \"\(name)\" has unknown type \(row.type.rawValue)")
        }
        var defaultValue: JSONValue?
        if let json = row.default_json {
            do {
                defaultValue = try JSONParser.parse(String(cString: json))
            } catch {
                throw .invalidDescriptor(path: path, reason: "parameter \"\(name)\" has an invalid default: \(error)")
            }
        } else if row.flags & UInt32(RF_PARAM_OPTIONAL) == 0 {
            throw .invalidDescriptor(path: path, reason: "parameter \"\(name)\" has no default and is not optional")
        }
        let choices = row.choices.map { String(cString: $0).split(separator: "|").map(String.init) } ?? []
        return PluginParameter(
            name: name, kind: kind, defaultValue: defaultValue, min: row.min, max: row.max, choices: choices,
            doc: row.doc.map { String(cString: $0) } ?? "")
    }
}

/// Why a library on the plugin path could not be used; reported as a diagnostic, never a crash.
public enum PluginLoadError: Error, Equatable, CustomStringConvertible {
    case cannotOpen(path: String, reason: String)
    case notAPlugin(path: String)
    case incompatible(path: String)
    case abiMismatch(path: String, pluginVersion: UInt32)
    case invalidDescriptor(path: String, reason: String)
    case duplicateID(id: String, path: String, firstPath: String)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason):
            "\(path): cannot load: \(reason)"
        case .notAPlugin(let path):
            "\(path): not a RenderFarm plugin (no \(RF_PLUGIN_ENTRY_POINT) symbol)"
        case .incompatible(let path):
            "\(path): the plugin does not support plugin ABI v\(RF_ABI_VERSION) (rebuild it against this renderfarm)"
        case .abiMismatch(let path, let version):
            "\(path): built for plugin ABI v\(version), this renderfarm speaks v\(RF_ABI_VERSION); rebuild the plugin"
        case .invalidDescriptor(let path, let reason):
            "\(path): invalid plugin descriptor: \(reason)"
        case .duplicateID(let id, let path, let firstPath):
            "\(path): duplicate plugin id \"\(id)\" ignored (already loaded from \(firstPath))"
        }
    }
}
