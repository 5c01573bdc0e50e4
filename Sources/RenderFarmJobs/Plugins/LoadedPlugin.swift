import CFaultReport
import FileInput
import FileOutput
import Foundation
import Locking
import RenderFarmPluginABI
import StrictJSON

/// A plugin library loaded into the process, with its descriptor read into `info`.
///
/// `@unchecked Sendable`: `descriptor` points at static, immutable data owned by the library,
/// which is never unloaded (RTLD_NODELETE, no dlclose), and the functions it holds are called
/// under the thread-safety level the plugin declared (see `PluginInstance`).
package final class LoadedPlugin: @unchecked Sendable {
    package let info: PluginInfo
    package let descriptor: UnsafePointer<rf_plugin>
    /// Serialises every `render` of a plugin that declared `RF_THREADS_UNSAFE`.
    package let pluginLock = Locked(())
    private let libraryHash = Locked<String?>(nil)
    /// "id (library path)", formatted once for the crash report; freed with the plugin object (the crash report
    /// reads it only during a call into the plugin, which holds the object).
    private let faultLabel: UnsafePointer<CChar>

    package init(descriptor: UnsafePointer<rf_plugin>, path: String) throws(PluginLoadError) {
        self.descriptor = descriptor
        let plugin = descriptor.pointee
        func text(_ pointer: UnsafePointer<CChar>?) -> String { pointer.map { String(cString: $0) } ?? "" }
        let id = text(plugin.id)
        guard plugin.abi_version == RF_ABI_VERSION else {
            throw .abiMismatch(path: path, pluginVersion: plugin.abi_version)
        }
        // The first ABI v1 descriptors ended before `flags`: nothing smaller is a descriptor.
        let minimumSize = MemoryLayout<rf_plugin>.offset(of: \rf_plugin.flags) ?? MemoryLayout<rf_plugin>.size
        guard Int(plugin.struct_size) >= minimumSize else {
            throw .invalidDescriptor(
                path: path,
                reason: "struct_size is \(plugin.struct_size), smaller than ABI v1's \(minimumSize) bytes "
                    + "(set it to sizeof(rf_plugin))")
        }
        guard plugin.create != nil, plugin.render != nil, plugin.destroy != nil else {
            throw .invalidDescriptor(path: path, reason: "missing create, render or destroy")
        }
        if let problem = Self.idProblem(id) {
            throw .invalidDescriptor(path: path, reason: "id \"\(id)\" \(problem)")
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
            frameInvariant: flags & RF_PLUGIN_FRAME_INVARIANT != 0,
            keysCoverInputs: flags & RF_PLUGIN_KEYS_COVER_INPUTS != 0,
            keysCoverParams: flags & RF_PLUGIN_KEYS_COVER_PARAMS != 0)
        faultLabel = UnsafePointer(strdup("\(id) (\(path))") ?? strdup("?"))
    }

    // Freed, not left for the life of the process: LeakSanitizer, which plugin authors run `plugin check` under,
    // would report the label of every plugin object the check let go of as a leak of the host's.
    deinit { free(UnsafeMutablePointer(mutating: faultLabel)) }

    /// Runs `call` (a call into the plugin) marked as this plugin's, so a crash inside it names
    /// the plugin and `frame` (negative: not a frame) on stderr before the process dies.
    package func reportingFaults<T>(frame: Int, _ call: () -> T) -> T {
        rf_fault_report_enter(faultLabel, frame)
        defer { rf_fault_report_leave() }
        return call()
    }

    /// The plugin ABI this renderfarm speaks (`RF_ABI_VERSION`).
    package static let abiVersion = RF_ABI_VERSION

    /// Installs the crash report for plugin calls, ending its line with `hint`; the CLI calls
    /// it at start. `contained`: the process is a worker whose crash fails one attempt at a frame,
    /// not the run, so the line does not say `fatal:`.
    package static func installFaultReport(hint: StaticString, contained: Bool = false) {
        let lead: StaticString = contained ? "renderfarm: " : "renderfarm: fatal: "
        // A StaticString's bytes are NUL-terminated and live as long as the program.
        lead.withUTF8Buffer { lead in
            hint.withUTF8Buffer { hint in
                guard let lead = lead.baseAddress, let hint = hint.baseAddress else { return }
                rf_fault_report_install(
                    UnsafeRawPointer(lead).assumingMemoryBound(to: CChar.self),
                    UnsafeRawPointer(hint).assumingMemoryBound(to: CChar.self))
            }
        }
    }

    /// What is wrong with `id` under the header's rule (1–64 characters of a-z, 0-9 and '-',
    /// starting with a letter or digit), or nil when it is a valid id.
    package static func idProblem(_ id: String) -> String? {
        if id.isEmpty { return "is empty" }
        if id.utf8.count > 64 { return "is longer than 64 characters" }
        let allowed = id.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D }
        if !allowed || id.hasPrefix("-") {
            return "breaks the id rule: lowercase letters, digits and '-', not starting with '-'"
        }
        return nil
    }

    /// The sha256 of the library file, computed on first use and kept: part of every frame's
    /// fingerprint, so a rebuilt plugin re-renders its frames even with the same version.
    package var librarySHA256: String {
        libraryHash.withLock { hash in
            if let hash { return hash }
            // An unreadable library (removed since it was loaded) gets a hash no file has.
            let file = try? InputFile(info.path)
            let computed = file.flatMap(SHA256.hex(ofVersion:)) ?? "unreadable:\(info.path)"
            hash = computed
            return computed
        }
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
        case RF_PARAM_EVENTS: kind = .events
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
package enum PluginLoadError: Error, Equatable, CustomStringConvertible {
    case cannotOpen(path: String, reason: String)
    case notAPlugin(path: String)
    case incompatible(path: String)
    case abiMismatch(path: String, pluginVersion: UInt32)
    case invalidDescriptor(path: String, reason: String)
    case duplicateID(id: String, path: String, firstPath: String)

    package var description: String {
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
