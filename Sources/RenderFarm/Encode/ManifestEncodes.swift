import Foundation
import RenderFarmMedia
import RenderFarmOutput
import StrictJSON

/// The manifest's `encodes` list: videos made from the folder's frames, each with the exact
/// ffmpeg command and the file's checksum.
package enum ManifestEncodes {
    /// Adds `result` to the `encodes` list of the manifest in the folder `session` holds (replacing
    /// an entry for the same file), rewriting `manifest.json` atomically. A later render rewrites
    /// the manifest without the list, since its frames may have changed.
    package static func record(_ result: EncodeResult, preset: EncodePreset, in session: OutputFolder.Session)
        throws(EncodeError)
    {
        let output: RenderedOutput
        do {
            output = try session.folder.rendered()
        } catch {
            throw .manifest(error)
        }
        var manifest = output.manifest
        let folder = output.directory.hasSuffix("/") ? output.directory : output.directory + "/"
        // Inside the folder the file is named relative to it, like the frames; elsewhere absolute.
        let file = result.file.hasPrefix(folder) ? String(result.file.dropFirst(folder.count)) : result.file
        var entry: JSONObject = [
            "file": .string(file), "preset": .string(preset.rawValue),
            "command": .string(result.commands.joined(separator: " && ")),
            "sha256": .string(result.sha256), "bytes": .number(Double(result.bytes)),
            "frames": .number(Double(result.frames)),
        ]
        // The files the sound track was mixed from: the video's provenance, not the frames'.
        if !result.soundInputs.isEmpty { entry["sound"] = .array(result.soundInputs.map(\.json)) }
        if let layout = result.layout, let config = result.configFile {
            entry["layout"] = layoutEntry(layout)
            entry["config"] = .string(config.hasPrefix(folder) ? String(config.dropFirst(folder.count)) : config)
        }
        var encodes = (manifest["encodes"]?.arrayValue ?? []).filter { $0.objectValue?["file"]?.stringValue != file }
        encodes.append(.object(entry))
        manifest["encodes"] = .array(encodes)
        do {
            try session.writeManifest(.object(manifest))
        } catch {
            throw .output(error)
        }
    }

    /// An alpha-packed layout in VAP's terms: the encoded frame size and the two regions as [x, y, w, h].
    static func layoutEntry(_ layout: AlphaPackedLayout) -> JSONValue {
        func region(_ rect: FrameRegion) -> JSONValue {
            .array([rect.x, rect.y, rect.width, rect.height].map { .number(Double($0)) })
        }
        return .object([
            "videoW": .number(Double(layout.videoWidth)), "videoH": .number(Double(layout.videoHeight)),
            "rgbFrame": region(layout.rgbFrame), "aFrame": region(layout.alphaFrame),
        ])
    }
}
