import FileInput
import FileOutput
import Foundation
import RenderFarmJobs
import StrictJSON

/// A file a layer's frames depend on besides the job file and the plugin library: an event log the
/// host reads for the layer (`RF_PARAM_EVENTS`), or a file the plugin reads itself and names
/// (ABI `input_files`: a Lottie file, an item's image).
///
/// Every such file reaches the frames one way: its content hash is part of the layer in the
/// canonical job, so it decides the fingerprint of the layer's frames, and the manifest lists it.
/// Editing the file draws the layer's frames again, in every command that plans a job; an unchanged
/// file, wherever it lies, changes nothing. A file a plugin names (`inputs`) decides every frame of
/// its layer; an event log (`eventLogs`) decides only the frames whose keys its events change,
/// because the host hands its events to the plugin as a parameter, which frame keys cover.
package struct LayerInput: Sendable, Equatable {
    /// The layer, counted from 0.
    package var layer: Int
    /// Who reads it.
    package var reader: Reader
    /// The file relative to the job's folder when it lies inside it, else absolute.
    package var file: String
    /// The hex SHA-256 of its content, or `unreadable` when it cannot be read (which no content has).
    package var sha256: String
    /// Where it was read (absolute), and which version of the file was hashed; nil in inputs read
    /// back from a record.
    package var read: (path: String, identity: FileIdentity?)? = nil

    package enum Reader: String, Sendable, CaseIterable {
        /// The plugin (ABI `input_files`): its content decides every frame of the layer.
        case plugin = "inputs"
        /// The host, for an events parameter: its events are part of the layer's parameters.
        case host = "eventLogs"
        /// The host, for the composition files that hold the layer: what they say is part of the layer's
        /// parameters and host-level fields.
        case composition = "compositions"
    }

    package static func == (lhs: LayerInput, rhs: LayerInput) -> Bool {
        (lhs.layer, lhs.reader, lhs.file, lhs.sha256) == (rhs.layer, rhs.reader, rhs.file, rhs.sha256)
    }

    /// Whether the file is not the version that was hashed (another size, time or inode, or gone):
    /// a plan kept for long (the studio's) is made again then. Reads no content.
    package var isModified: Bool {
        guard let read else { return false }
        return (try? InputFile(read.path).identity) != read.identity
    }

    /// How the canonical job and the manifest hold it.
    package var json: JSONObject { ["file": .string(file), "sha256": .string(sha256)] }

    /// The inputs of one layer that `reader` reads: `paths` (absolute, or relative to `folder`, by default
    /// `jobDirectory`) read and hashed, each file once, in the order of their shown names (relative to
    /// `jobDirectory` when inside it).
    package static func hashing(
        _ paths: [String], layer: Int, reader: Reader, jobDirectory: String, folder: String? = nil
    ) -> [LayerInput] {
        let root = URL(fileURLWithPath: jobDirectory).standardizedFileURL.path
        let base = folder.map { URL(fileURLWithPath: $0).standardizedFileURL.path } ?? root
        let prefix = root.hasSuffix("/") ? root : root + "/"
        var seen: Set<String> = []
        return paths.compactMap { path -> (shown: String, absolute: String)? in
            let absolute =
                path.hasPrefix("/")
                ? URL(fileURLWithPath: path).standardizedFileURL.path
                : URL(fileURLWithPath: base).appendingPathComponent(path).standardizedFileURL.path
            guard seen.insert(absolute).inserted else { return nil }
            let shown = absolute.hasPrefix(prefix) ? String(absolute.dropFirst(prefix.count)) : absolute
            return (shown, absolute)
        }
        .sorted { $0.shown < $1.shown }
        .map { shown, absolute in
            let file = try? InputFile(absolute)
            return LayerInput(
                layer: layer, reader: reader, file: shown,
                sha256: file.flatMap(SHA256.hex(ofVersion:)) ?? "unreadable", read: (absolute, file?.identity))
        }
    }

    /// The inputs recorded in a canonical job (its layers' `inputs` and `eventLogs`), in layer order.
    package static func recorded(in canonical: JSONValue) -> [LayerInput] {
        let layers = canonical.objectValue?["layers"]?.arrayValue ?? []
        return layers.enumerated().flatMap { index, layer in
            Reader.allCases.flatMap { reader in
                (layer.objectValue?[reader.rawValue]?.arrayValue ?? []).compactMap { value -> LayerInput? in
                    guard let object = value.objectValue, let file = object["file"]?.stringValue,
                        let sha256 = object["sha256"]?.stringValue
                    else { return nil }
                    return LayerInput(layer: index, reader: reader, file: file, sha256: sha256)
                }
            }
        }
    }
}
