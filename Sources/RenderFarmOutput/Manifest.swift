import CPNGWriter
import CairoKit
import FileOutput
import Foundation
import RenderFarmJobs
import StrictJSON

/// `manifest.json`: the downstream contract of an output folder (<doc:OutputFolder>).
package enum Manifest {
    package static let fileName = FolderLayout.manifest
    package static let format = "renderfarm.manifest"
    package static let version = 1

    /// The manifest of the render `record` describes (its frame set expected), given the journal
    /// entries found for it: shared by whole renders and `renderfarm merge`.
    package static func build(for record: JobRecord, entries: [Int: JournalEntry]) -> JSONValue {
        let expected = record.frames
        let done = expected.frames.compactMap { index in entries[index].flatMap { $0.status == .ok ? $0 : nil } }
        let missing = expected.frames.filter { entries[$0]?.status != .ok }
        let failed = expected.frames.compactMap { entries[$0] }.filter { $0.status == .failed }
        let opaque = !done.isEmpty && done.allSatisfy(\.opaque)
        let sequence = Sequence(record: record)

        let image: JSONObject = [
            "width": .number(Double(record.pixelWidth)), "height": .number(Double(record.pixelHeight)),
            "widthPoints": .number(record.width), "heightPoints": .number(record.height),
            "scale": .number(record.scale), "pixelFormat": .string(opaque ? "rgb24" : "rgba"),
            "alpha": .string(opaque ? "none" : "straight"), "colorSpace": .string("sRGB"),
            "background": .string(record.background),
        ]
        let frames: [JSONValue] = expected.frames.compactMap { index in
            guard let entry = entries[index] else { return nil }
            var object: JSONObject = [
                "index": .number(Double(index)), "time": .number(entry.time), "file": .string(entry.file),
                "sha256": .string(entry.sha256), "bytes": .number(Double(entry.bytes)),
                "status": .string(entry.status.rawValue), "attempts": .number(Double(entry.attempts)),
                "renderMs": .number((entry.renderMilliseconds * 1000).rounded() / 1000),
            ]
            if let error = entry.error { object["error"] = .string(error) }
            if let source = entry.reusedFrom { object["reusedFrom"] = .number(Double(source)) }
            return .object(object)
        }
        let renderer: JSONObject = [
            "name": "renderfarm", "version": .string(rendererVersion),
            "cairo": .string(CairoLibrary.version),
            "libpng": .string(String(cString: rf_png_library_version())),
            "zlib": .string(String(cString: rf_zlib_library_version())),
            "libdeflate": .string(String(cString: rf_libdeflate_library_version())),
        ]
        var manifest: JSONObject = [
            "format": .string(format), "version": .number(Double(version)),
            "job": .object([
                "name": .string(record.name), "source": .string(record.source),
                "fingerprint": .string(record.fingerprint), "seed": .number(Double(record.seed)),
            ]),
            "renderer": .object(renderer),
            "plugins": .array(record.plugins.map(\.json)),
            "inputs": .array(
                LayerInput.recorded(in: record.canonical).map { input in
                    var object = input.json
                    object["layer"] = .number(Double(input.layer))
                    return .object(object)
                }),
            "image": .object(image),
            "fps": .number(record.fps),
            "duration": .number(record.duration),
            "frameCount": .number(Double(expected.count)),
            "frameSet": .string(expected.description),
            "sequence": .object(sequence.json),
            "frames": .array(frames),
            "complete": .bool(missing.isEmpty),
            "state": .string(missing.isEmpty ? State.complete.rawValue : failed.isEmpty ? "incomplete" : "failed"),
            "missing": .string(FrameSet.compress(missing)),
            "failed": .string(FrameSet.compress(failed.map(\.index))),
            "ffmpeg": .string(sequence.ffmpegCommand(alpha: !opaque, name: record.name)),
        ]
        if let variant = record.variant { manifest["variant"] = variant }
        return .object(manifest)
    }

    /// What a manifest says of its folder (`state`).
    package enum State: String {
        /// A run is writing frames: nothing in the folder may be taken for done.
        case rendering
        case complete
    }

    static func write(_ manifest: JSONValue, to folder: FolderDescriptor) throws(OutputError) {
        try folder.write(manifest.serialized(pretty: true, sortedKeys: true), to: fileName)
    }

    /// The frames as an OpenTimelineIO `ImageSequenceReference` sees them, and the matching
    /// ffmpeg input options.
    package struct Sequence {
        package let prefix: String
        package let padding: Int
        package let fps: Double
        package let start: Int
        /// The constant step between frames, or nil when the frames are not evenly spaced.
        package let step: Int?

        package init(record: JobRecord) {
            let frames = record.frames
            prefix = record.prefix
            fps = record.fps
            padding = record.padding
            start = frames.frames.first ?? 0
            let gaps = Set(zip(frames.frames.dropFirst(), frames.frames).map { $0 - $1 })
            step = gaps.count <= 1 ? (gaps.first ?? 1) : nil
        }

        package var json: JSONObject {
            [
                "target_url_base": "./", "name_prefix": .string(prefix), "name_suffix": ".png",
                "start_frame": .number(Double(start)), "frame_step": .number(Double(step ?? 1)),
                "frame_zero_padding": .number(Double(padding)), "missing_frame_policy": "error",
                "rate": .number(fps),
            ]
        }

        /// A command that encodes the folder's frames when pasted into a POSIX shell there, every argument
        /// quoted as it needs (`FFmpegCommand.shellLine`). A contiguous sequence uses the image2 pattern;
        /// other frame sets use a glob, which ffmpeg expands.
        package func ffmpegCommand(alpha: Bool, name: String) -> String {
            // The video is named after the job, with anything a shell would interpret replaced.
            let safe = String(name.map { $0.isLetter || $0.isNumber || "-_.".contains($0) ? $0 : "_" })
            let name = safe.isEmpty || safe.hasPrefix("-") ? "video" : safe
            let input =
                step == 1
                ? ["-start_number", "\(start)", "-i", "\(prefix)%0\(padding)d.png"]
                : ["-pattern_type", "glob", "-i", "\(prefix)*.png"]
            let codec =
                alpha
                ? ["-c:v", "libvpx-vp9", "-pix_fmt", "yuva420p", "-b:v", "0", "-crf", "30", "\(name).webm"]
                : [
                    "-c:v", "libx264", "-pix_fmt", "yuv420p", "-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2", "-movflags",
                    "+faststart", "\(name).mp4",
                ]
            let arguments = ["-framerate", JSONValue.number(fps).serialized()] + input + codec
            return FFmpegCommand(arguments: arguments).shellLine
        }
    }
}
